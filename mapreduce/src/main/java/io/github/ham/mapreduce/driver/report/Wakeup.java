package io.github.ham.mapreduce.driver.report;

import java.util.concurrent.TimeUnit;

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
  private final long minGapNs;
  private boolean pending;
  /**
   * When {@link #await} last returned, System.nanoTime (the waiting thread's alone); at first
   * a gap ago, so that the first wait has no rest.
   */
  private long passedAt;

  public Wakeup(long minGapMs) {
    this.minGapNs = TimeUnit.MILLISECONDS.toNanos(minGapMs);
    this.passedAt = System.nanoTime() - minGapNs;
  }

  public synchronized void signal() {
    if (!pending) {
      pending = true;
      notifyAll();
    }
  }

  /**
   * Returns once signalled (now or since the last return) or after {@code ms}, but not before
   * {@code minGapMs} after the last return. One thread waits. Timed by the monotonic clock: a
   * step of the wall clock neither stalls nor hurries the loop.
   */
  public void await(long ms) throws InterruptedException {
    long rest = Math.min(minGapNs, passedAt + minGapNs - System.nanoTime());
    if (rest > 0) {
      // Outside the lock: a signal meanwhile sets the flag and wakes no one.
      TimeUnit.NANOSECONDS.sleep(rest);
    }
    synchronized (this) {
      long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ms);
      for (long left = until - System.nanoTime(); !pending && left > 0;
          left = until - System.nanoTime()) {
        TimeUnit.NANOSECONDS.timedWait(this, left);
      }
      pending = false;
    }
    passedAt = System.nanoTime();
  }
}
