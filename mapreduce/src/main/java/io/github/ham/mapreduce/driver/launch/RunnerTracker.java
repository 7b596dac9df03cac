package io.github.ham.mapreduce.driver.launch;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.github.ham.mapreduce.common.ids.RunnerId;
import io.github.ham.mapreduce.common.protocol.FreshJvm;
import io.github.ham.mapreduce.driver.launch.NodeState;
import io.github.ham.mapreduce.driver.launch.RunnerExit;
import io.github.ham.mapreduce.driver.schedule.RunnerKind;

/**
 * The driver's view of its task runners, free of Hadoop and process I/O: which runner is alive,
 * which one is lost (its process exited, or it stopped contacting the driver for the heartbeat
 * timeout), and whether a lost runner is replaced. Thread-safe.
 *
 * <p>A runner is identified by its slot, {@code g<generation>-p<procid>} (the name of its
 * working directory), and reports itself to the driver as a {@link RunnerId}.
 */
public final class RunnerTracker {
  /** What to do about a lost runner. */
  public enum Decision {
    /** Start a replacement runner on the same node. */
    REPLACE,
    /** The node is drained or failing: the job goes on with the other runners. */
    NODE_UNHEALTHY,
    /**
     * The node is down or cut off (Slurm says so, or its slurmd does not answer): the job
     * blacklists it and goes on with the other nodes, as YARN's AM does with a lost node.
     */
    NODE_UNREACHABLE,
    /** The node's state cannot be read: do not risk a step that may hang. */
    NODE_UNKNOWN,
    /** ham.runner.max.relaunches is used up. */
    BUDGET_EXHAUSTED,
    /** The job is finished: nothing to replace. */
    JOB_FINISHED,
    /** The runner's node is not known. */
    NO_NODE
  }

  /**
   * A runner that was just declared lost; runnerId is null if it never reached the driver.
   * {@code expected}: the driver caused the exit (it answered "task not found" to the runner's
   * task, which then exits the JVM as a YARN container would be killed, e.g. after
   * mapreduce.task.timeout); such a replacement does not count against the relaunch budget.
   */
  public record Lost(String slot, String node, String runnerId, String reason,
      boolean expected, RunnerKind kind) {
  }

  private static final class Entry {
    final String slot;
    RunnerKind kind = RunnerKind.ANY;
    String node;
    String runnerId;
    long lastContact;
    boolean lost;
    /** Told to exit: no more tasks of its kind (its exit is no loss). */
    boolean retired;
    boolean exitExpected;
    /** Its process exited (a retired runner's exit is no loss, but it parks no more). */
    boolean exited;

    Entry(String slot) {
      this.slot = slot;
    }

    boolean live() {
      return !lost && !retired;
    }
  }

  private final Map<String, Entry> slots = new LinkedHashMap<>();

  /** The launcher started a runner of {@code kind} in {@code slot}, on {@code node} if known. */
  public synchronized void started(String slot, String node, RunnerKind kind, long now) {
    Entry e = slots.computeIfAbsent(slot, Entry::new);
    e.kind = kind;
    if (node != null) {
      e.node = node;
    }
    e.lastContact = Math.max(e.lastContact, now);
  }

  /** The kind of tasks the runner takes (ANY for a runner the launcher did not start). */
  public synchronized RunnerKind kindOf(String runnerId) {
    Entry e = slots.get(RunnerId.slotOf(runnerId));
    return e == null ? RunnerKind.ANY : e.kind;
  }

  /** The runner was told to exit: there are no more tasks of its kind. */
  public synchronized void retire(String runnerId) {
    Entry e = slots.get(RunnerId.slotOf(runnerId));
    if (e != null && !e.lost) {
      e.retired = true;
    }
  }

  /** Whether some runner of {@code kind} was retired (rather than all of them lost). */
  public synchronized boolean anyRetired(RunnerKind kind) {
    for (Entry e : slots.values()) {
      if (e.kind == kind && e.retired) {
        return true;
      }
    }
    return false;
  }

  /** The ids of the runners of {@code kind} that reached the driver. */
  public synchronized List<String> runnerIds(RunnerKind kind) {
    List<String> out = new ArrayList<>();
    for (Entry e : slots.values()) {
      if (e.kind == kind && e.runnerId != null) {
        out.add(e.runnerId);
      }
    }
    return out;
  }

  /**
   * How many runners reached the driver and neither were lost nor exited (retired ones too):
   * the ones told there is no more work, that park (warm runners).
   */
  public synchronized int reached() {
    int n = 0;
    for (Entry e : slots.values()) {
      if (e.runnerId != null && !e.lost && !e.exited) {
        n++;
      }
    }
    return n;
  }

