package io.github.ham.mapreduce.runner;

import java.io.Closeable;
import java.io.File;
import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.Arrays;
import java.util.Properties;

import io.github.ham.mapreduce.common.fs.KeptFiles;
import io.github.ham.mapreduce.common.jobfiles.JobDirs;
import io.github.ham.mapreduce.common.jobfiles.JobResources;

import org.apache.hadoop.fs.Path;
import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapreduce.MRJobConfig;
import org.apache.hadoop.util.ApplicationClassLoader;

/**
 * What every task of one job shares inside a runner JVM: the job's configuration as parsed
 * from its job.xml, its resources and its class loader. Built on the job's first task and
 * reused by the next ones, like LocalJobRunner shares one configuration and class loader
 * among the tasks of a job: parsing job.xml (and core/mapred-default.xml behind it) took
 * 8-11 ms of every task on an idle core (a copy takes ~0.6 ms), and a class loader per task
 * loaded the job's classes again. Each task gets its own copy of the configuration
 * ({@link #newTaskConf}); this one is never handed out. Like JVM reuse in Hadoop 1 and the
 * local runner, static state of the job's classes survives from one task to the next (unless
 * an attempt fails in a way that may be this state's: TaskRunner then builds it anew). It
 * also keeps the job's split file open for its maps ({@link #keepSplitFile}) until closed.
 */
final class RunnerJob implements AutoCloseable {
  private final String jobFile;
  private final BaseConf conf;
  private final JobResources resources;
  private final URLClassLoader loader;
  private final JobXmlWriter jobXmlWriter = new JobXmlWriter();
  /** The names of the job's properties (see {@link #newTaskConf}). */
  private KeyIndex keys;
  /** The handle of the split file kept open for the job's maps ({@link #keepSplitFile}). */
  private Closeable keptSplit;

  /**
   * Parses {@code jobFile} and builds the task class path; {@code workDir} is the runner's
   * working directory, which is on the class path (as a YARN container's is).
   */
  RunnerJob(String jobFile, JobDirs dirs, File workDir) throws IOException {
    this.jobFile = jobFile;
    this.conf = new BaseConf(jobFile);
    this.resources = new JobResources(conf, dirs);
    this.loader = classLoader(conf, resources.classPath(workDir));
    conf.setClassLoader(loader);
    // Parse now: copies of a parsed configuration do not parse again (until a class adds a
    // default resource, e.g. yarn-default.xml on first use, which reloads every configuration).
    conf.size();
  }

  /**
   * The job's class loader: the runner's first (its Hadoop and HAM), then the job's jars, as a
   * YARN container's class path; with mapreduce.job.classloader (or user.classpath.first) the
   * job's jars first except for Hadoop's system classes
   * (mapreduce.job.classloader.system.classes), as MRApps sets up. The runner's Hadoop is
   * already loaded, so user.classpath.first cannot put a job's own copy of Hadoop first.
   */
  private static URLClassLoader classLoader(JobConf conf, URL[] urls) {
    ClassLoader parent = RunnerJob.class.getClassLoader();
    if (conf.getBoolean(MRJobConfig.MAPREDUCE_JOB_CLASSLOADER, false)
        || conf.getBoolean(MRJobConfig.MAPREDUCE_JOB_USER_CLASSPATH_FIRST, false)) {
      String[] system = conf.getTrimmedStrings(
          MRJobConfig.MAPREDUCE_JOB_CLASSLOADER_SYSTEM_CLASSES);
      return new ApplicationClassLoader(urls, parent,
          system.length == 0 ? null : Arrays.asList(system));
    }
    return new URLClassLoader(urls, parent);
  }

  /** True if this is the state of the job whose configuration is {@code jobFile}. */
  boolean isFor(String jobFile) {
    return this.jobFile.equals(jobFile);
  }

  /**
   * A fresh copy of the job's configuration for one task, with the job's class loader, and the
   * index of its names ({@link KeyIndex}), made again if the job's configuration was loaded
   * again since (a class that adds a default resource reloads every configuration).
   */
  JobConf newTaskConf() {
    // Under the configuration's lock, as its reload and its copy take it: the index and the
    // copy come from the same properties (the lock also guards keys).
    synchronized (conf) {
      Properties props = conf.properties();
      if (keys == null || !keys.isOf(props)) {
        keys = KeyIndex.of(props);
      }
      return new TaskConf(conf, keys);
    }
  }

  /** The job's configuration, whose properties object the index of its names is kept for. */
  private static final class BaseConf extends JobConf {
    BaseConf(String jobFile) {
      super(jobFile);
    }

    Properties properties() {
      return getProps();
    }
  }

  JobResources resources() {
    return resources;
  }

  ClassLoader classLoader() {
    return loader;
  }

  /** Writes the tasks' job.xml files, reusing what they share. */
  JobXmlWriter jobXmlWriter() {
    return jobXmlWriter;
  }

  /**
   * Keeps the job's split file and its checksums open, with their status, for the maps of the
   * job this runner runs ({@link KeptFiles}: each map's read of its split then goes to the
   * shared file system's servers for its bytes alone). A local path (file:) only, once a job.
   */
  void keepSplitFile(String location) {
    if (location == null || location.isEmpty()) {
      return;  // a task without a split
    }
    try {
      java.net.URI uri = new Path(location).toUri();
      if (!"file".equals(uri.getScheme()) || uri.getPath() == null) {
        return;
      }
      File split = new File(uri.getPath());
      if (KeptFiles.get(split) != null) {
        return;
      }
      // A first map of the job, or the file was dropped (a read of it failed): keep it again.
      if (keptSplit != null) {
        keptSplit.close();
      }
      keptSplit = KeptFiles.keep(split, new File(split.getParentFile(),
          "." + split.getName() + ".crc"));
    } catch (IOException | RuntimeException e) {
      // Only a speed-up: the maps read their splits as any other file (a handle kept before
      // stays, for close to let go).
    }
  }

  @Override
  public void close() throws IOException {
    try {
      if (keptSplit != null) {
        keptSplit.close();
      }
    } finally {
      loader.close();
    }
  }
}
