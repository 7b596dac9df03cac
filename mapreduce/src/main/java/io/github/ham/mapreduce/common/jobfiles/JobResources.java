package io.github.ham.mapreduce.common.jobfiles;

import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.net.URL;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

import io.github.ham.mapreduce.common.fs.MountedFiles;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileUtil;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.mapreduce.MRJobConfig;
import org.apache.hadoop.util.RunJar;

/**
 * The job's distributed cache, libjars and job jar as seen on the shared file system. Used in
 * both JVMs, which is why it is in the shared package: the driver unpacks the archives and the
 * job jar once ({@link #unpack}); each runner links them into its working directory and builds
 * the task class path ({@link #link}, {@link #classPath}). Everything is already on the shared
 * file system (staging dir), so nothing is copied.
 */
public final class JobResources {
  /** A cache entry: where it is and the name it gets in the working directory. */
  public record Entry(File source, String linkName) {
  }

  private final Configuration conf;
  private final JobDirs dirs;

  public JobResources(Configuration conf, JobDirs dirs) {
    this.conf = conf;
    this.dirs = dirs;
  }

  /** The link name of a cache URI: its fragment, else its file name. */
  public static String linkName(URI uri) {
    if (uri.getFragment() != null) {
      return uri.getFragment();
    }
    return new Path(uri.getPath()).getName();
  }

  /**
   * A cache URI as a file on the shared mount, relative paths resolved against the job's
   * working dir. A file:// URI is its path; any other (no scheme, or lustre://) goes through
   * its file system, so that with fs.defaultFS=lustre:/// a path such as TeraSort's partition
   * file is found under fs.root.dir, where the job wrote it.
   */
  public File resolve(URI uri) {
    String path = uri.getPath();
    if (!"file".equals(uri.getScheme())) {
      File mounted = mounted(uri);
      if (mounted != null) {
        return mounted;
      }
    }
    if (!path.startsWith("/")) {
      String wd = conf.get(MRJobConfig.WORKING_DIR);
      if (wd != null) {
        path = new Path(new Path(wd), path).toUri().getPath();
      }
    }
    return new File(path);
  }

  private File mounted(URI uri) {
    try {
      Path p = new Path(uri.getScheme(), uri.getAuthority(), uri.getPath());
      if (!p.isAbsolute() && conf.get(MRJobConfig.WORKING_DIR) != null) {
        p = new Path(new Path(conf.get(MRJobConfig.WORKING_DIR)), p);
      }
      return MountedFiles.of(p.getFileSystem(conf), p);
    } catch (IOException | IllegalArgumentException e) {
      return null;
    }
  }

  private URI[] uris(String key) {
    String[] values = conf.getTrimmedStrings(key);
    URI[] out = new URI[values.length];
    for (int i = 0; i < values.length; i++) {
      out[i] = URI.create(values[i]);
    }
    return out;
  }

  public List<Entry> files() {
    List<Entry> out = new ArrayList<>();
    for (URI uri : uris(MRJobConfig.CACHE_FILES)) {
      out.add(new Entry(resolve(uri), linkName(uri)));
    }
    return out;
  }

  /** Archives, pointing at their unpacked directories. */
  public List<Entry> archives() {
    List<Entry> out = new ArrayList<>();
    URI[] archives = uris(MRJobConfig.CACHE_ARCHIVES);
    for (int i = 0; i < archives.length; i++) {
      out.add(new Entry(unpackedArchive(i), linkName(archives[i])));
    }
    return out;
  }

  private File unpackedArchive(int index) {
    return new File(new File(dirs.cache(), "archives"), Integer.toString(index));
  }

  private File unpackedJobJar() {
    return new File(dirs.cache(), "job.jar");
  }

  /**
   * The job jar on the shared file system, or null when the job has none. The client stages it
   * in HAM's staging directory, a path on the shared mount whatever fs.defaultFS says
   * (HamClientProtocol.getStagingAreaDir), and names it without a scheme: such a path that is
   * a file is that file (through lustre:/// it would be looked for under fs.root.dir, and a
   * job whose classes are only in its jar, such as Hadoop Streaming's, would find none).
   */
  public File jobJar() {
    String jar = conf.get(MRJobConfig.JAR);
    if (jar == null) {
      return null;
    }
    URI uri = URI.create(jar);
    File staged = new File(uri.getPath());
    return uri.getScheme() == null && staged.isAbsolute() && staged.isFile() ? staged
        : resolve(uri);
  }

