package io.github.ham.mapreduce.driver;

import io.github.ham.mapreduce.common.AttemptKey;
import io.github.ham.mapreduce.common.TaskKey;

import org.apache.hadoop.mapred.JobID;
import org.apache.hadoop.mapred.TaskAttemptID;
import org.apache.hadoop.mapred.TaskID;
import org.apache.hadoop.mapreduce.TaskType;

/** Hadoop's ids for the scheduler's keys of one job, and back. */
public final class AttemptIds {
  private final JobID job;
  /** "task_<cluster>_<nnnn>_" and "attempt_<cluster>_<nnnn>_": the names' constant part. */
  private final String taskPrefix;
  private final String attemptPrefix;

  public AttemptIds(JobID job) {
    this.job = job;
    String id = job.toString().substring("job_".length());
    this.taskPrefix = "task_" + id + "_";
    this.attemptPrefix = "attempt_" + id + "_";
  }

  /** {@code task(key).toString()}, without Hadoop's number formats (the status record's). */
  public String taskName(TaskKey key) {
    return name(new StringBuilder(40).append(taskPrefix), key).toString();
  }

  /** {@code attempt(key).toString()}, without Hadoop's number formats. */
  public String attemptName(AttemptKey key) {
    return name(new StringBuilder(48).append(attemptPrefix), key.task()).append('_')
        .append(key.attempt()).toString();
  }

  private static StringBuilder name(StringBuilder b, TaskKey key) {
    b.append(key.isMap() ? 'm' : 'r').append('_');
    String index = Integer.toString(key.index());
    for (int i = index.length(); i < 6; i++) {
      b.append('0');
    }
    return b.append(index);
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
    org.apache.hadoop.mapreduce.JobID of = attempt.getJobID();
    if (of.getId() != job.getId() || !of.getJtIdentifier().equals(job.getJtIdentifier())) {
      return null;
    }
    return new AttemptKey(new TaskKey(attempt.getTaskType() == TaskType.MAP,
        attempt.getTaskID().getId()), attempt.getId());
  }
}
