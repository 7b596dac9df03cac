package io.github.ham.mapreduce.driver.report;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.github.ham.mapreduce.common.ids.AttemptKey;
import io.github.ham.mapreduce.common.ids.AttemptState;
import io.github.ham.mapreduce.driver.schedule.AttemptInfo;
import io.github.ham.mapreduce.driver.schedule.TaskScheduler;
import io.github.ham.mapreduce.history.IndexedCounters;

import org.apache.hadoop.mapred.Counters;
import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapreduce.FileSystemCounter;
import org.apache.hadoop.mapreduce.JobCounter;
import org.apache.hadoop.mapreduce.MRJobConfig;
import org.apache.hadoop.mapreduce.TaskType;
import org.apache.hadoop.mapreduce.counters.CounterGroupFactory;

/**
 * The job's counters: the task counters the attempts last reported, summed over the successful
 * and running attempts, plus the job counters the driver derives from the scheduler, the same
 * set and arithmetic as YARN's (TaskAttemptImpl, RMContainerAllocator): launched, failed and
 * killed attempts, and the time of each ended attempt (added when it ends, not while it runs)
 * weighted by its container's memory ("slots" of yarn.scheduler.minimum-allocation-mb),
 * megabytes and vcores. A runner is the task's container: memory.mb and cpu.vcores as asked
 * (YARN's scheduler may round memory up to its allocation step, and its default
 * DefaultResourceCalculator gives every container 1 vcore). On a shared file system no map is
 * data-local: every launched map counts as "other local", as YARN counts off-switch maps.
 *
 * <p>Sized for 100,000 attempts: each attempt's last report is kept as (counter, value) pairs
 * over the job's table of counter names (a few hundred bytes, where Hadoop's Counters object
 * takes a few kilobytes), and made a Counters again when asked for. The sum is kept as reports
 * come (each report replaces the attempt's last one; a report is held as it came until the
 * counters are read or the next report replaces it), and an attempt that ends other than
 * SUCCEEDED is taken out of it once: {@link #total} costs the same with 100 or 100,000
 * attempts (the status record and the clients read it often), and sums by counter name, not
 * through Hadoop's display names (a resource-bundle lookup per counter). Thread-safe.
 */
public final class JobCounters {
  private final TaskScheduler scheduler;
  /** The counters' names, in the order first reported: group and name, by index. */
  private final List<String[]> names = new ArrayList<>();
  private final Map<String, Map<String, Integer>> indexes = new HashMap<>();
  /** Display names a user group or counter was reported with (framework ones are Hadoop's). */
  private final Map<String, String> groupDisplayNames = new HashMap<>();
  private final Map<Integer, String> displayNames = new HashMap<>();
  /** Each attempt's last report: (counter index, value) pairs. */
  private final Map<AttemptKey, long[]> byAttempt = new HashMap<>();
  /**
   * Reports not yet made pairs ({@link #settle}): a map's commitPending and its last
   * statusUpdate come milliseconds apart, each with all of its counters, and the second
   * replaces the first before anyone reads either, so only the last is converted. At most
   * {@link #MAX_UNSETTLED} (a few KB each) are held.
   */
  private final Map<AttemptKey, Counters> unsettled = new HashMap<>();
  static final int MAX_UNSETTLED = 1024;
  /** The sum over the attempts not ended unsuccessfully, by counter index. */
  private long[] sum = new long[32];
  /** How many of those attempts reported each counter (a counter is in the sum while > 0). */
  private int[] reporting = new int[32];
  /** Attempts taken out of the sum (ended FAILED or KILLED): they stay out. */
  private final Set<AttemptKey> excluded = new HashSet<>();
  /** How many of the scheduler's unsuccessful ends {@link #excluded} has seen. */
  private int unsuccessfulSeen;
  /** Per task type (map, reduce): memory.mb, vcores, and slots of the minimum allocation. */
  private final long[] memoryMb = new long[2];
  private final long[] vcores = new long[2];
  private final long[] slots = new long[2];

