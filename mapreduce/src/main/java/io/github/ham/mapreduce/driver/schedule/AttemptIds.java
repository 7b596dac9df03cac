package io.github.ham.mapreduce.driver.schedule;

import io.github.ham.mapreduce.common.ids.AttemptKey;
import io.github.ham.mapreduce.common.ids.IdNames;
import io.github.ham.mapreduce.common.ids.TaskKey;

import org.apache.hadoop.mapred.JobID;
import org.apache.hadoop.mapred.TaskAttemptID;
import org.apache.hadoop.mapred.TaskID;
import org.apache.hadoop.mapreduce.TaskType;

/** Hadoop's ids for the scheduler's keys of one job, and back. */
public final class AttemptIds {
  private final JobID job;
  private final IdNames names;

  public AttemptIds(JobID job) {
    this.job = job;
    this.names = new IdNames(job);
  }

  /** {@code task(key).toString()}, without Hadoop's number formats (the status record's). */
  public String taskName(TaskKey key) {
    return names.task(key.isMap() ? TaskType.MAP : TaskType.REDUCE, key.index());
  }

  /** {@code attempt(key).toString()}, without Hadoop's number formats. */
  public String attemptName(AttemptKey key) {
    TaskKey task = key.task();
    return names.attempt(task.isMap() ? TaskType.MAP : TaskType.REDUCE, task.index(),
        key.attempt());
  }

  /** {@link #taskName} appended to {@code b} (the status record writes one per attempt). */
  public StringBuilder appendTaskName(StringBuilder b, TaskKey key) {
    return names.appendTask(b, key.isMap() ? TaskType.MAP : TaskType.REDUCE, key.index());
  }

  /** {@link #attemptName} appended to {@code b}. */
  public StringBuilder appendAttemptName(StringBuilder b, AttemptKey key) {
    TaskKey task = key.task();
    return names.appendAttempt(b, task.isMap() ? TaskType.MAP : TaskType.REDUCE, task.index(),
        key.attempt());
  }

  public JobID job() {
    return job;
  }

  public TaskID task(TaskKey key) {
    return new TaskID(job, key.isMap() ? TaskType.MAP : TaskType.REDUCE, key.index());
  }

  public TaskAttemptID attempt(AttemptKey key) {
    return new TaskAttemptID(task(key.task()), key.attempt());
  }

  /** The key of an attempt of this job, or null if the attempt belongs to another job. */
  public AttemptKey keyOf(org.apache.hadoop.mapreduce.TaskAttemptID attempt) {
    if (!names.isOf(attempt.getTaskID())) {
      return null;
    }
    return new AttemptKey(new TaskKey(attempt.getTaskType() == TaskType.MAP,
        attempt.getTaskID().getId()), attempt.getId());
  }
}
