package io.github.ham.mapreduce.runner;

import java.io.File;
import java.io.IOException;
import java.net.URLClassLoader;

import io.github.ham.mapreduce.common.JobDirs;
import io.github.ham.mapreduce.common.JobResources;

import org.apache.hadoop.mapred.JobConf;

/**
 * What every task of one job shares inside a runner JVM: the job's configuration as parsed
 * from its job.xml, its resources and its class loader. Built on the job's first task and
 * reused by the next ones, like LocalJobRunner shares one configuration and class loader
 * among the tasks of a job: parsing job.xml (and core/mapred-default.xml behind it) took
 * 8-11 ms of every task on an idle core (a copy takes ~0.6 ms), and a class loader per task
 * loaded the job's classes again. Each task gets its own copy of the configuration
 * ({@link #newTaskConf}); this one is never handed out. Like JVM reuse in Hadoop 1 and the
 * local runner, static state of the job's classes survives from one task to the next.
 */
final class RunnerJob implements AutoCloseable {
  private final String jobFile;
  private final JobConf conf;
  private final JobResources resources;
  private final URLClassLoader loader;
  private final JobXmlWriter jobXmlWriter = new JobXmlWriter();

  /**
   * Parses {@code jobFile} and builds the task class path; {@code workDir} is the runner's
   * working directory, which is on the class path (as a YARN container's is).
   */
  RunnerJob(String jobFile, JobDirs dirs, File workDir) throws IOException {
    this.jobFile = jobFile;
    this.conf = new JobConf(jobFile);
    this.resources = new JobResources(conf, dirs);
    this.loader = new URLClassLoader(resources.classPath(workDir),
        RunnerJob.class.getClassLoader());
    conf.setClassLoader(loader);
    // Parse now: copies of a parsed configuration do not parse again (until a class adds a
    // default resource, e.g. yarn-default.xml on first use, which reloads every configuration).
    conf.size();
  }

  /** True if this is the state of the job whose configuration is {@code jobFile}. */
  boolean isFor(String jobFile) {
    return this.jobFile.equals(jobFile);
  }

  /** A fresh copy of the job's configuration for one task, with the job's class loader. */
  JobConf newTaskConf() {
    return new JobConf(conf);
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

  @Override
  public void close() throws IOException {
    loader.close();
  }
}
