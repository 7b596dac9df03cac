package io.github.ham.mapreduce.runner;

import org.apache.log4j.Level;
import org.apache.log4j.spi.Filter;
import org.apache.log4j.spi.LoggingEvent;

/**
 * The filter of a runner's console, i.e. its srun step's output file on the shared file system
 * (ham-runner-log4j.properties): while an attempt's logs are open, only the runner's own lines
 * (this package's loggers) and the warnings and errors of HAM's classes (a node's file system,
 * Lustre striping, the map output's buffer) and of Hadoop's IPC (the runner's connection to
 * its driver) go there; the attempt's other lines go to its syslog alone, as a YARN
 * container's do. Each line there was also a write to the step's pipe and a write of
 * slurmstepd on the shared file system: a one-line map logs ~50 lines (16 MB of step log for
 * a 3,000-map wordcount), and at a task's DEBUG level many more.
 */
public final class RunnerLinesOnly extends Filter {
  private static final String RUNNER = RunnerLinesOnly.class.getPackageName() + ".";
  private static final String HAM = "io.github.ham.";
  private static final String IPC = "org.apache.hadoop.ipc.";

  @Override
  public int decide(LoggingEvent event) {
    if (!AttemptLogs.anyOpen()) {
      return NEUTRAL;
    }
    String logger = event.getLoggerName();
    return logger.startsWith(RUNNER)
        || event.getLevel().isGreaterOrEqual(Level.WARN)
        && (hams(logger) || logger.startsWith(IPC))
        ? NEUTRAL : DENY;
  }

  /** HAM's classes: its packages, and its Ham* classes in Hadoop's (HamMapOutputBuffer). */
  private static boolean hams(String logger) {
    return logger.startsWith(HAM) || logger.startsWith("org.apache.hadoop.")
        && logger.startsWith("Ham", logger.lastIndexOf('.') + 1);
  }
}