  public JobCounters(TaskScheduler scheduler, JobConf conf) {
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
  public synchronized void update(AttemptKey key, Counters counters) {
    if (unsettled.size() >= MAX_UNSETTLED && !unsettled.containsKey(key)) {
      settle();
    }
    unsettled.put(key, counters);
  }

  /** Every held report made pairs and entered in the sum, as if each came now. */
  private void settle() {
    if (unsettled.isEmpty()) {
      return;
    }
    for (Map.Entry<AttemptKey, Counters> e : unsettled.entrySet()) {
      enter(e.getKey(), e.getValue());
    }
    unsettled.clear();
  }

  /** One attempt's held report, if any, made pairs and entered in the sum. */
  private void settle(AttemptKey key) {
    Counters counters = unsettled.remove(key);
    if (counters != null) {
      enter(key, counters);
    }
  }

  private void enter(AttemptKey key, Counters counters) {
    long[] values = pairs(counters);
    long[] old = byAttempt.put(key, values);
    if (!excluded.contains(key)) {
      add(values, 1);
      if (old != null) {
        add(old, -1);
      }
    }
  }

  /** The counters an attempt last reported (empty if none). */
  public synchronized Counters ofAttempt(AttemptKey key) {
    settle(key);
    Counters out = new Counters();
    long[] values = byAttempt.get(key);
    if (values != null) {
      for (int i = 0; i < values.length; i += 2) {
        counter(out, (int) values[i]).setValue(values[i + 1]);
      }
    }
    return out;
  }

  /** The counters an attempt last reported, as the history converts them (none if none). */
  synchronized IndexedCounters indexed(AttemptKey key) {
    settle(key);
    long[] values = byAttempt.get(key);  // replaced, never changed, by a later report
    return new IndexedCounters(values == null ? new long[0] : values, this::namesOf);
  }

  /** Counter {@code index}'s names, as {@link #ofAttempt} names it. */
  private synchronized String[] namesOf(int index) {
    String group = names.get(index)[0];
    Counters one = new Counters();
    Counters.Counter c = counter(one, index);
    return new String[] {group, one.getGroup(group).getDisplayName(), c.getName(),
        c.getDisplayName()};
  }

  /** The task counters of the successful attempts of the maps (or reduces). */
  synchronized Counters succeededTasks(boolean isMap) {
    settle();
    long[] total = new long[names.size()];
    boolean[] present = new boolean[names.size()];
    for (AttemptInfo.Snapshot a : scheduler.attempts()) {
      long[] values = byAttempt.get(a.key());
      if (values != null && a.key().isMap() == isMap && a.state() == AttemptState.SUCCEEDED) {
        for (int i = 0; i < values.length; i += 2) {
          total[(int) values[i]] += values[i + 1];
          present[(int) values[i]] = true;
        }
      }
    }
    Counters out = new Counters();
    for (int i = 0; i < total.length; i++) {
      if (present[i]) {
        counter(out, i).increment(total[i]);
      }
    }
    return out;
  }

  public synchronized Counters total() {
    settle();
    for (AttemptKey key : scheduler.unsuccessfulSince(unsuccessfulSeen)) {
      unsuccessfulSeen++;
      long[] values = byAttempt.get(key);
      if (excluded.add(key) && values != null) {
        add(values, -1);
      }
    }
    Counters total = new Counters();
    for (int i = 0; i < names.size(); i++) {
      if (reporting[i] > 0) {
        counter(total, i).increment(sum[i]);
      }
    }
    long[] ended = scheduler.endedAttemptMillis();
    for (int i = 0; i < 2; i++) {
      boolean isMap = i == 0;
      TaskScheduler.Counts n = scheduler.counts(isMap);
      // YARN adds to a counter as things happen: one it never added to is absent.
      if (n.launched() > 0) {
        total.incrCounter(isMap ? JobCounter.TOTAL_LAUNCHED_MAPS
            : JobCounter.TOTAL_LAUNCHED_REDUCES, n.launched());
        if (isMap) {
          total.incrCounter(JobCounter.OTHER_LOCAL_MAPS, n.launched());
        }
      }
      if (n.failedAttempts() > 0) {
        total.incrCounter(isMap ? JobCounter.NUM_FAILED_MAPS : JobCounter.NUM_FAILED_REDUCES,
            n.failedAttempts());
      }
      if (n.killedAttempts() > 0) {
        total.incrCounter(isMap ? JobCounter.NUM_KILLED_MAPS : JobCounter.NUM_KILLED_REDUCES,
            n.killedAttempts());
      }
      if (ended[2 + i] > 0) {
        long millis = ended[i];
        total.incrCounter(isMap ? JobCounter.SLOTS_MILLIS_MAPS : JobCounter.SLOTS_MILLIS_REDUCES,
            millis * slots[i]);
        total.incrCounter(isMap ? JobCounter.MILLIS_MAPS : JobCounter.MILLIS_REDUCES, millis);
        total.incrCounter(isMap ? JobCounter.VCORES_MILLIS_MAPS
            : JobCounter.VCORES_MILLIS_REDUCES, millis * vcores[i]);
        total.incrCounter(isMap ? JobCounter.MB_MILLIS_MAPS : JobCounter.MB_MILLIS_REDUCES,
            millis * memoryMb[i]);
      }
    }
    return total;
  }

  /** Adds ({@code sign} 1) or takes out (-1) an attempt's report. */
  private void add(long[] values, int sign) {
    for (int i = 0; i < values.length; i += 2) {
      int index = (int) values[i];
      sum[index] += sign * values[i + 1];
      reporting[index] += sign;
    }
  }

  /** A report as (counter index, value) pairs, the counters' names entered in the table. */
  private long[] pairs(Counters counters) {
    int n = 0;
    for (Counters.Group g : counters) {
      n += g.size();
    }
    long[] out = new long[2 * n];
    int at = 0;
    for (Counters.Group g : counters) {
      String group = g.getName();
      boolean framework = CounterGroupFactory.isFrameworkGroup(group)
          || group.equals(FileSystemCounter.class.getName());
      Map<String, Integer> inGroup = indexes.get(group);
      if (inGroup == null) {
        inGroup = new HashMap<>();
        indexes.put(group, inGroup);
        if (!framework) {
          groupDisplayNames.put(group, g.getDisplayName());
        }
      }
      for (Counters.Counter c : g) {
        Integer index = inGroup.get(c.getName());
        if (index == null) {
          index = names.size();
          inGroup.put(c.getName(), index);
          names.add(new String[] {group, c.getName()});
          if (!framework) {
            displayNames.put(index, c.getDisplayName());
          }
          if (index >= sum.length) {
            sum = java.util.Arrays.copyOf(sum, sum.length * 2);
            reporting = java.util.Arrays.copyOf(reporting, reporting.length * 2);
          }
        }
        if (at + 1 >= out.length) {
          out = java.util.Arrays.copyOf(out, out.length + 8);  // size() undercounted
        }
        out[at++] = index;
        out[at++] = c.getValue();
      }
    }
    return at == out.length ? out : java.util.Arrays.copyOf(out, at);
  }

  /** Counter {@code index} of {@code counters}, with the display names it was reported with. */
  private Counters.Counter counter(Counters counters, int index) {
    String[] name = names.get(index);
    Counters.Group group = counters.getGroup(name[0]);
    String groupDisplay = groupDisplayNames.get(name[0]);
    if (groupDisplay != null && !groupDisplay.equals(group.getDisplayName())) {
      group.setDisplayName(groupDisplay);
    }
    String display = displayNames.get(index);
    if (display == null) {
      return group.getCounterForName(name[1]);
    }
    Counters.Counter c = group.getCounterForName(name[1]);
    c.setDisplayName(display);
    return c;
  }
}