  /**
   * The runner talked to the driver. Returns false if it was already declared lost (the driver
   * tells it to exit: its attempts were given to others and it may have been replaced).
   */
  public synchronized boolean contact(String runnerId, long now) {
    Entry e = slots.computeIfAbsent(RunnerId.slotOf(runnerId), Entry::new);
    if (!e.live()) {
      return false;
    }
    if (e.runnerId == null) {
      e.runnerId = runnerId;
    }
    if (e.node == null) {
      e.node = RunnerId.nodeOf(runnerId);
    }
    e.lastContact = Math.max(e.lastContact, now);
    return true;
  }

  /**
   * The driver told the runner's task it is no longer wanted (the attempt timed out or was
   * failed by the driver): the task exits the runner JVM, which is then replaced without
   * counting against the relaunch budget.
   */
  public synchronized void expectExit(String runnerId) {
    Entry e = slots.get(RunnerId.slotOf(runnerId));
    if (e != null && !e.lost) {
      e.exitExpected = true;
    }
  }

  /** The runner's process exited; returns it as lost, or null if it already was. */
  public synchronized Lost exited(RunnerExit exit) {
    Entry e = slots.computeIfAbsent(exit.slot(), Entry::new);
    e.exited = true;
    if (e.retired) {
      return null;
    }
    if (e.node == null) {
      e.node = exit.node();
    }
    if (exit.exitStatus() == FreshJvm.EXIT_STATUS) {
      // It left after its attempt's failure (FreshJvm); replaced as any lost runner.
      return lose(e, "it asked for a fresh JVM: a class failed to initialize in its own");
    }
    return lose(e, "its process exited (" + exit.reason() + ")");
  }

  /**
   * Runners that contacted the driver once and then were silent for {@code timeoutMs}, and
   * runners that never did within {@code startTimeoutMs} of their start (0: no limit).
   */
  public synchronized List<Lost> expire(long now, long timeoutMs, long startTimeoutMs) {
    List<Lost> out = new ArrayList<>();
    for (Entry e : slots.values()) {
      if (!e.live()) {
        continue;
      }
      long silent = now - e.lastContact;
      if (e.runnerId != null && timeoutMs > 0 && silent > timeoutMs) {
        out.add(lose(e, "no contact with the driver for " + silent / 1000 + " s"));
      } else if (e.runnerId == null && startTimeoutMs > 0 && silent > startTimeoutMs) {
        out.add(lose(e, "it did not reach the driver within " + silent / 1000
            + " s of its start"));
      }
    }
    return out;
  }

  /** Every runner of {@code kind} is gone (relaunched as a whole, none replaced singly). */
  public synchronized void allLost(RunnerKind kind) {
    for (Entry e : slots.values()) {
      if (e.kind == kind) {
        e.lost = true;
      }
    }
  }

  public synchronized boolean isLost(String runnerId) {
    Entry e = slots.get(RunnerId.slotOf(runnerId));
    return e != null && e.lost;
  }

  /** Whether a runner of {@code kind} is neither lost nor retired. */
  public synchronized boolean anyLive(RunnerKind kind) {
    for (Entry e : slots.values()) {
      if (e.kind == kind && e.live()) {
        return true;  // most often one of the first: asked after every attempt's end
      }
    }
    return false;
  }

  private Lost lose(Entry e, String reason) {
    if (e.lost) {
      return null;
    }
    e.lost = true;
    return new Lost(e.slot, e.node, e.runnerId, reason, e.exitExpected, e.kind);
  }

  /**
   * Whether a lost runner is replaced: only while the job runs, on a known and healthy node,
   * and while ham.runner.max.relaunches (counting every relaunch and replacement, except those
   * of runners whose exit the driver caused: {@code expected}) allows. An unreachable node is
   * named as such whatever the budget: the job blacklists it. A used-up budget is named before
   * an unknown node (a runner that never reached the driver): it is the reason either way.
   */
  public static Decision decide(boolean jobFinished, String node, int relaunchesUsed,
      int maxRelaunches, NodeState health, boolean expected) {
    if (jobFinished) {
      return Decision.JOB_FINISHED;
    }
    if (health == NodeState.UNREACHABLE) {
      return Decision.NODE_UNREACHABLE;
    }
    if (!expected && relaunchesUsed >= maxRelaunches) {
      return Decision.BUDGET_EXHAUSTED;
    }
    if (node == null || node.isEmpty()) {
      return Decision.NO_NODE;
    }
    if (health == NodeState.UNHEALTHY) {
      return Decision.NODE_UNHEALTHY;
    }
    if (health == NodeState.UNKNOWN) {
      return Decision.NODE_UNKNOWN;
    }
    return Decision.REPLACE;
  }
}
