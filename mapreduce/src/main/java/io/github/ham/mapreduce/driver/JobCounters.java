package io.github.ham.mapreduce.driver;

import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

import io.github.ham.mapreduce.common.AttemptKey;
import io.github.ham.mapreduce.common.AttemptState;

import org.apache.hadoop.mapred.Counters;
import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapreduce.JobCounter;
import org.apache.hadoop.mapreduce.MRJobConfig;
import org.apache.hadoop.mapreduce.TaskType;
import org.apache.hadoop.mapreduce.counters.CounterGroupFactory;

/**
 * The job's counters: the task counters the attempts last reported, summed over the successful
 * and running attempts, plus the job counters the driver derives from the scheduler, the same
 * set and arithmetic as YARN's (TaskAttemptImpl): launched, failed and killed attempts, their
 * time, and that time weighted by their memory ("slots" of
 * yarn.scheduler.minimum-allocation-mb), megabytes and vcores. On a shared file system no map
 * is data-local: every launched map counts as "other local", as YARN counts off-switch maps.
 *
 * <p>The sum is kept as reports come (each report replaces the attempt's last one), and an
 * attempt that ends other than SUCCEEDED is taken out of it once: {@link #total} costs the same
 * with 100 or 100,000 attempts (the status record and the clients read it often), and sums by
 * counter name, not through Hadoop's display names (a resource-bundle lookup per counter).
 * Thread-safe.
 */
final class JobCounters {
  private final TaskScheduler scheduler;
  private final Map<AttemptKey, Counters> byAttempt = new HashMap<>();
  /** The sum of the counters of the attempts not ended unsuccessfully: group -> counters. */
  private final Map<String, Group> sum = new LinkedHashMap<>();
  /** Attempts taken out of the sum (ended FAILED or KILLED): they stay out. */
  private final Set<AttemptKey> excluded = new HashSet<>();
  /** How many of the scheduler's unsuccessful ends {@link #excluded} has seen. */
  private int unsuccessfulSeen;
  /** Per task type (map, reduce): memory.mb, vcores, and slots of the minimum allocation. */
  private final long[] memoryMb = new long[2];
  private final long[] vcores = new long[2];
  private final long[] slots = new long[2];

  /** One group of the sum: its display name (user groups only) and counters by name. */
  private static final class Group {
    final String displayName;
    final Map<String, long[]> counters = new LinkedHashMap<>();
    final Map<String, String> displayNames = new HashMap<>();

    Group(String displayName) {
      this.displayName = displayName;
    }
  }

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
    Counters old = byAttempt.put(key, counters);
    if (!excluded.contains(key)) {
      add(counters, 1);
      if (old != null) {
        add(old, -1);
      }
    }
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
    for (AttemptKey key : scheduler.unsuccessfulSince(unsuccessfulSeen)) {
      unsuccessfulSeen++;
      Counters c = byAttempt.get(key);
      if (excluded.add(key) && c != null) {
        add(c, -1);
      }
    }
    Counters total = new Counters();
    for (Map.Entry<String, Group> g : sum.entrySet()) {
      Counters.Group group = total.getGroup(g.getKey());
      if (g.getValue().displayName != null) {
        group.setDisplayName(g.getValue().displayName);
      }
      for (Map.Entry<String, long[]> c : g.getValue().counters.entrySet()) {
        String display = g.getValue().displayNames.get(c.getKey());
        Counters.Counter counter = display == null ? group.getCounterForName(c.getKey())
            : group.addCounter(c.getKey(), display, 0);
        counter.increment(c.getValue()[0]);
      }
    }
    long[] millis = scheduler.attemptMillis(System.currentTimeMillis());
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

  /**
   * Adds ({@code sign} 1) or takes out (-1) an attempt's counters. Framework groups (task,
   * file system, job counters...) get their display names from Hadoop's resource bundles when
   * printed; a user group keeps the display names its attempts gave.
   */
  private void add(Counters counters, int sign) {
    for (Counters.Group g : counters) {
      String name = g.getName();
      boolean framework = CounterGroupFactory.isFrameworkGroup(name)
          || name.equals(org.apache.hadoop.mapreduce.FileSystemCounter.class.getName());
      Group group = sum.get(name);
      if (group == null) {
        group = new Group(framework ? null : g.getDisplayName());
        sum.put(name, group);
      }
      for (Counters.Counter c : g) {
        long[] v = group.counters.get(c.getName());
        if (v == null) {
          v = new long[1];
          group.counters.put(c.getName(), v);
          if (!framework) {
            group.displayNames.put(c.getName(), c.getDisplayName());
          }
        }
        v[0] += sign * c.getValue();
      }
    }
  }
}
