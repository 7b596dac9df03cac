package io.github.ham.mapreduce.driver.schedule;

import java.util.HashMap;
import java.util.Map;

import io.github.ham.mapreduce.common.ids.TaskKey;

/**
 * Decides which attempt of a task may commit its output: the first attempt that asks wins,
 * and keeps the right until it succeeds or is released (its attempt failed or was lost).
 * Not thread-safe: the caller ({@link TaskScheduler}) synchronizes.
 */
final class CommitArbiter {
  private final Map<TaskKey, Integer> winners = new HashMap<>();

  /** Returns true when {@code attempt} of {@code task} may commit. */
  boolean canCommit(TaskKey task, int attempt) {
    Integer winner = winners.putIfAbsent(task, attempt);
    return winner == null || winner == attempt;
  }

  /** Frees the task's commit right if {@code attempt} holds it. */
  void release(TaskKey task, int attempt) {
    winners.remove(task, attempt);
  }

  Integer winner(TaskKey task) {
    return winners.get(task);
  }
}
