package io.github.ham.mapreduce.common.ids;

import org.apache.hadoop.mapreduce.JobID;
import org.apache.hadoop.mapreduce.TaskID;
import org.apache.hadoop.mapreduce.TaskType;

/**
 * The names of one job's tasks and attempts, as Hadoop's ids print them
 * ({@code task_<cluster>_<nnnn>_m_000007}, {@code attempt_..._m_000007_0}), made with a
 * StringBuilder from the job's constant part. Hadoop's TaskID and TaskAttemptID format every
 * number with a DecimalFormat (and decode the job's cluster id from a Text) on each toString,
 * which the driver does several times a task (its status record, its history events).
 */
public final class IdNames {
  private final JobID job;
  /** "task_<cluster>_<nnnn>_" and "attempt_<cluster>_<nnnn>_": the names' constant part. */
  private final String taskPrefix;
  private final String attemptPrefix;

  public IdNames(JobID job) {
    this.job = job;
    String id = job.toString().substring("job_".length());
    this.taskPrefix = "task_" + id + "_";
    this.attemptPrefix = "attempt_" + id + "_";
  }

  /** {@code new TaskID(job, type, index).toString()}. */
  public String task(TaskType type, int index) {
    return appendTask(new StringBuilder(40), type, index).toString();
  }

  /** {@code new TaskAttemptID(new TaskID(job, type, index), attempt).toString()}. */
  public String attempt(TaskType type, int index, int attempt) {
    return appendAttempt(new StringBuilder(48), type, index, attempt).toString();
  }

  /** {@link #task}'s name appended to {@code b}, without a String of its own. */
  public StringBuilder appendTask(StringBuilder b, TaskType type, int index) {
    return name(b.append(taskPrefix), type, index);
  }

  /** {@link #attempt}'s name appended to {@code b}, without a String of its own. */
  public StringBuilder appendAttempt(StringBuilder b, TaskType type, int index, int attempt) {
    return name(b.append(attemptPrefix), type, index).append('_').append(attempt);
  }

  /** Whether {@code task} is one of this job's, whose names this object makes. */
  public boolean isOf(TaskID task) {
    JobID of = task.getJobID();
    // compareTo compares the cluster ids' bytes; getJtIdentifier decodes a String from them
    // on each call, which the driver did for every call of a runner's (AttemptIds.keyOf).
    return of == job || of.getId() == job.getId() && of.compareTo(job) == 0;
  }

  private static StringBuilder name(StringBuilder b, TaskType type, int index) {
    b.append(TaskID.getRepresentingCharacter(type)).append('_');
    int digits = 1;
    for (int x = index; x >= 10; x /= 10) {
      digits++;
    }
    for (int i = digits; i < 6; i++) {
      b.append('0');
    }
    return b.append(index);
  }
}
