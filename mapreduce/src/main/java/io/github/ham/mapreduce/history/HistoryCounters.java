package io.github.ham.mapreduce.history;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DatumWriter;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.specific.SpecificDatumWriter;
import org.apache.avro.util.Utf8;
import org.apache.hadoop.mapreduce.Counter;
import org.apache.hadoop.mapreduce.counters.AbstractCounters;
import org.apache.hadoop.mapreduce.counters.CounterGroupBase;
import org.apache.hadoop.mapreduce.jobhistory.JhCounter;
import org.apache.hadoop.mapreduce.jobhistory.JhCounterGroup;
import org.apache.hadoop.mapreduce.jobhistory.JhCounters;

/**
 * Counters in the history events' form ({@link JhCounters}), the same as Hadoop's
 * EventWriter.toAvro makes them, with each group's and counter's display name looked up once
 * per job. Hadoop resolves a framework counter's display name from its resource bundle on
 * every call, and an attempt's end asks for ~25 of them twice (its event and its task's): that
 * lookup was the largest cost of the driver's history thread (bench/README.md, case scale).
 * An attempt's counters come as the driver keeps them ({@link IndexedCounters}), with the
 * names looked up once per counter of the job's table; the job's totals and a recovered
 * task's come as Hadoop's Counters.
 */
final class HistoryCounters {
  private static final String NAME = "COUNTERS";  // EventWriter.toAvro's
  private final Map<String, Utf8> groupNames = new HashMap<>();
  /** Per group: the counters' names and display names. */
  private final Map<String, Map<String, Utf8[]>> counterNames = new HashMap<>();
  private final DatumWriter<JhCounters> writer = new SpecificDatumWriter<>(JhCounters.class);
  private final ByteArrayOutputStream bytes = new ByteArrayOutputStream(4096);
  private BinaryEncoder encoder;
  /** By counter index of the job's table: its names, as the events carry them. */
  private final List<Named> indexed = new ArrayList<>();
  private Supplier<IndexedCounters> lastSource;
  private Encoded lastCounters;

  /**
   * Counters with their Avro bytes, made once: an attempt's counters go in its event and in
   * its task's, and {@link JhistWriter} writes these bytes for both instead of encoding the
   * ~25 counters' names again (encoding counters was most of the history thread's Avro work).
   */
  static final class Encoded extends JhCounters {
    final byte[] bytes;

    private Encoded(JhCounters counters, byte[] bytes) {
      super(counters.getName(), counters.getGroups());
      this.bytes = bytes;
    }
  }

  /**
   * {@code source}'s counters in the events' form, converted and encoded once for an
   * attempt's event and its task's: they follow each other in the history's one thread with
   * the same source.
   */
  JhCounters of(Supplier<IndexedCounters> source) {
    if (source != lastSource) {
      lastSource = source;
      lastCounters = encoded(toAvro(source.get()));
    }
    return lastCounters;
  }

  /** {@code counters} with the bytes Avro's binary encoding gives them. */
  Encoded encoded(JhCounters counters) {
    bytes.reset();
    encoder = EncoderFactory.get().binaryEncoder(bytes, encoder);
    try {
      writer.write(counters, encoder);
      encoder.flush();
    } catch (IOException e) {
      throw new UncheckedIOException(e);  // a ByteArrayOutputStream does not fail
    }
    return new Encoded(counters, bytes.toByteArray());
  }

  /**
   * {@code counters} as a history event carries them: the same as {@link #toAvro(AbstractCounters)}
   * of the Counters they came from, as the pairs keep that Counters' order (each group's
   * counters together).
   */
  JhCounters toAvro(IndexedCounters counters) {
    JhCounters result = empty();
    long[] pairs = counters.pairs();
    String current = null;
    List<JhCounter> counts = null;
    for (int i = 0; i < pairs.length; i += 2) {
      Named n = named(counters.names(), (int) pairs[i]);
      if (!n.group().equals(current)) {
        current = n.group();
        counts = addGroup(result, n.groupName(), n.groupDisplay());
      }
      addCount(counts, n.name(), n.display(), pairs[i + 1]);
    }
    return result;
  }

  /** A counter's names: its group's (as a String to compare, and as events carry it), its own. */
  private record Named(String group, Utf8 groupName, Utf8 groupDisplay, Utf8 name,
      Utf8 display) {
  }

  /** Counter {@code index}'s names, asked for once per job. */
  private Named named(IndexedCounters.Names table, int index) {
    while (indexed.size() <= index) {
      indexed.add(null);
    }
    Named n = indexed.get(index);
    if (n == null) {
      String[] s = table.of(index);
      n = new Named(s[0], new Utf8(s[0]), new Utf8(s[1]), new Utf8(s[2]), new Utf8(s[3]));
      indexed.set(index, n);
    }
    return n;
  }

  /** No counters, as EventWriter.toAvro names them. */
  private static JhCounters empty() {
    JhCounters result = new JhCounters();
    result.setName(new Utf8(NAME));
    result.setGroups(new ArrayList<>(0));
    return result;
  }

  /** A new group at the end of {@code result}; returns its list of counters. */
  private static List<JhCounter> addGroup(JhCounters result, Utf8 name, Utf8 display) {
    JhCounterGroup g = new JhCounterGroup();
    g.setName(name);
    g.setDisplayName(display);
    g.setCounts(new ArrayList<>());
    result.getGroups().add(g);
    return g.getCounts();
  }

  private static void addCount(List<JhCounter> counts, Utf8 name, Utf8 display, long value) {
    JhCounter c = new JhCounter();
    c.setName(name);
    c.setDisplayName(display);
    c.setValue(value);
    counts.add(c);
  }

  /** {@code counters} (null: none) as a history event carries them. */
  JhCounters toAvro(AbstractCounters<? extends Counter, ? extends CounterGroupBase<?>> counters) {
    JhCounters result = empty();
    if (counters == null) {
      return result;
    }
    for (CounterGroupBase<?> group : counters) {
      List<JhCounter> counts = addGroup(result, new Utf8(group.getName()),
          groupNames.computeIfAbsent(group.getName(), k -> new Utf8(group.getDisplayName())));
      Map<String, Utf8[]> names = counterNames.computeIfAbsent(group.getName(),
          k -> new HashMap<>());
      for (Counter counter : group) {
        Utf8[] n = names.computeIfAbsent(counter.getName(),
            k -> new Utf8[] {new Utf8(k), new Utf8(counter.getDisplayName())});
        addCount(counts, n[0], n[1], counter.getValue());
      }
    }
    return result;
  }
}
