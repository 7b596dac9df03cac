package io.github.ham.mapreduce.driver.ipc;

import java.util.ArrayDeque;
import java.util.EnumMap;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Function;

import io.github.ham.mapreduce.driver.schedule.RunnerKind;

import org.apache.hadoop.mapred.JvmTask;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runners that asked for a task when there was none for them: their call is held (the IPC
 * server's deferred response) and answered when a task comes (a retry, the reduces after the
 * last map, a speculative attempt, the job's submission), when the job ends, or after
 * {@code limitMs} with "ask again", so that a held runner still shows it is there within the
 * heartbeat timeout. An idle runner then costs the driver one call per limit instead of one
 * per poll (9,000 idle runners polling about once a second took the driver 4.5 ms of handler
 * CPU per dispatch: bench/README.md, "What the scale case shows"), and a task that becomes
 * runnable goes to a waiting runner at once instead of at its next poll.
 *
 * <p>Per kind of runner, in the order they came (each kind's own tasks). The decision is the
 * caller's ({@code next}: a task, "exit", "ask again", or null for "nothing for it yet"); it is
 * asked for the oldest held runner of a kind whenever something changed (an attempt ended, the
 * job was submitted or stopped, a runner was held) and every {@link #TICK_MS} (speculation
 * depends on time). Held runners of a kind get nothing while the oldest gets nothing: what one
 * idle runner of a kind cannot take, the next cannot either, save a speculative attempt that
 * avoids its original's runner, which the next in line gets within one limit at most.
 */
final class WaitingRunners {
  private static final Logger LOG = LoggerFactory.getLogger(WaitingRunners.class);
  /** How often held runners are looked at when nothing was signalled. */
  static final long TICK_MS = 250;
  static final JvmTask ASK_AGAIN = new JvmTask(null, false);

  private record Held(String runnerId, long until, Consumer<JvmTask> answer) {
  }

  private final Function<String, JvmTask> next;
  private final long limitMs;
  private final Map<RunnerKind, ArrayDeque<Held>> held = new EnumMap<>(RunnerKind.class);
  private final Thread thread;
  private boolean changed;
  private boolean closed;

  /**
   * @param next the runner's next task or answer, or null if there is nothing for it yet
   * @param limitMs how long a call is held at most
   */
  WaitingRunners(String name, Function<String, JvmTask> next, long limitMs) {
    this.next = next;
    this.limitMs = limitMs;
    for (RunnerKind kind : RunnerKind.values()) {
      held.put(kind, new ArrayDeque<>());
    }
    thread = new Thread(this::run, "HAM waiting runners " + name);
    thread.setDaemon(true);
    thread.start();
  }

  /** Holds a runner's call until {@code answer} can be given something. */
  synchronized void hold(String runnerId, RunnerKind kind, Consumer<JvmTask> answer) {
    if (closed) {
      answer.accept(ASK_AGAIN);
      return;
    }
    held.get(kind).addLast(new Held(runnerId, System.currentTimeMillis() + limitMs, answer));
    // Something may have changed between the caller's decision and now: look again.
    signal();
  }

  /**
   * Something a held runner may be waiting for happened. With no runner held there is nothing
   * to look at: the thread is not woken (the scheduler signals at every attempt's end, thousands
   * a second, and those wake-ups were 3% of the driver's CPU with every runner busy).
   */
  synchronized void signal() {
    changed = true;
    if (size() > 0) {
      notifyAll();
    }
  }

  /** Held calls are not answered any more (the server is stopping). */
  synchronized void close() {
    closed = true;
    notifyAll();
  }

  synchronized int size() {
    int n = 0;
    for (ArrayDeque<Held> q : held.values()) {
      n += q.size();
    }
    return n;
  }

  private void run() {
    try {
      while (true) {
        synchronized (this) {
          if (!changed && !closed) {
            wait(TICK_MS);
          }
          if (closed) {
            return;
          }
          changed = false;
        }
        for (RunnerKind kind : RunnerKind.values()) {
          serve(held.get(kind));
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Answers the oldest held runners of one kind, as long as there is something for them. */
  private void serve(ArrayDeque<Held> queue) {
    while (true) {
      Held h;
      synchronized (this) {
        h = queue.peekFirst();  // only this thread takes from the queues
      }
      if (h == null) {
        return;
      }
      JvmTask answer;
      try {
        answer = next.apply(h.runnerId());
      } catch (RuntimeException e) {
        LOG.warn("Cannot decide for waiting runner {}: {}", h.runnerId(), e.toString());
        answer = ASK_AGAIN;
      }
      if (answer == null) {
        if (System.currentTimeMillis() < h.until()) {
          return;  // nothing for the oldest: nothing for the younger ones either
        }
        answer = ASK_AGAIN;  // held for the limit: it asks again, and so shows it is there
      }
      synchronized (this) {
        queue.pollFirst();
      }
      h.answer().accept(answer);
    }
  }
}
