package io.github.ham.mapreduce.common.jobfiles;

import org.apache.hadoop.mapred.IndexRecord;

/**
 * A map's output whose index a reduce has already read and checked ({@link MapOutputCheck}:
 * before the reduce starts, and after one failed), keeping the reduce's record: its fetch then
 * reads the data file alone. On a shared file system each index read is an open and a read on
 * its servers, once per map for every reduce.
 */
public interface KeptIndex {
  /** Keeps {@code partition}'s record of this map's checked index. */
  void keepIndex(int partition, IndexRecord record);

  /** The record kept for {@code partition}, or null (none kept, or another partition's). */
  IndexRecord keptIndex(int partition);
}
