package io.github.ham.mapreduce.history;

import io.github.ham.mapreduce.common.ids.IdNames;

import org.apache.hadoop.mapreduce.JobID;
import org.apache.hadoop.mapreduce.TaskAttemptID;
import org.apache.hadoop.mapreduce.TaskID;

/**
 * Copies of a job's task and attempt ids whose toString is their name, made once
 * ({@link IdNames}), for the history events: an attempt's four events print its ids eight
 * times, and Hadoop's ids format their numbers with a DecimalFormat each time (a fifth of the
 * history thread's time at 100,000 maps, bench/README.md "What the scale case shows"). Handed
 * to events only, never used as keys: Hadoop's ids are equal only to ids of their own class.
 */
final class NamedIds {
  private final IdNames names;

  NamedIds(JobID job) {
    this.names = new IdNames(job);
  }

  /** {@code task} with its name made once (as it is, if it is another job's). */
  TaskID task(TaskID task) {
    if (task instanceof Task || !names.isOf(task)) {
      return task;
    }
    return new Task(task, names.task(task.getTaskType(), task.getId()));
  }

  /** {@code attempt} with its and its task's names made once. */
  TaskAttemptID attempt(TaskAttemptID attempt) {
    if (attempt == null || attempt instanceof Attempt) {
      return attempt;
    }
    TaskID task = task(attempt.getTaskID());
    if (!(task instanceof Task)) {
      return attempt;
    }
    return new Attempt(task, attempt.getId(),
        names.attempt(task.getTaskType(), task.getId(), attempt.getId()));
  }

  private static final class Task extends TaskID {
    private final String name;

    Task(TaskID of, String name) {
      super(of.getJobID(), of.getTaskType(), of.getId());
      this.name = name;
    }

    @Override
    public String toString() {
      return name;
    }
  }

  private static final class Attempt extends TaskAttemptID {
    private final String name;

    Attempt(TaskID task, int id, String name) {
      super(task, id);
      this.name = name;
    }

    @Override
    public String toString() {
      return name;
    }
  }
}
