package io.github.ham.mapreduce.history;

import java.io.File;

/** A job's history file of each run, in its history directory: run r writes its own. */
public final class HistoryFiles {
  private HistoryFiles() {
  }

  /** The history file of run {@code run} of a job. */
  public static File jhist(File dir, String jobId, int run) {
    return new File(dir, jobId + "_" + run + ".jhist");
  }

  /** The number of the next run of a job: one more than the last its history has. */
  public static int nextRun(File dir, String jobId) {
    int run = 1;
    while (jhist(dir, jobId, run).isFile()) {
      run++;
    }
    return run;
  }
}
