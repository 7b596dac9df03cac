package io.github.ham.mapreduce.driver;

import java.util.HashMap;
import java.util.Map;

import io.github.ham.mapreduce.common.AttemptKey;
import io.github.ham.mapreduce.common.AttemptState;

import org.apache.hadoop.mapred.Counters;
import org.apache.hadoop.mapreduce.JobCounter;

/**
 * The job's counters: the task counters the attempts last reported, summed over the successful
 * and running attempts, plus the job counters the driver derives from the scheduler.
 */
final class JobCounters {
  private final TaskScheduler scheduler;
  private final Map<AttemptKey, Counters> byAttempt = new HashMap<>();

  JobCounters(TaskScheduler scheduler) {
    this.scheduler = scheduler;
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
    total.incrCounter(JobCounter.MILLIS_MAPS, millis[0]);
    if (r.launched() > 0) {
      total.incrCounter(JobCounter.MILLIS_REDUCES, millis[1]);
    }
    return total;
  }
}
