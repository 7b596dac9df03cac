package io.github.ham.mapreduce.driver.launch;

import java.io.File;
import java.io.IOException;

import io.github.ham.mapreduce.common.HamConfig;
import io.github.ham.mapreduce.common.jobfiles.JobDirs;
import io.github.ham.mapreduce.common.jobfiles.RunnerWorkDirs;

import org.apache.hadoop.conf.Configuration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where a job's runners make their working directories: {@code root}, under the user's private
 * node-local {@code top} (ham.runner.local.dir, {@link RunnerWorkDirs}), or on the shared file
 * system when {@code top} is null; {@code parks}: whether the runners park at the job's end
 * (warm runners, whose registry could be made).
 */
record WorkRoot(File root, File top, boolean parks) {
  private static final Logger LOG = LoggerFactory.getLogger(WorkRoot.class);

  static WorkRoot of(RunnerPlatform platform, Configuration conf, JobDirs dirs, WarmRunners warm,
      String jobId) throws IOException {
    // A parked runner outlives its job's work/ (removed at the job's end): on the shared file
    // system its working directory is the session's, removed with the session's intermediate
    // data; a node-local one goes with the runner.
    File shared = dirs.work();
    boolean parks = false;
    if (warm != null) {
      try {
        shared = warm.workRoot(jobId);
        parks = true;
      } catch (IOException e) {
        LOG.warn("Cannot make the warm runners' directory; the job's runners will not park: {}",
            e.toString());
      }
    }
    File top = localTop(platform, conf);
    return top == null ? new WorkRoot(shared, null, parks)
        : new WorkRoot(RunnerWorkDirs.jobRoot(top, platform.localWorkScope(), jobId, dirs.root()),
            top, parks);
  }

  /**
   * The user's node-local directory the runners work under, or null when they work on the
   * shared file system: ham.runner.local.dir "none" (or set empty by a -D), a platform without node-local directories
   * (the local launcher), or ham.keep.intermediate (kept for debugging, where it can be read
   * from the login node).
   */
  private static File localTop(RunnerPlatform platform, Configuration conf) throws IOException {
    String dir = conf.getTrimmed(HamConfig.RUNNER_LOCAL_DIR, HamConfig.DEFAULT_RUNNER_LOCAL_DIR);
    if (dir.isEmpty() || dir.equals(RunnerWorkDirs.NONE) || platform.localWorkScope() == null
        || conf.getBoolean(HamConfig.KEEP_INTERMEDIATE, HamConfig.DEFAULT_KEEP_INTERMEDIATE)) {
      return null;
    }
    if (!new File(dir).isAbsolute()) {
      throw new IOException(HamConfig.RUNNER_LOCAL_DIR + " must be an absolute directory on "
          + "each node (or none: the job's directory on the shared file system), got '" + dir
          + "'");
    }
    return RunnerWorkDirs.top(dir, System.getProperty("user.name"));
  }
}
