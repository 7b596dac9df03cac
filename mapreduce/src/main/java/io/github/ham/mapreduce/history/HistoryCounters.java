package io.github.ham.mapreduce.history;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
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
  private static final Utf8 NAME_UTF8 = new Utf8(NAME);
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
   * Counters as their Avro bytes, made once: an attempt's counters go in its event and in its
   * task's, and {@link JhistWriter} writes these bytes for both. Only JhistWriter reads it: as
   * a record its groups are empty, the counters being in {@link #bytes} alone.
   */
  static final class Encoded extends JhCounters {
    final byte[] bytes;

    private Encoded(byte[] bytes) {
      super(NAME_UTF8, List.of());
      this.bytes = bytes;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Encoded e && Arrays.equals(bytes, e.bytes);
    }

    @Override
    public int hashCode() {
      return Arrays.hashCode(bytes);
    }

    @Override
    public String toString() {
      return "counters encoded in " + bytes.length + " bytes";
    }
  }

  /**
   * {@code source}'s counters in the events' form, encoded once for an attempt's event and its
   * task's: they follow each other in the history's one thread with the same source.
   */
  JhCounters of(Supplier<IndexedCounters> source) {
    if (source != lastSource) {
      lastSource = source;
      lastCounters = encode(source.get());
    }
    return lastCounters;
  }

  /** {@code counters} with the bytes Avro's binary encoding gives them. */
  Encoded encoded(JhCounters counters) {
    BinaryEncoder e = start();
    try {
      writer.write(counters, e);
    } catch (IOException ex) {
      throw new UncheckedIOException(ex);  // a ByteArrayOutputStream does not fail
    }
    return finish(e);
  }

  /**
   * The driver's pairs with the bytes {@link #encoded} gives the same counters in their
   * {@link JhCounters} form (the record's name, then its groups, each with its name, display
   * name and counters, each counter with its name, display name and value; a group's counters
   * follow each other in the pairs' order), written straight from the pairs with the names'
   * bytes made once per job: no record per counter and no walk of the schema by Avro's
   * generic writer, which were most of the history thread's work for an attempt's end
   * (bench/README.md, "The history's share").
   */
  Encoded encode(IndexedCounters counters) {
    long[] pairs = counters.pairs();
    Named[] named = new Named[pairs.length / 2];
    int groups = 0;
    for (int i = 0; i < named.length; i++) {
      named[i] = named(counters.names(), (int) pairs[2 * i]);
      if (i == 0 || !named[i].group().equals(named[i - 1].group())) {
        groups++;
      }
    }
    BinaryEncoder e = start();
    try {
      e.writeString(NAME_UTF8);
      e.writeArrayStart();
      e.setItemCount(groups);
      for (int i = 0; i < named.length; ) {
        int end = i + 1;
        while (end < named.length && named[end].group().equals(named[i].group())) {
          end++;
        }
        e.startItem();
        e.writeString(named[i].groupName());
        e.writeString(named[i].groupDisplay());
        e.writeArrayStart();
        e.setItemCount(end - i);
        for (; i < end; i++) {
          e.startItem();
          e.writeString(named[i].name());
          e.writeString(named[i].display());
          e.writeLong(pairs[2 * i + 1]);
        }
        e.writeArrayEnd();
      }
      e.writeArrayEnd();
    } catch (IOException ex) {
      throw new UncheckedIOException(ex);  // a ByteArrayOutputStream does not fail
    }
    return finish(e);
  }

  private BinaryEncoder start() {
    bytes.reset();
    encoder = EncoderFactory.get().binaryEncoder(bytes, encoder);
    return encoder;
  }

  private Encoded finish(BinaryEncoder e) {
    try {
      e.flush();
    } catch (IOException ex) {
      throw new UncheckedIOException(ex);  // a ByteArrayOutputStream does not fail
    }
    return new Encoded(bytes.toByteArray());
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
    result.setName(NAME_UTF8);
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
