package io.github.ham.mapreduce.driver.report;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import org.apache.hadoop.mapred.Counters;
import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapreduce.FileSystemCounter;
import org.apache.hadoop.mapreduce.JobCounter;
import org.apache.hadoop.mapreduce.MRJobConfig;
import org.apache.hadoop.mapreduce.TaskCounter;
import org.junit.jupiter.api.Test;

import io.github.ham.mapreduce.common.ids.AttemptKey;
import io.github.ham.mapreduce.driver.schedule.SchedulingPolicy;
import io.github.ham.mapreduce.driver.schedule.TaskScheduler;
import io.github.ham.mapreduce.history.IndexedCounters;

class JobCountersTest {
  private static Counters report(long records, long userValue) {
    Counters c = new Counters();
    c.findCounter(TaskCounter.MAP_INPUT_RECORDS).setValue(records);
    c.findCounter(TaskCounter.SPILLED_RECORDS).setValue(0);
    c.findCounter("file", FileSystemCounter.BYTES_READ).setValue(10 * records);
    if (userValue >= 0) {
      Counters.Group g = c.getGroup("my.app.Words");
      g.setDisplayName("Words seen");
      g.addCounter("LONG", "Long words", userValue);
    }
    return c;
  }

  /** Each counter's group, group display name, name, display name and value, in order. */
  private static List<String> names(Counters c) {
    List<String> out = new ArrayList<>();
    for (Counters.Group g : c) {
      for (Counters.Counter counter : g) {
        out.add(String.join("|", g.getName(), g.getDisplayName(), counter.getName(),
            counter.getDisplayName(), String.valueOf(counter.getValue())));
      }
    }
    return out;
  }

