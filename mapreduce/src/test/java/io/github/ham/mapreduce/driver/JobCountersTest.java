package io.github.ham.mapreduce.driver;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.apache.hadoop.mapred.Counters;
import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapreduce.FileSystemCounter;
import org.apache.hadoop.mapreduce.JobCounter;
import org.apache.hadoop.mapreduce.TaskCounter;
import org.junit.jupiter.api.Test;

import io.github.ham.mapreduce.common.AttemptKey;

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
}
