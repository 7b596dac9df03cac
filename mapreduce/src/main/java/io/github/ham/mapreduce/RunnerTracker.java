package io.github.ham.mapreduce;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The driver's view of its task runners, free of Hadoop and process I/O: which runner is alive,
 * which one is lost (its process exited, or it stopped contacting the driver for the heartbeat
 * timeout), and whether a lost runner is replaced. Thread-safe.
 *
 * <p>A runner is identified by its slot, {@code g<generation>-p<procid>} (the name of its
 * working directory), and reports itself to the driver as {@code <node>/<slot>/<pid>}.
 */
public final class RunnerTracker {
  /** A node's state as {@code scontrol show node} reports it. */
  public enum NodeHealth { HEALTHY, UNHEALTHY, UNKNOWN }

  /** What to do about a lost runner. */
  public enum Decision {
    /** Start a replacement runner on the same node. */
    REPLACE,
    /** The node is down, drained or failing: the job goes on with the other runners. */
    NODE_UNHEALTHY,
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
      boolean expected) {
  }

  /** A runner process that exited, as the launcher saw it. */
  public record Exit(String slot, String node, String reason) {
  }

  private static final class Entry {
    final String slot;
    String node;
    String runnerId;
    long lastContact;
    boolean lost;
    boolean exitExpected;

    Entry(String slot) {
      this.slot = slot;
    }
  }

  private final Map<String, Entry> slots = new LinkedHashMap<>();

  /** The slot of a runner id {@code node/slot/pid} (the id itself if it has another form). */
  public static String slotOf(String runnerId) {
    String[] parts = runnerId.split("/");
    return parts.length >= 3 ? parts[parts.length - 2] : runnerId;
  }

  /** The node of a runner id {@code node/slot/pid}, or null. */
  public static String nodeOf(String runnerId) {
    int slash = runnerId.indexOf('/');
    return slash > 0 ? runnerId.substring(0, slash) : null;
  }

  public static String slotName(int generation, int procId) {
    return "g" + generation + "-p" + procId;
  }

  /** The launcher started a runner in {@code slot}, on {@code node} if known. */
  public synchronized void started(String slot, String node, long now) {
    Entry e = slots.computeIfAbsent(slot, Entry::new);
    if (node != null) {
      e.node = node;
    }
    e.lastContact = Math.max(e.lastContact, now);
  }

