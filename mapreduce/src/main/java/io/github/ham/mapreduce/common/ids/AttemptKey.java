package io.github.ham.mapreduce.common.ids;

/** One attempt of a task. */
public record AttemptKey(TaskKey task, int attempt) {
  public boolean isMap() {
    return task.isMap();
  }

  @Override
  public String toString() {
    return task + "_" + attempt;
  }
}
