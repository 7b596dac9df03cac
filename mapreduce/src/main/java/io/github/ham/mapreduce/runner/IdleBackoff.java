package io.github.ham.mapreduce.runner;

/**
 * How long a runner pauses before asking the driver again when it got no task. The driver
 * holds a runner's call while it has nothing for it, until a task comes or for several seconds
 * (WaitingRunners), so after a held call the runner asks again at once. An empty answer that
 * came at once (its node takes no more tasks, the driver is stopping) is followed by a pause
 * that grows from 100 ms to 1 s, so that such a runner does not spin. Public for the scale
 * bench's simulated runners, which wait as TaskRunner does.
 */
public final class IdleBackoff {
  /** An empty answer that took at least this long was held by the driver. */
  static final long HELD_MS = 100;
  private int quick;

  /** The pause before asking again after an empty answer that took {@code tookMs}. */
  public long pauseMs(long tookMs) {
    if (tookMs >= HELD_MS) {
      quick = 0;
      return 0;
    }
    return Math.min(1000, 100L * (1 + quick++));
  }

  /** A task came. */
  public void reset() {
    quick = 0;
  }
}
