package io.github.ham.mapreduce.common.protocol;

import java.util.Collection;

import org.apache.hadoop.mapred.TIPStatus;
import org.apache.hadoop.mapreduce.Counters;
import org.apache.hadoop.mapreduce.TaskAttemptID;
import org.apache.hadoop.mapreduce.TaskReport;

/**
 * A TaskReport with its successful and running attempts set (their setters are protected in
 * Hadoop's class). Sent over the driver's IPC: a client rebuilds it by this class's name.
 */
public final class HamTaskReport extends TaskReport {
  public HamTaskReport() {
  }

  public HamTaskReport(org.apache.hadoop.mapred.TaskID task, float progress, String state,
      String[] diagnostics, TIPStatus status, long start, long finish, Counters counters,
      TaskAttemptID successful, Collection<TaskAttemptID> running) {
    super(task, progress, state, diagnostics, status, start, finish, counters);
    if (successful != null) {
      setSuccessfulAttemptId(successful);
    }
    setRunningTaskAttemptIds(running);
  }
}
