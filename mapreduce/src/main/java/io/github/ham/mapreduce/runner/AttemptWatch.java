package io.github.ham.mapreduce.runner;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import io.github.ham.mapreduce.common.protocol.TaskEnds;

import org.apache.hadoop.mapred.TaskAttemptID;
import org.apache.hadoop.mapred.TaskUmbilicalProtocol;
import org.apache.hadoop.util.StringUtils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Watches the attempt a runner JVM runs, as a NodeManager watches a container: every
 * interval it adds up the physical memory of the runner and its children (a streaming
 * script's too) and, past the task's mapreduce.{map,reduce}.memory.mb, fails the attempt with
 * YARN's diagnostic and ends the runner (the memory may be the JVM's own); and when the JVM
 * goes down while the attempt runs (System.exit in the task's code), it tells the driver why.
 * Where /proc is missing (not Linux) memory is not watched.
 */
final class AttemptWatch {
  private static final Logger LOG = LoggerFactory.getLogger(AttemptWatch.class);
  private static final Path PROC = Path.of("/proc");
  private final TaskUmbilicalProtocol umbilical;
  private final String runnerId;
  private volatile TaskAttemptID current;
  private volatile long limitBytes;
  private volatile long intervalMs = 1000;
  private volatile boolean reported;

  AttemptWatch(TaskUmbilicalProtocol umbilical, String runnerId) {
    this.umbilical = umbilical;
    this.runnerId = runnerId;
  }

  private Thread hook;
  private Thread memory;

  void start() {
    hook = new Thread(this::jvmEnding, "ham-attempt-exit");
    Runtime.getRuntime().addShutdownHook(hook);
    if (Files.isDirectory(PROC.resolve("self"))) {
      memory = new Thread(this::watchMemory, "ham-attempt-memory");
      memory.setDaemon(true);
      memory.start();
    }
  }

  /** The runner's job is over (a warm runner goes on to another: WarmPark). */
  void stop() {
    if (memory != null) {
      memory.interrupt();
    }
    if (hook != null) {
      try {
        Runtime.getRuntime().removeShutdownHook(hook);
      } catch (IllegalStateException e) {
        // The JVM is going down: the hook runs, and finds no attempt.
      }
    }
  }

  /**
   * The runner starts {@code attempt}, allowed {@code limitBytes} (0: no limit), looked at every
   * {@code intervalMs}.
   */
  void begin(TaskAttemptID attempt, long limitBytes, long intervalMs) {
    this.limitBytes = limitBytes;
    this.intervalMs = Math.max(100, intervalMs);
    this.current = attempt;
  }

  void end() {
    current = null;
  }

  private void watchMemory() {
    while (true) {
      try {
        Thread.sleep(intervalMs);
      } catch (InterruptedException e) {
        return;
      }
      TaskAttemptID attempt = current;
      long limit = limitBytes;
      if (attempt == null || limit <= 0) {
        continue;
      }
      long used = rssOfTree();
      if (used > limit) {
        kill(attempt, String.format("Container [pid=%d,containerID=%s] is running %dB %s. "
            + "Current usage: %s of %s physical memory used. Killing container. (HAM: the task "
            + "runner running %s went past its memory.mb; it is replaced.)",
            ProcessHandle.current().pid(), runnerId, used - limit, TaskEnds.MEMORY_LIMIT,
            StringUtils.TraditionalBinaryPrefix.long2String(used, "B", 1),
            StringUtils.TraditionalBinaryPrefix.long2String(limit, "B", 1), attempt));
      }
    }
  }

  private void kill(TaskAttemptID attempt, String diagnostic) {
    reported = true;
    LOG.error("{}", diagnostic);
    try {
      umbilical.fatalError(attempt, diagnostic, true);
    } catch (IOException | RuntimeException e) {
      LOG.warn("Cannot report the memory limit of {}: {}", attempt, e.toString());
    }
    ProcessHandle.current().descendants().forEach(ProcessHandle::destroyForcibly);
    Runtime.getRuntime().halt(143);  // as a container killed with SIGTERM: 128 + 15
  }

  /** The physical memory of this JVM and every process it started, in bytes. */
  static long rssOfTree() {
    List<Long> pids = Stream.concat(Stream.of(ProcessHandle.current()),
        ProcessHandle.current().descendants()).map(ProcessHandle::pid)
        .collect(Collectors.toList());
    long total = 0;
    for (long pid : pids) {
      total += rssOf(pid);
    }
    return total;
  }

  private static long rssOf(long pid) {
    try {
      for (String line : Files.readAllLines(PROC.resolve(pid + "/status"))) {
        if (line.startsWith("VmRSS:")) {
          return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
        }
      }
    } catch (IOException | NumberFormatException e) {
      // The process has just ended.
    }
    return 0;
  }

  /** A shutdown hook: the JVM goes down while an attempt runs, so the attempt's code ended it. */
  private void jvmEnding() {
    TaskAttemptID attempt = current;
    if (attempt == null || reported) {
      return;
    }
    try {
      umbilical.fatalError(attempt, "Task attempt " + attempt + " " + TaskEnds.SYSTEM_EXIT
          + " while it ran: the attempt failed and HAM replaces the runner " + runnerId, true);
    } catch (IOException | RuntimeException e) {
      LOG.warn("Cannot report the end of {}: {}", attempt, e.toString());
    }
  }
}