  private static List<String> names(IndexedCounters c) {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < c.pairs().length; i += 2) {
      out.add(String.join("|", c.names().of((int) c.pairs()[i])) + "|" + c.pairs()[i + 1]);
    }
    return out;
  }

  @Test
  void reportsAreKeptSummedAndTakenOutWhenTheirAttemptFails() {
    TaskScheduler s = new TaskScheduler(3, 0, SchedulingPolicy.basic(4, 600_000, 30_000));
    JobCounters counters = new JobCounters(s, new JobConf(false));
    AttemptKey a = s.assign("n1/g0-p0/1", 0);
    AttemptKey b = s.assign("n1/g0-p1/2", 0);
    AttemptKey c = s.assign("n1/g0-p2/3", 0);
    counters.update(a, report(5, 1));
    counters.update(a, report(7, 2));  // replaces the last report
    counters.update(b, report(100, -1));
    counters.update(c, report(1, 4));
    s.succeeded(a, 10);
    s.failed(b, "boom", 10);

    assertEquals(report(7, 2), counters.ofAttempt(a));
    assertEquals("Long words", counters.ofAttempt(a).getGroup("my.app.Words")
        .getCounterForName("LONG").getDisplayName());
    assertEquals("Words seen", counters.ofAttempt(a).getGroup("my.app.Words").getDisplayName());
    assertEquals(new Counters(), counters.ofAttempt(new AttemptKey(a.task(), 9)));
    assertEquals(names(counters.ofAttempt(a)), names(counters.indexed(a)),
        "the history's form: the same counters, names and values, in Hadoop's order");
    assertEquals(List.of(), names(counters.indexed(new AttemptKey(a.task(), 9))));

    Counters total = counters.total();  // a (succeeded) and c (running); b failed
    assertEquals(8, total.findCounter(TaskCounter.MAP_INPUT_RECORDS).getValue());
    assertEquals(80, total.findCounter("file", FileSystemCounter.BYTES_READ).getValue());
    assertEquals(6, total.getGroup("my.app.Words").getCounterForName("LONG").getValue());
    assertEquals(3, total.findCounter(JobCounter.TOTAL_LAUNCHED_MAPS).getValue());
    assertEquals(1, total.findCounter(JobCounter.NUM_FAILED_MAPS).getValue());
    counters.update(c, report(3, 4));
    assertEquals(10, counters.total().findCounter(TaskCounter.MAP_INPUT_RECORDS).getValue());

    Counters succeeded = counters.succeededTasks(true);
    assertEquals(7, succeeded.findCounter(TaskCounter.MAP_INPUT_RECORDS).getValue());
    assertEquals(2, succeeded.getGroup("my.app.Words").getCounterForName("LONG").getValue());
  }

  private static Set<String> jobCounterNames(Counters c) {
    Set<String> out = new TreeSet<>();
    for (Counters.Counter counter : c.getGroup(JobCounter.class.getName())) {
      out.add(counter.getName());
    }
    return out;
  }

  /**
   * The job counters as TaskAttemptImpl and RMContainerAllocator add them: an attempt's time
   * when it ends (succeeded, failed or killed; not while it runs), weighted by its container's
   * memory, vcores and slots of yarn.scheduler.minimum-allocation-mb; every launched map
   * "other local"; a counter appears once something added to it.
   */
  @Test
  void jobCountersAreYarnsSetAndArithmetic() {
    TaskScheduler s = new TaskScheduler(4, 1, SchedulingPolicy.basic(4, 600_000, 30_000));
    JobConf conf = new JobConf(false);
    conf.setInt(MRJobConfig.MAP_MEMORY_MB, 1536);
    conf.setInt(MRJobConfig.MAP_CPU_VCORES, 2);
    conf.setInt(MRJobConfig.REDUCE_MEMORY_MB, 3072);
    conf.setInt("yarn.scheduler.minimum-allocation-mb", 512);
    JobCounters counters = new JobCounters(s, conf);
    assertEquals(Set.of(), jobCounterNames(counters.total()));

    AttemptKey a = s.assign("n1/g0-p0/1", 0);
    AttemptKey b = s.assign("n1/g0-p1/2", 0);
    AttemptKey c = s.assign("n2/g0-p0/3", 0);
    AttemptKey d = s.assign("n2/g0-p1/4", 0);
    Counters running = counters.total();
    assertEquals(Set.of("TOTAL_LAUNCHED_MAPS", "OTHER_LOCAL_MAPS"), jobCounterNames(running));
    s.succeeded(a, 10);
    s.failed(b, "boom", 25);
    s.killed(c, "lost", 5);  // d still runs: its time is not counted yet
    AttemptKey b1 = s.assign("n1/g0-p1/2", 30);  // the failed and the killed task again
    AttemptKey c1 = s.assign("n2/g0-p0/3", 30);
    Counters total = counters.total();
    assertEquals(Set.of("TOTAL_LAUNCHED_MAPS", "OTHER_LOCAL_MAPS", "NUM_FAILED_MAPS",
        "NUM_KILLED_MAPS", "MILLIS_MAPS", "MB_MILLIS_MAPS", "VCORES_MILLIS_MAPS",
        "SLOTS_MILLIS_MAPS"), jobCounterNames(total));
    assertEquals(6, total.findCounter(JobCounter.TOTAL_LAUNCHED_MAPS).getValue());
    assertEquals(6, total.findCounter(JobCounter.OTHER_LOCAL_MAPS).getValue());
    assertEquals(1, total.findCounter(JobCounter.NUM_FAILED_MAPS).getValue());
    assertEquals(1, total.findCounter(JobCounter.NUM_KILLED_MAPS).getValue());
    assertEquals(40, total.findCounter(JobCounter.MILLIS_MAPS).getValue());
    assertEquals(40 * 1536, total.findCounter(JobCounter.MB_MILLIS_MAPS).getValue());
    assertEquals(40 * 2, total.findCounter(JobCounter.VCORES_MILLIS_MAPS).getValue());
    assertEquals(40 * 3, total.findCounter(JobCounter.SLOTS_MILLIS_MAPS).getValue());

    s.succeeded(d, 50);
    s.succeeded(b1, 60);
    s.succeeded(c1, 40);
    AttemptKey r = s.assign("n3/g0-p0/5", 60);
    s.succeeded(r, 160);
    total = counters.total();
    assertEquals(40 + 50 + 30 + 10, total.findCounter(JobCounter.MILLIS_MAPS).getValue());
    assertEquals(1, total.findCounter(JobCounter.TOTAL_LAUNCHED_REDUCES).getValue());
    assertEquals(100, total.findCounter(JobCounter.MILLIS_REDUCES).getValue());
    assertEquals(100 * 3072, total.findCounter(JobCounter.MB_MILLIS_REDUCES).getValue());
    assertEquals(100, total.findCounter(JobCounter.VCORES_MILLIS_REDUCES).getValue());
    assertEquals(100 * 6, total.findCounter(JobCounter.SLOTS_MILLIS_REDUCES).getValue());
  }

  /**
   * Reports are held and converted when read (the last of an attempt's only): with more
   * attempts reporting than are held, replaced and failed ones, the sums are as if each report
   * had been converted as it came.
   */
  @Test
  void manyHeldReportsSumAsIfEachWasConvertedAtOnce() {
    int n = 3 * JobCounters.MAX_UNSETTLED + 7;
    TaskScheduler s = new TaskScheduler(n, 0, SchedulingPolicy.basic(4, 600_000, 30_000));
    JobCounters counters = new JobCounters(s, new JobConf(false));
    List<AttemptKey> keys = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      keys.add(s.assign("n1/g0-p" + i + "/" + i, 0));
    }
    long expected = 0;
    for (int i = 0; i < n; i++) {
      counters.update(keys.get(i), report(1000, 1));  // commitPending's, replaced
      if (i % 500 == 0) {
        counters.total();  // a read between the two reports: the first is entered, then taken out
      }
      counters.update(keys.get(i), report(i, 1));
      if (i % 3 == 0) {
        s.failed(keys.get(i), "boom", 1);
      } else {
        s.succeeded(keys.get(i), 1);
        expected += i;
      }
    }
    Counters total = counters.total();
    assertEquals(expected, total.findCounter(TaskCounter.MAP_INPUT_RECORDS).getValue());
    assertEquals(n - (n + 2) / 3,
        total.getGroup("my.app.Words").getCounterForName("LONG").getValue());
    assertEquals(expected, counters.succeededTasks(true)
        .findCounter(TaskCounter.MAP_INPUT_RECORDS).getValue());
    assertEquals(report(5, 1), counters.ofAttempt(keys.get(5)));
    assertEquals(names(counters.ofAttempt(keys.get(7))), names(counters.indexed(keys.get(7))));
  }
}
