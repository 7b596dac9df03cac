package io.github.ham.mapreduce.client;

import java.io.IOException;

import io.github.ham.mapreduce.common.protocol.DriverControl;
import io.github.ham.mapreduce.driver.HamJob;

import org.apache.hadoop.mapreduce.Counters;
import org.apache.hadoop.mapreduce.JobStatus;
import org.apache.hadoop.mapreduce.TaskAttemptID;
import org.apache.hadoop.mapreduce.TaskCompletionEvent;
import org.apache.hadoop.mapreduce.TaskReport;
import org.apache.hadoop.mapreduce.TaskType;

/** A job of this JVM in the moment between its submission and its tasks being known. */
final class Preparing implements DriverControl {
  private final HamJob job;

  Preparing(HamJob job) {
    this.job = job;
  }

  @Override
  public JobStatus getJobStatus() {
    return job.status();
  }

  @Override
  public Counters getJobCounters() {
    return new Counters();
  }

  @Override
  public TaskCompletionEvent[] getTaskCompletionEvents(int from, int max) {
    return new TaskCompletionEvent[0];
  }

  @Override
  public String[] getTaskDiagnostics(TaskAttemptID attempt) {
    return new String[0];
  }

  @Override
  public TaskReport[] getTaskReports(TaskType type) {
    return new TaskReport[0];
  }

  @Override
  public void killJob() {
    job.kill();
  }

  @Override
  public boolean killTask(TaskAttemptID attempt, boolean shouldFail) {
    return false;
  }
}
