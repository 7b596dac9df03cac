package org.apache.hadoop.mapred;

import org.apache.hadoop.mapreduce.FileSystemCounter;
import org.apache.hadoop.mapreduce.TaskCounter;
import org.apache.hadoop.mapreduce.lib.input.FileInputFormatCounter;

/**
 * Scale bench (test code): the status a simulated runner reports for a map attempt, built with
 * Hadoop's package-private factory, with the counters a real map attempt reports (task,
 * file system and input format counters), so that the driver decodes and keeps as much per
 * attempt as it does for a real one.
 */
public final class SimTaskStatus {
  private SimTaskStatus() {
  }

  /** A map attempt's status: {@code commitPending} before canCommit, else its last update. */
  public static TaskStatus map(TaskAttemptID attempt, boolean commitPending, long seq) {
    TaskStatus s = TaskStatus.createTaskStatus(true, attempt, 1.0f, 1,
        commitPending ? TaskStatus.State.COMMIT_PENDING : TaskStatus.State.RUNNING, "", "map",
        "", TaskStatus.Phase.MAP, counters(seq));
    return s;
  }

  /** About the counters of a small map attempt (values vary, names as a real MapTask's). */
  static Counters counters(long seq) {
    Counters c = new Counters();
    long v = 1 + (seq & 0xffff);
    for (TaskCounter t : new TaskCounter[] {TaskCounter.MAP_INPUT_RECORDS,
        TaskCounter.MAP_OUTPUT_RECORDS, TaskCounter.MAP_OUTPUT_BYTES,
        TaskCounter.MAP_OUTPUT_MATERIALIZED_BYTES, TaskCounter.SPLIT_RAW_BYTES,
        TaskCounter.COMBINE_INPUT_RECORDS, TaskCounter.COMBINE_OUTPUT_RECORDS,
        TaskCounter.SPILLED_RECORDS, TaskCounter.FAILED_SHUFFLE, TaskCounter.MERGED_MAP_OUTPUTS,
        TaskCounter.GC_TIME_MILLIS, TaskCounter.CPU_MILLISECONDS,
        TaskCounter.PHYSICAL_MEMORY_BYTES, TaskCounter.VIRTUAL_MEMORY_BYTES,
        TaskCounter.COMMITTED_HEAP_BYTES, TaskCounter.MAP_PHYSICAL_MEMORY_BYTES_MAX,
        TaskCounter.MAP_VIRTUAL_MEMORY_BYTES_MAX}) {
      c.findCounter(t).setValue(v++);
    }
    for (FileSystemCounter f : new FileSystemCounter[] {FileSystemCounter.BYTES_READ,
        FileSystemCounter.BYTES_WRITTEN, FileSystemCounter.READ_OPS,
        FileSystemCounter.LARGE_READ_OPS, FileSystemCounter.WRITE_OPS}) {
      c.findCounter("file", f).setValue(v++);
    }
    c.findCounter(FileInputFormatCounter.BYTES_READ).setValue(v);
    return c;
  }
}
