package io.github.ham.mapreduce.driver.schedule;

import java.util.List;

/**
 * Which running task gets a speculative attempt, a simplified form of the MRAppMaster's
 * DefaultSpeculator: a task with one attempt, never speculated, running longer than both
 * twice the mean duration of its type's finished tasks and a floor, and whose estimated time
 * left (from its progress rate; unbounded without progress) exceeds that mean. The one with the
 * most time left goes first; at most {@code cap} of the running tasks (at least one) have a
 * speculative attempt at a time. Pure: the {@link TaskScheduler} passes what it knows.
 */
final class Speculator {
  /** What the speculator needs of a running task's only attempt. */
  record Running(Object task, String runner, long start, float progress) {
  }

  private Speculator() {
  }

  /**
   * The task to speculate for {@code runner} among {@code running} (tasks with exactly one
   * attempt, never speculated), or null.
   */
  static Object pick(List<Running> running, String runner, long meanMs, int finished,
      int speculating, int runningTasks, double cap, long minMs, long now) {
    if (finished == 0 || speculating >= Math.max(1, (int) (cap * runningTasks))) {
      return null;
    }
    Object best = null;
    double bestLeft = 0;
    for (Running r : running) {
      long elapsed = now - r.start();
      if (r.runner().equals(runner) || elapsed < Math.max(minMs, 2 * meanMs)) {
        continue;
      }
      double left = r.progress() <= 0 ? Double.POSITIVE_INFINITY
          : elapsed * (1 - r.progress()) / r.progress();
      if (left > meanMs && (best == null || left > bestLeft)) {
        best = r.task();
        bestLeft = left;
      }
    }
    return best;
  }
}
