package io.github.ham.mapreduce.history;

/**
 * An attempt's counters as the driver keeps them: (counter index, value) pairs in the order
 * Hadoop's Counters iterates them (the order of the report they came in), each index into
 * the job's table of counter names. The history converts these to its events' form without a
 * Counters object: rebuilding one per attempt, with Hadoop's group and counter lookups, cost
 * the driver more than converting it (bench/README.md, case scale).
 *
 * @param pairs index, value, index, value, ...
 * @param names a counter's names by index
 */
public record IndexedCounters(long[] pairs, Names names) {
  /** The job's table of counter names. */
  public interface Names {
    /**
     * Counter {@code index}'s group, the group's display name, its name and its display name
     * (Hadoop's for framework counters, as first reported for others).
     */
    String[] of(int index);
  }
}
