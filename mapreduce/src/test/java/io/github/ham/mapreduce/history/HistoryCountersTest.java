package io.github.ham.mapreduce.history;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.mapred.Counters;
import org.apache.hadoop.mapreduce.FileSystemCounter;
import org.apache.hadoop.mapreduce.JobCounter;
import org.apache.hadoop.mapreduce.TaskAttemptID;
import org.apache.hadoop.mapreduce.TaskCounter;
import org.apache.hadoop.mapreduce.TaskType;
import org.apache.hadoop.mapreduce.jobhistory.JhCounter;
import org.apache.hadoop.mapreduce.jobhistory.JhCounterGroup;
import org.apache.hadoop.mapreduce.jobhistory.JhCounters;
import org.apache.hadoop.mapreduce.jobhistory.TaskFinished;
import org.apache.hadoop.mapreduce.jobhistory.TaskFinishedEvent;
import org.junit.jupiter.api.Test;

class HistoryCountersTest {
  private static final TaskAttemptID ATTEMPT =
      TaskAttemptID.forName("attempt_1700000000000_0001_m_000003_0");

  /** Counters of every kind: framework (bundle display names), file system, job, user. */
  private static Counters sample(long base) {
    Counters c = new Counters();
    c.findCounter(TaskCounter.MAP_INPUT_RECORDS).increment(base + 1);
    c.findCounter(TaskCounter.SPILLED_RECORDS).increment(base + 2);
    c.findCounter(JobCounter.MB_MILLIS_MAPS).increment(base + 3);
    c.findCounter("file", FileSystemCounter.BYTES_READ).increment(base + 4);
    c.findCounter("lustre", FileSystemCounter.BYTES_WRITTEN).increment(base + 5);
    c.findCounter("My Group", "my counter").increment(base + 6);
    return c;
  }

  /** What Hadoop's own EventWriter.toAvro makes of {@code c}, through an event. */
  private static JhCounters hadoops(Counters c) {
    TaskFinishedEvent e = new TaskFinishedEvent(ATTEMPT.getTaskID(), ATTEMPT, 5, TaskType.MAP,
        "SUCCEEDED", new org.apache.hadoop.mapreduce.Counters(c), 1);
    return ((TaskFinished) e.getDatum()).getCounters();
  }

  @Test
  void sameAsHadoopsConversionWhenNamesComeFromTheCache() {
    HistoryCounters avro = new HistoryCounters();
    assertEquals(hadoops(sample(0)).toString(), avro.toAvro(sample(0)).toString());
    // Second time the display names are the cached ones; the values are this report's.
    JhCounters again = avro.toAvro(sample(100));
    assertEquals(hadoops(sample(100)).toString(), again.toString());
    assertNotEquals(hadoops(sample(0)).toString(), again.toString());
  }

  @Test
  void encodedCountersAreWrittenAsAvroWritesThem() throws Exception {
    HistoryCounters avro = new HistoryCounters();
    JhCounters plain = hadoops(sample(7));
    JhCounters encoded = avro.encoded(avro.toAvro(sample(7)));
    assertArrayEquals(jhist(plain), jhist(encoded));
    assertFalse(Arrays.equals(jhist(plain), jhist(avro.encoded(avro.toAvro(sample(8))))),
        "other values, other bytes");
  }

  /** A .jhist of one TaskFinished event carrying {@code counters}, as JhistWriter writes it. */
  private static byte[] jhist(JhCounters counters) throws Exception {
    TaskFinishedEvent e = new TaskFinishedEvent(ATTEMPT.getTaskID(), ATTEMPT, 5, TaskType.MAP,
        "SUCCEEDED", null, 1);
    TaskFinished datum = (TaskFinished) e.getDatum();
    datum.setCounters(counters);
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (JhistWriter w = new JhistWriter(new FSDataOutputStream(bytes, null))) {
      w.write(e.getEventType(), datum);
      w.write(e.getEventType(), datum);
    }
    return bytes.toByteArray();
  }

  /**
   * {@code c} as the driver keeps an attempt's counters: pairs in {@code c}'s order over a
   * table of names (JobCountersTest checks that the driver's table gives these).
   */
  static IndexedCounters indexed(Counters c) {
    java.util.List<String[]> table = new java.util.ArrayList<>();
    java.util.List<Long> pairs = new java.util.ArrayList<>();
    for (Counters.Group g : c) {
      for (Counters.Counter counter : g) {
        pairs.add((long) table.size());
        pairs.add(counter.getValue());
        table.add(new String[] {g.getName(), g.getDisplayName(), counter.getName(),
            counter.getDisplayName()});
      }
    }
    return new IndexedCounters(pairs.stream().mapToLong(Long::longValue).toArray(),
        table::get);
  }

  @Test
  void theDriversPairsAreWrittenAsHadoopWritesTheirCounters() throws Exception {
    HistoryCounters avro = new HistoryCounters();
    assertArrayEquals(jhist(hadoops(sample(0))), jhist(avro.encode(indexed(sample(0)))));
    // Names from the cache, this report's values.
    assertArrayEquals(jhist(hadoops(sample(100))), jhist(avro.encode(indexed(sample(100)))));
    assertFalse(Arrays.equals(jhist(hadoops(sample(0))), jhist(avro.encode(indexed(sample(100))))),
        "other values, other bytes");
    assertArrayEquals(jhist(hadoops(new Counters())),
        jhist(avro.encode(new IndexedCounters(new long[0], i -> null))));
  }

  @Test
  void aGroupThatComesBackAfterAnotherIsWrittenWhereItComes() throws Exception {
    IndexedCounters in = indexed(sample(3));
    long[] p = in.pairs();  // the first two of one group (file systems), then another
    assertEquals(in.names().of((int) p[0])[0], in.names().of((int) p[2])[0]);
    assertNotEquals(in.names().of((int) p[0])[0], in.names().of((int) p[4])[0]);
    long[] split = {p[0], p[1], p[4], p[5], p[2], p[3]};  // the group, another, the group again
    IndexedCounters moved = new IndexedCounters(split, in.names());
    HistoryCounters avro = new HistoryCounters();
    JhCounters expected = byHand(moved);
    assertEquals(3, expected.getGroups().size());
    assertArrayEquals(jhist(avro.encoded(expected)), jhist(avro.encode(moved)));
  }

  /** {@code c} as Avro records: a new group wherever the pairs' group changes. */
  private static JhCounters byHand(IndexedCounters c) {
    JhCounters out = new HistoryCounters().toAvro((Counters) null);
    long[] p = c.pairs();
    for (int i = 0; i < p.length; i += 2) {
      String[] n = c.names().of((int) p[i]);
      List<JhCounterGroup> groups = out.getGroups();
      JhCounterGroup last = groups.isEmpty() ? null : groups.get(groups.size() - 1);
      if (last == null || !last.getName().toString().equals(n[0])) {
        last = new JhCounterGroup(n[0], n[1], new ArrayList<>());
        groups.add(last);
      }
      last.getCounts().add(new JhCounter(n[2], n[3], p[i + 1]));
    }
    return out;
  }

  @Test
  void noCountersIsAnEmptyList() {
    JhCounters none = new HistoryCounters().toAvro((Counters) null);
    assertEquals("COUNTERS", none.getName().toString());
    assertEquals(0, none.getGroups().size());
  }
}
