package io.github.ham.mapreduce;

import java.io.File;

/** The layout of one job's runtime directory: {@code <ham.job.dir>/jobs/<jobid>/}. */
public final class JobDirs {
  private final File root;

  public JobDirs(File root) {
    this.root = root;
  }

  public static JobDirs of(String hamJobDir, String jobId) {
    return new JobDirs(new File(new File(hamJobDir, "jobs"), jobId));
  }

  public File root() {
    return root;
  }

  public File logs() {
    return new File(root, "logs");
  }

  public File intermediate() {
    return new File(root, "intermediate");
  }

  /** Map output (file.out, file.out.index) and spills of one attempt. */
  public File attemptOutput(String attemptId) {
    return new File(intermediate(), attemptId);
  }

  public File work() {
    return new File(root, "work");
  }

  /** Working directory (the JVM's cwd) of one runner. */
  public File runnerWork(String runnerName) {
    return new File(work(), runnerName);
  }

  /** Unpacked archives and the job jar's classes/ and lib/, shared by all tasks. */
  public File cache() {
    return new File(work(), "_cache");
  }

  public File status() {
    return new File(root, "status.json");
  }

  public File attemptLog(String attemptId, String host, String suffix) {
    return new File(logs(), attemptId + "." + host + "." + suffix);
  }
}
