package io.github.ham.mapreduce.driver.report;

/**
 * Wakes the driver's supervision loop early (an attempt ended, the job was killed) instead of
 * at its next tick; the loop's wait is bounded, so a signal sent before it waits is not lost
 * for longer than one tick.
 */
public final class Wakeup {
  public synchronized void signal() {
    notifyAll();
  }

  public synchronized void await(long ms) throws InterruptedException {
    wait(ms);
  }
}
