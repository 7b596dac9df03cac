package io.github.ham.mapreduce.common.protocol;

/**
 * How a runner tells the driver that the attempt it ran ended its JVM: it went past its memory
 * (the runner kills itself, as a NodeManager kills the container) or its code called
 * System.exit. Either way the attempt failed, and the runner's exit is expected: the driver
 * replaces it without counting against ham.runner.max.relaunches.
 */
public final class TaskEnds {
  /** In YARN's words (ContainersMonitorImpl), so tools that look for them find them. */
  public static final String MEMORY_LIMIT = "beyond the 'PHYSICAL' memory limit";
  public static final String SYSTEM_EXIT = "ended its JVM (System.exit or Runtime.halt)";

  private TaskEnds() {
  }

  /** Whether an attempt's failure report says its runner JVM is ending. */
  public static boolean endsRunner(String diagnostic) {
    return diagnostic != null
        && (diagnostic.contains(MEMORY_LIMIT) || diagnostic.contains(SYSTEM_EXIT));
  }
}
