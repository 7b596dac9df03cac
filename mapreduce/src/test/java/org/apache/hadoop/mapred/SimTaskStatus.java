package org.apache.hadoop.mapred;

import org.apache.hadoop.mapreduce.FileSystemCounter;
import org.apache.hadoop.mapreduce.TaskCounter;
import org.apache.hadoop.mapreduce.lib.input.FileInputFormatCounter;

/**
 * Scale bench (test code): the status a simulated runner reports for a map attempt, built with
 * Hadoop's package-private factory, with the counters a real map attempt reports (task,
 * file system and input format counters), so that the driver decodes and keeps as much per
 * attempt as it does for a real one.
 *
 * <p>Each runner thread builds its counters once and sets their values per report: the bench
 * takes the runners' own work out (a real task's counters come from its work), and building
 * Hadoop's Counters anew for each report was 7% of the simulated runners' CPU, taken from the
 * driver they share the machine with. A report is written to the wire before the thread makes
 * the next one, so sharing the object between reports changes nothing the driver sees.
 */
public final class SimTaskStatus {
  private static final ThreadLocal<Reused> REUSED = ThreadLocal.withInitial(Reused::new);

  private SimTaskStatus() {
  }

  /** A map attempt's status: {@code commitPending} before canCommit, else its last update. */
  public static TaskStatus map(TaskAttemptID attempt, boolean commitPending, long seq) {
    return TaskStatus.createTaskStatus(true, attempt, 1.0f, 1,
        commitPending ? TaskStatus.State.COMMIT_PENDING : TaskStatus.State.RUNNING, "", "map",
        "", TaskStatus.Phase.MAP, REUSED.get().counters(seq));
  }

  /** One thread's counters: the names of a small map attempt's, values that vary by seq. */
  private static final class Reused {
    private final Counters all = new Counters();
    private final Counters.Counter[] each;

    Reused() {
      TaskCounter[] tasks = {TaskCounter.MAP_INPUT_RECORDS,
          TaskCounter.MAP_OUTPUT_RECORDS, TaskCounter.MAP_OUTPUT_BYTES,
          TaskCounter.MAP_OUTPUT_MATERIALIZED_BYTES, TaskCounter.SPLIT_RAW_BYTES,
          TaskCounter.COMBINE_INPUT_RECORDS, TaskCounter.COMBINE_OUTPUT_RECORDS,
          TaskCounter.SPILLED_RECORDS, TaskCounter.FAILED_SHUFFLE,
          TaskCounter.MERGED_MAP_OUTPUTS, TaskCounter.GC_TIME_MILLIS,
          TaskCounter.CPU_MILLISECONDS, TaskCounter.PHYSICAL_MEMORY_BYTES,
          TaskCounter.VIRTUAL_MEMORY_BYTES, TaskCounter.COMMITTED_HEAP_BYTES,
          TaskCounter.MAP_PHYSICAL_MEMORY_BYTES_MAX, TaskCounter.MAP_VIRTUAL_MEMORY_BYTES_MAX};
      FileSystemCounter[] fs = {FileSystemCounter.BYTES_READ,
          FileSystemCounter.BYTES_WRITTEN, FileSystemCounter.READ_OPS,
          FileSystemCounter.LARGE_READ_OPS, FileSystemCounter.WRITE_OPS};
      each = new Counters.Counter[tasks.length + fs.length + 1];
      int i = 0;
      for (TaskCounter t : tasks) {
        each[i++] = all.findCounter(t);
      }
      for (FileSystemCounter f : fs) {
        each[i++] = all.findCounter("file", f);
      }
      each[i] = all.findCounter(FileInputFormatCounter.BYTES_READ);
    }

    Counters counters(long seq) {
      long v = 1 + (seq & 0xffff);
      for (Counters.Counter c : each) {
        c.setValue(v++);
      }
      return all;
    }
  }
}