  /** Driver side, once per job: unpack archives and the job jar's classes/ and lib/. */
  public void unpack() throws IOException {
    URI[] archives = uris(MRJobConfig.CACHE_ARCHIVES);
    for (int i = 0; i < archives.length; i++) {
      unpackArchive(resolve(archives[i]), unpackedArchive(i));
    }
    File jar = jobJar();
    if (jar != null && jar.isFile()) {
      Pattern pattern = conf.getPattern(MRJobConfig.JAR_UNPACK_PATTERN,
          Pattern.compile("(?:classes/|lib/).*"));
      File to = unpackedJobJar();
      mkdirs(to);
      RunJar.unJar(jar, to, pattern);
    }
  }

  private static void unpackArchive(File archive, File to) throws IOException {
    mkdirs(to);
    String name = archive.getName().toLowerCase(Locale.ROOT);
    if (name.endsWith(".jar")) {
      RunJar.unJar(archive, to, RunJar.MATCH_ANY);
    } else if (name.endsWith(".zip")) {
      FileUtil.unZip(archive, to);
    } else if (name.endsWith(".tar.gz") || name.endsWith(".tgz") || name.endsWith(".tar")) {
      FileUtil.unTar(archive, to);
    } else {
      // Not an archive: YARN localizes it as is.
      java.nio.file.Files.createSymbolicLink(new File(to, archive.getName()).toPath(),
          archive.toPath());
    }
  }

  private static void mkdirs(File dir) throws IOException {
    if (!dir.isDirectory() && !dir.mkdirs() && !dir.isDirectory()) {
      throw new IOException("Cannot create directory " + dir);
    }
  }

  /** Runner side: links every cache file and archive into {@code workDir}. */
  public void link(File workDir) throws IOException {
    List<Entry> all = new ArrayList<>(files());
    all.addAll(archives());
    for (Entry e : all) {
      File link = new File(workDir, e.linkName());
      if (link.toPath().getParent() != null) {
        mkdirs(link.getParentFile());
      }
      if (!java.nio.file.Files.exists(link.toPath(), java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
        java.nio.file.Files.createSymbolicLink(link.toPath(), e.source().toPath());
      }
    }
  }

  /** The local (working-dir) paths of the cache, as MRApps.setupDistributedCacheLocal sets. */
  public void setLocalCachePaths(Configuration taskConf, File workDir) {
    List<String> files = new ArrayList<>();
    for (Entry e : files()) {
      files.add(new File(workDir, e.linkName()).getAbsolutePath());
    }
    List<String> archives = new ArrayList<>();
    for (Entry e : archives()) {
      archives.add(new File(workDir, e.linkName()).getAbsolutePath());
    }
    if (!files.isEmpty()) {
      taskConf.setStrings(MRJobConfig.CACHE_LOCALFILES, files.toArray(new String[0]));
    }
    if (!archives.isEmpty()) {
      taskConf.setStrings(MRJobConfig.CACHE_LOCALARCHIVES, archives.toArray(new String[0]));
    }
  }

  /**
   * The task class path, as YARN builds it for a container: the working dir, job.jar,
   * job.jar's classes/ and lib/*, the libjars and class-path archives, and jars in the
   * working dir.
   */
  public URL[] classPath(File workDir) throws IOException {
    List<URL> urls = new ArrayList<>();
    urls.add(dirUrl(workDir));
    File jar = jobJar();
    if (jar != null && jar.isFile()) {
      urls.add(jar.toURI().toURL());
      File unpacked = unpackedJobJar();
      urls.add(dirUrl(new File(unpacked, "classes")));
      addJars(urls, new File(unpacked, "lib"));
    }
    for (String p : conf.getTrimmedStrings(MRJobConfig.CLASSPATH_FILES)) {
      urls.add(resolve(URI.create(p)).toURI().toURL());
    }
    String[] cpArchives = conf.getTrimmedStrings(MRJobConfig.CLASSPATH_ARCHIVES);
    URI[] archives = uris(MRJobConfig.CACHE_ARCHIVES);
    for (String p : cpArchives) {
      String cpPath = URI.create(p).getPath();
      for (int i = 0; i < archives.length; i++) {
        if (archives[i].getPath().equals(cpPath)) {
          urls.add(dirUrl(unpackedArchive(i)));
        }
      }
    }
    addJars(urls, workDir);
    return urls.toArray(new URL[0]);
  }

  private static URL dirUrl(File dir) throws IOException {
    String s = dir.getAbsoluteFile().toURI().toString();
    return URI.create(s.endsWith("/") ? s : s + "/").toURL();
  }

  private static void addJars(List<URL> urls, File dir) throws IOException {
    File[] jars = dir.listFiles((d, n) -> n.endsWith(".jar") || n.endsWith(".JAR"));
    if (jars == null) {
      return;
    }
    java.util.Arrays.sort(jars);
    for (File j : jars) {
      urls.add(j.toURI().toURL());
    }
  }
}
