package io.github.ham.mapreduce.driver.report;

/**
 * Wakes the driver's supervision loop early (an attempt ended, the job was killed) instead of
 * at its next tick. A signal is kept until the loop next waits, so none is lost, and the loop
 * passes at most once every {@code minGapMs}: each map's end signals, and a loop woken for
 * each of thousands of ends a second was the driver's largest cost after the IPC server's and
 * the history's (a futex wake in the signalling IPC handler and a pass of the loop each;
 * bench/README.md, "The supervision loop"). Signals that come while the loop works or rests
 * cost the signaller a flag.
 */
public final class Wakeup {
  private final long minGapMs;
  private boolean pending;
  /** When {@link #await} last returned (read and written by the waiting thread only). */
  private long passedAt = Long.MIN_VALUE / 2;

  public Wakeup(long minGapMs) {
    this.minGapMs = minGapMs;
  }

  public synchronized void signal() {
    if (!pending) {
      pending = true;
      notifyAll();
    }
  }

  /**
   * Returns once signalled (now or since the last return) or after {@code ms}, but not before
   * {@code minGapMs} after the last return. One thread waits.
   */
  public void await(long ms) throws InterruptedException {
    long rest = passedAt + minGapMs - System.currentTimeMillis();
    if (rest > 0) {
      Thread.sleep(rest);  // outside the lock: a signal meanwhile sets the flag and wakes no one
    }
    synchronized (this) {
      long until = System.currentTimeMillis() + ms;
      for (long left = ms; !pending && left > 0; left = until - System.currentTimeMillis()) {
        wait(left);
      }
      pending = false;
    }
    passedAt = System.currentTimeMillis();
  }
}
