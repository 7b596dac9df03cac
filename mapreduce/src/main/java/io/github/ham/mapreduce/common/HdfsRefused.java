package io.github.ham.mapreduce.common;

import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.DelegateToFileSystem;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.util.Progressable;

/**
 * The file system of the hdfs scheme in a HAM job (fs.hdfs.impl and
 * fs.AbstractFileSystem.hdfs.impl in the job's core-site.xml): HAM has no HDFS, so any use of an
 * hdfs:// path fails at once, with one line that names the scheme to use instead. Hadoop's own
 * HDFS client would instead retry a NameNode that is not there. `hadoop fs` prints the line as
 * its error; a job gets it as the IOException of its input or output path.
 * <p>It refuses in every operation rather than in initialize(): Hadoop's FileSystem logs a WARN
 * with the whole exception for a file system that fails to initialise (a second line), and a
 * FileNotFoundException would read as "No such file" to the globber: a plain IOException it is.
 * The launcher says the same words (launcher/ham/nohdfs.py).
 */
public class HdfsRefused extends FileSystem {

  /** The message for a path, given the job's fs.defaultFS. */
  public static String message(URI uri, Configuration conf) {
    String defaultFs = conf.get(FileSystem.FS_DEFAULT_NAME_KEY, "file:///");
    String scheme = URI.create(defaultFs).getScheme();
    String schemes = scheme == null || scheme.equals("file") ? "file://" : scheme + ":// or file://";
    return uri + ": HAM has no HDFS: name files on the shared file system with " + schemes
        + " paths, or paths without a scheme (fs.defaultFS is " + defaultFs + ")";
  }

  @Override
  public void initialize(URI name, Configuration conf) throws IOException {
    super.initialize(name, conf);
    setConf(conf);
  }

  /** FileContext's view of the same (AbstractFileSystem), through the refusing FileSystem. */
  public static class Afs extends DelegateToFileSystem {
    public Afs(URI uri, Configuration conf) throws IOException, URISyntaxException {
      super(uri, new HdfsRefused(), conf, "hdfs", false);
    }
  }

  @Override
  public String getScheme() {
    return "hdfs";
  }

  @Override
  public URI getUri() {
    return URI.create("hdfs:///");
  }

  @Override
  public FSDataInputStream open(Path f, int bufferSize) throws IOException {
    throw refused(f);
  }

  @Override
  public FSDataOutputStream create(Path f, FsPermission permission, boolean overwrite,
      int bufferSize, short replication, long blockSize, Progressable progress)
      throws IOException {
    throw refused(f);
  }

  @Override
  public FSDataOutputStream append(Path f, int bufferSize, Progressable progress)
      throws IOException {
    throw refused(f);
  }

  @Override
  public boolean rename(Path src, Path dst) throws IOException {
    throw refused(src);
  }

  @Override
  public boolean delete(Path f, boolean recursive) throws IOException {
    throw refused(f);
  }

  @Override
  public FileStatus[] listStatus(Path f) throws IOException {
    throw refused(f);
  }

  @Override
  public void setWorkingDirectory(Path dir) {
    // No working directory on a file system that refuses every path.
  }

  @Override
  public Path getWorkingDirectory() {
    return new Path("/");
  }

  @Override
  public boolean mkdirs(Path f, FsPermission permission) throws IOException {
    throw refused(f);
  }

  @Override
  public FileStatus getFileStatus(Path f) throws IOException {
    throw refused(f);
  }

  private IOException refused(Path f) {
    Configuration conf = getConf() == null ? new Configuration(false) : getConf();
    return new IOException(message(f.toUri(), conf));
  }
}
