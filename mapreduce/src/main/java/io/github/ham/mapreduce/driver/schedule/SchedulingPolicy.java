package io.github.ham.mapreduce.driver.schedule;

import io.github.ham.mapreduce.common.HamConfig;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.mapreduce.MRJobConfig;

/**
 * The job's settings that the scheduler enforces, read with YARN's keys and defaults:
 * attempts per task, the task timeout, how many tasks may fail without failing the job
 * ({@code mapreduce.{map,reduce}.failures.maxpercent}), per-node blacklisting
 * ({@code mapreduce.job.maxtaskfailures.per.tracker}, ignored when more than
 * {@code yarn.app.mapreduce.am.job.node-blacklisting.ignore-threshold-node-percent} of the
 * nodes would be excluded), speculative execution, and how many tasks of a kind may run at once
 * ({@code mapreduce.job.running.{map,reduce}.limit}).
 */
public record SchedulingPolicy(int maxMapAttempts, int maxReduceAttempts, long taskTimeoutMs,
    long heartbeatTimeoutMs, int mapFailuresMaxPercent, int reduceFailuresMaxPercent,
    int maxTaskFailuresPerNode, int blacklistIgnorePercent, boolean speculativeMaps,
    boolean speculativeReduces, double speculativeCap, long speculativeMinMs,
    int runningMapLimit, int runningReduceLimit) {

  static final String BLACKLISTING = "yarn.app.mapreduce.am.job.node-blacklisting.enable";
  static final String BLACKLIST_IGNORE_PERCENT =
      "yarn.app.mapreduce.am.job.node-blacklisting.ignore-threshold-node-percent";

  /** Attempts and timeouts only: no failures allowed, no blacklisting, no speculation. */
  public static SchedulingPolicy basic(int maxAttempts, long taskTimeoutMs,
      long heartbeatTimeoutMs) {
    return new SchedulingPolicy(maxAttempts, maxAttempts, taskTimeoutMs, heartbeatTimeoutMs, 0, 0,
        0, 100, false, false, 0.1, 0, 0, 0);
  }

  public static SchedulingPolicy from(Configuration conf) {
    boolean blacklisting = conf.getBoolean(BLACKLISTING, true);
    return new SchedulingPolicy(
        conf.getInt(MRJobConfig.MAP_MAX_ATTEMPTS, 4),
        conf.getInt(MRJobConfig.REDUCE_MAX_ATTEMPTS, 4),
        conf.getLong(MRJobConfig.TASK_TIMEOUT, 600_000L),
        conf.getLong(HamConfig.HEARTBEAT_TIMEOUT_MS, HamConfig.DEFAULT_HEARTBEAT_TIMEOUT_MS),
        conf.getInt(MRJobConfig.MAP_FAILURES_MAX_PERCENT, 0),
        conf.getInt(MRJobConfig.REDUCE_FAILURES_MAXPERCENT, 0),
        blacklisting ? conf.getInt(MRJobConfig.MAX_TASK_FAILURES_PER_TRACKER, 3) : 0,
        conf.getInt(BLACKLIST_IGNORE_PERCENT, 33),
        conf.getBoolean(MRJobConfig.MAP_SPECULATIVE, true),
        conf.getBoolean(MRJobConfig.REDUCE_SPECULATIVE, true),
        conf.getDouble(MRJobConfig.SPECULATIVECAP_RUNNING_TASKS, 0.1),
        conf.getLong(HamConfig.SPECULATIVE_MIN_MS, HamConfig.DEFAULT_SPECULATIVE_MIN_MS),
        conf.getInt(MRJobConfig.JOB_RUNNING_MAP_LIMIT, 0),
        conf.getInt(MRJobConfig.JOB_RUNNING_REDUCE_LIMIT, 0));
  }

  /** mapreduce.job.running.{map,reduce}.limit: at most this many at a time (0: no limit). */
  int runningLimit(boolean isMap) {
    return isMap ? runningMapLimit : runningReduceLimit;
  }

  int maxAttempts(boolean isMap) {
    return Math.max(1, isMap ? maxMapAttempts : maxReduceAttempts);
  }

  int failuresMaxPercent(boolean isMap) {
    return isMap ? mapFailuresMaxPercent : reduceFailuresMaxPercent;
  }

  boolean speculative(boolean isMap) {
    return isMap ? speculativeMaps : speculativeReduces;
  }
}
