package io.github.ham.mapreduce.driver;

import java.util.HashMap;
import java.util.Map;

import io.github.ham.mapreduce.common.AttemptKey;
import io.github.ham.mapreduce.common.AttemptState;

import org.apache.hadoop.mapred.Counters;
import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapreduce.JobCounter;
import org.apache.hadoop.mapreduce.MRJobConfig;
import org.apache.hadoop.mapreduce.TaskType;

/**
 * The job's counters: the task counters the attempts last reported, summed over the successful
 * and running attempts, plus the job counters the driver derives from the scheduler, the same
 * set and arithmetic as YARN's (TaskAttemptImpl): launched, failed and killed attempts, their
 * time, and that time weighted by their memory ("slots" of
 * yarn.scheduler.minimum-allocation-mb), megabytes and vcores. On a shared file system no map
 * is data-local: every launched map counts as "other local", as YARN counts off-switch maps.
 */
final class JobCounters {
  private final TaskScheduler scheduler;
  private final Map<AttemptKey, Counters> byAttempt = new HashMap<>();
  /** Per task type (map, reduce): memory.mb, vcores, and slots of the minimum allocation. */
  private final long[] memoryMb = new long[2];
  private final long[] vcores = new long[2];
  private final long[] slots = new long[2];

  JobCounters(TaskScheduler scheduler, JobConf conf) {
    this.scheduler = scheduler;
    int minAllocation = conf.getInt("yarn.scheduler.minimum-allocation-mb", 1024);
    for (int i = 0; i < 2; i++) {
      memoryMb[i] = conf.getMemoryRequired(i == 0 ? TaskType.MAP : TaskType.REDUCE);
      vcores[i] = conf.getInt(i == 0 ? MRJobConfig.MAP_CPU_VCORES
          : MRJobConfig.REDUCE_CPU_VCORES, 1);
      slots[i] = minAllocation <= 0 ? 0 : (long) Math.ceil((double) memoryMb[i] / minAllocation);
    }
  }

  /** An attempt's latest counters (each status report carries all of them). */
  synchronized void update(AttemptKey key, Counters counters) {
    byAttempt.put(key, counters);
  }

  /** The counters an attempt last reported (empty if none). */
  synchronized Counters ofAttempt(AttemptKey key) {
    Counters c = byAttempt.get(key);
    return c == null ? new Counters() : c;
  }

  /** The task counters of the successful attempts of the maps (or reduces). */
  synchronized Counters succeededTasks(boolean isMap) {
    Counters sum = new Counters();
    for (AttemptInfo.Snapshot a : scheduler.attempts()) {
      Counters c = byAttempt.get(a.key());
      if (c != null && a.key().isMap() == isMap && a.state() == AttemptState.SUCCEEDED) {
        sum.incrAllCounters(c);
      }
    }
    return sum;
  }

  synchronized Counters total() {
    Counters total = new Counters();
    long[] millis = new long[2];
    long now = System.currentTimeMillis();
    for (AttemptInfo.Snapshot a : scheduler.attempts()) {
      Counters c = byAttempt.get(a.key());
      if (c != null && (a.state() == AttemptState.SUCCEEDED
          || a.state() == AttemptState.RUNNING)) {
        total.incrAllCounters(c);
      }
      long end = a.finish() == 0 ? now : a.finish();
      millis[a.key().isMap() ? 0 : 1] += Math.max(0, end - a.start());
    }
    TaskScheduler.Counts m = scheduler.counts(true);
    TaskScheduler.Counts r = scheduler.counts(false);
    total.incrCounter(JobCounter.TOTAL_LAUNCHED_MAPS, m.launched());
    total.incrCounter(JobCounter.OTHER_LOCAL_MAPS, m.launched());
    if (r.launched() > 0) {
      total.incrCounter(JobCounter.TOTAL_LAUNCHED_REDUCES, r.launched());
    }
    if (m.failedAttempts() > 0) {
      total.incrCounter(JobCounter.NUM_FAILED_MAPS, m.failedAttempts());
    }
    if (r.failedAttempts() > 0) {
      total.incrCounter(JobCounter.NUM_FAILED_REDUCES, r.failedAttempts());
    }
    if (m.killedAttempts() > 0) {
      total.incrCounter(JobCounter.NUM_KILLED_MAPS, m.killedAttempts());
    }
    if (r.killedAttempts() > 0) {
      total.incrCounter(JobCounter.NUM_KILLED_REDUCES, r.killedAttempts());
    }
    total.incrCounter(JobCounter.SLOTS_MILLIS_MAPS, millis[0] * slots[0]);
    total.incrCounter(JobCounter.MILLIS_MAPS, millis[0]);
    total.incrCounter(JobCounter.VCORES_MILLIS_MAPS, millis[0] * vcores[0]);
    total.incrCounter(JobCounter.MB_MILLIS_MAPS, millis[0] * memoryMb[0]);
    if (r.launched() > 0) {
      total.incrCounter(JobCounter.SLOTS_MILLIS_REDUCES, millis[1] * slots[1]);
      total.incrCounter(JobCounter.MILLIS_REDUCES, millis[1]);
      total.incrCounter(JobCounter.VCORES_MILLIS_REDUCES, millis[1] * vcores[1]);
      total.incrCounter(JobCounter.MB_MILLIS_REDUCES, millis[1] * memoryMb[1]);
    }
    return total;
  }
}
