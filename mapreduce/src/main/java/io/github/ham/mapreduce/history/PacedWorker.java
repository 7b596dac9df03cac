package io.github.ham.mapreduce.history;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * One daemon thread that runs the actions given to it in order, as a single-thread executor
 * does, but that looks for them every {@link #IDLE_NS} when it has none (less often, up to
 * {@link #MAX_IDLE_NS}, while none come) instead of being woken for each: the driver's IPC handlers give the history three events a task, and an executor's
 * thread parked on its queue costs a futex wake-up and a context switch for nearly each of
 * them. An action waits at most that long; {@link #shutdown} wakes it to run what was given.
 */
final class PacedWorker {
  static final long IDLE_NS = TimeUnit.MILLISECONDS.toNanos(2);
  static final long MAX_IDLE_NS = TimeUnit.MILLISECONDS.toNanos(50);
  private final ConcurrentLinkedQueue<Runnable> queue = new ConcurrentLinkedQueue<>();
  private final CountDownLatch finished = new CountDownLatch(1);
  private final Thread thread;
  private volatile boolean closed;

  PacedWorker(String name) {
    thread = new Thread(this::run, name);
    thread.setDaemon(true);
    thread.start();
  }

  /** Runs {@code action} in the thread, after those given before it. */
  void execute(Runnable action) {
    synchronized (this) {  // closed and added together: nothing is added once closed is seen
      if (closed) {
        throw new RejectedExecutionException("shut down");
      }
      queue.add(action);
    }
  }

  /** Nothing given waits to be run (the thread's own view: it may be running the last). */
  boolean isIdle() {
    return queue.isEmpty();
  }

  /** Takes no more actions; the thread ends once it has run those given. */
  void shutdown() {
    synchronized (this) {
      closed = true;
    }
    LockSupport.unpark(thread);
  }

  /** Whether the thread ended (after {@link #shutdown}) within the time. */
  boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
    return finished.await(timeout, unit);
  }

  private void run() {
    long idle = IDLE_NS;
    try {
      while (true) {
        Runnable next = queue.poll();
        if (next != null) {
          idle = IDLE_NS;
          try {
            next.run();
          } catch (RuntimeException e) {
            // The action's own to report (JobHistoryLog's do); the thread goes on.
          }
        } else if (closed && queue.isEmpty()) {
          return;
        } else {
          LockSupport.parkNanos(idle);
          // Idle for longer (a job with nothing ending): looks less often, up to MAX_IDLE_NS.
          idle = Math.min(MAX_IDLE_NS, idle * 2);
        }
      }
    } finally {
      finished.countDown();
    }
  }
}
