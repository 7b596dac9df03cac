package io.github.ham.mapreduce.driver.launch;

import java.io.File;
import java.io.IOException;
import java.util.Map;

import io.github.ham.mapreduce.common.HamConfig;
import io.github.ham.mapreduce.common.jobfiles.JobDirs;
import io.github.ham.mapreduce.common.jobfiles.RunnerWorkDirs;

import org.apache.hadoop.conf.Configuration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where a job's runners make their working directories: {@code root}, under the user's private
 * node-local {@code top} (ham.runner.local.dir, {@link RunnerWorkDirs}), or on the shared file
 * system when {@code top} is null; {@code shared}: the one on the shared file system (where a
 * runner that cannot use its node's goes); {@code parks}: whether the runners park at the
 * job's end (warm runners, whose registry could be made).
 */
record WorkRoot(File root, File top, File shared, boolean parks) {
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
    return top == null ? new WorkRoot(shared, null, shared, parks)
        : new WorkRoot(RunnerWorkDirs.jobRoot(top, platform.localWorkScope(), jobId, dirs.root()),
            top, shared, parks);
  }

  /** Says where to work in a runner step's environment {@code env} (RunnerWorkDirs.ENV_*). */
  void export(Map<String, String> env) {
    env.put(RunnerWorkDirs.ENV_ROOT, root.getAbsolutePath());
    env.put(RunnerWorkDirs.ENV_SHARED, shared.getAbsolutePath());
    if (top != null) {
      env.put(RunnerWorkDirs.ENV_TOP, top.getAbsolutePath());
    } else {
      env.remove(RunnerWorkDirs.ENV_TOP);  // a driver started from a task has it
    }
  }

  /**
   * The user's node-local directory the runners work under, or null when they work on the
   * shared file system: ham.runner.local.dir "none", or a platform without node-local
   * directories (the local launcher).
   */
  private static File localTop(RunnerPlatform platform, Configuration conf) throws IOException {
    String dir = conf.getTrimmed(HamConfig.RUNNER_LOCAL_DIR, HamConfig.DEFAULT_RUNNER_LOCAL_DIR);
    if (dir.equals(RunnerWorkDirs.NONE) || platform.localWorkScope() == null) {
      return null;
    }
    // The launcher's setting refuses the same (a job's -D comes here unchecked): the task's
    // job.xml and cache links are named by their path, which Hadoop reads as a URI.
    if (!new File(dir).isAbsolute() || !dir.matches("[\\x21-\\x7e&&[^%:]]+")) {
      throw new IOException(HamConfig.RUNNER_LOCAL_DIR + " must be an absolute directory on "
          + "each node without spaces, '%', ':' or non-ASCII characters (or none: the job's "
          + "directory on the shared file system), got '" + dir + "'");
    }
    return RunnerWorkDirs.top(dir, System.getProperty("user.name"));
  }
}