  /**
   * The runner talked to the driver. Returns false if it was already declared lost (the driver
   * tells it to exit: its attempts were given to others and it may have been replaced).
   */
  public synchronized boolean contact(String runnerId, long now) {
    Entry e = slots.computeIfAbsent(slotOf(runnerId), Entry::new);
    if (e.lost) {
      return false;
    }
    if (e.runnerId == null) {
      e.runnerId = runnerId;
    }
    if (e.node == null) {
      e.node = nodeOf(runnerId);
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
    Entry e = slots.get(slotOf(runnerId));
    if (e != null && !e.lost) {
      e.exitExpected = true;
    }
  }

  /** The runner's process exited; returns it as lost, or null if it already was. */
  public synchronized Lost exited(Exit exit) {
    Entry e = slots.computeIfAbsent(exit.slot(), Entry::new);
    if (e.node == null) {
      e.node = exit.node();
    }
    return lose(e, "its process exited (" + exit.reason() + ")");
  }

  /** Runners that contacted the driver once and then were silent for {@code timeoutMs}. */
  public synchronized List<Lost> expire(long now, long timeoutMs) {
    List<Lost> out = new ArrayList<>();
    if (timeoutMs <= 0) {
      return out;
    }
    for (Entry e : slots.values()) {
      if (!e.lost && e.runnerId != null && now - e.lastContact > timeoutMs) {
        out.add(lose(e, "no contact with the driver for " + (now - e.lastContact) / 1000
            + " s"));
      }
    }
    return out;
  }

  /** Every runner is gone (the whole set is relaunched): none of them is replaced singly. */
  public synchronized void allLost() {
    for (Entry e : slots.values()) {
      e.lost = true;
    }
  }

  public synchronized boolean isLost(String runnerId) {
    Entry e = slots.get(slotOf(runnerId));
    return e != null && e.lost;
  }

  public synchronized int live() {
    int n = 0;
    for (Entry e : slots.values()) {
      if (!e.lost) {
        n++;
      }
    }
    return n;
  }

  private Lost lose(Entry e, String reason) {
    if (e.lost) {
      return null;
    }
    e.lost = true;
    return new Lost(e.slot, e.node, e.runnerId, reason, e.exitExpected);
  }

  /**
   * Whether a lost runner is replaced: only while the job runs, on a known and healthy node,
   * and while ham.runner.max.relaunches (counting every relaunch and replacement, except those
   * of runners whose exit the driver caused: {@code expected}) allows.
   */
  public static Decision decide(boolean jobFinished, String node, int relaunchesUsed,
      int maxRelaunches, NodeHealth health, boolean expected) {
    if (jobFinished) {
      return Decision.JOB_FINISHED;
    }
    if (node == null || node.isEmpty()) {
      return Decision.NO_NODE;
    }
    if (!expected && relaunchesUsed >= maxRelaunches) {
      return Decision.BUDGET_EXHAUSTED;
    }
    if (health == NodeHealth.UNHEALTHY) {
      return Decision.NODE_UNHEALTHY;
    }
    if (health == NodeHealth.UNKNOWN) {
      return Decision.NODE_UNKNOWN;
    }
    return Decision.REPLACE;
  }

  private static final Pattern STATE = Pattern.compile("(?:^|\\s)State=(\\S+)");

  /**
   * A node's health from {@code scontrol show node -o NAME}: unhealthy when its state has DOWN,
   * DRAIN (DRAINING, DRAINED), FAIL (FAILING), NOT_RESPONDING or the not-responding mark
   * {@code *}; unknown without a State field.
   */
  public static NodeHealth parseNodeState(String scontrolOutput) {
    if (scontrolOutput == null) {
      return NodeHealth.UNKNOWN;
    }
    Matcher m = STATE.matcher(scontrolOutput);
    if (!m.find()) {
      return NodeHealth.UNKNOWN;
    }
    String state = m.group(1).toUpperCase(Locale.ROOT);
    for (String bad : new String[] {"DOWN", "DRAIN", "FAIL", "NOT_RESPONDING", "*"}) {
      if (state.contains(bad)) {
        return NodeHealth.UNHEALTHY;
      }
    }
    return NodeHealth.HEALTHY;
  }

  private static final Pattern SRUN_ERROR = Pattern.compile(
      "srun: error: (\\S+): tasks? ([0-9][0-9,\\-]*): (.+)");

  /**
   * Runner exits reported by srun on its standard error, such as
   * {@code srun: error: node2: task 3: Killed} or
   * {@code srun: error: node1: tasks 0-1,4: Exited with exit code 3}, for a step of
   * {@code generation}. Other lines give nothing.
   */
  public static List<Exit> parseSrunLine(String line, int generation) {
    List<Exit> out = new ArrayList<>();
    Matcher m = SRUN_ERROR.matcher(line);
    if (!m.find()) {
      return out;
    }
    for (String range : m.group(2).split(",")) {
      if (range.isEmpty()) {
        continue;
      }
      int dash = range.indexOf('-');
      try {
        int from = Integer.parseInt(dash < 0 ? range : range.substring(0, dash));
        int to = dash < 0 ? from : Integer.parseInt(range.substring(dash + 1));
        for (int p = from; p <= to && p - from < 100_000; p++) {
          out.add(new Exit(slotName(generation, p), m.group(1), m.group(3).trim()));
        }
      } catch (NumberFormatException e) {
        // Not a task list: ignore the line.
      }
    }
    return out;
  }
}
