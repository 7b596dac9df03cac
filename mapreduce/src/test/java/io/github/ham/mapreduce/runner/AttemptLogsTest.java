package io.github.ham.mapreduce.runner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;

import io.github.ham.mapreduce.common.jobfiles.JobDirs;

import org.apache.log4j.Appender;
import org.apache.log4j.Hierarchy;
import org.apache.log4j.Level;
import org.apache.log4j.Logger;
import org.apache.log4j.PropertyConfigurator;
import org.apache.log4j.spi.Filter;
import org.apache.log4j.spi.LoggingEvent;
import org.apache.log4j.spi.RootLogger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AttemptLogsTest {
  private static final String ATTEMPT = "attempt_1700000000000_0001_m_000000_0";

  @Test
  void stdoutAndStderrAreCreatedOnlyWhenWrittenTo(@TempDir Path tmp) throws Exception {
    JobDirs dirs = JobDirs.of(tmp.toString(), "job_1700000000000_0001");
    try (AttemptLogs logs = new AttemptLogs(dirs, ATTEMPT, "node1")) {
      System.err.print("");
      System.err.println("a task's message");
      assertEquals("a task's message\n", logs.stderrTail(100));
    }
    assertFalse(dirs.attemptLog(ATTEMPT, "node1", "stdout").exists(), "nothing was printed");
    assertEquals("a task's message\n",
        Files.readString(dirs.attemptLog(ATTEMPT, "node1", "stderr").toPath()));
    assertTrue(dirs.attemptLog(ATTEMPT, "node1", "syslog").exists());
  }

  @Test
  void aFailedAttemptThatWroteNoStderrHasAnEmptyTail(@TempDir Path tmp) throws Exception {
    JobDirs dirs = JobDirs.of(tmp.toString(), "job_1700000000000_0001");
    try (AttemptLogs logs = new AttemptLogs(dirs, ATTEMPT, "node1")) {
      assertEquals("", logs.stderrTail(100));
    }
    assertFalse(dirs.attemptLog(ATTEMPT, "node1", "stderr").exists());
  }

  /**
   * The runner's console (its step's log) has the runner's own lines, and an attempt's lines
   * only outside attempts: during one they go to its syslog alone.
   */
  @Test
  void theConsoleHasTheRunnersOwnLinesDuringAnAttempt(@TempDir Path tmp) throws Exception {
    Hierarchy runner = new Hierarchy(new RootLogger(Level.INFO));
    new PropertyConfigurator().doConfigure(
        getClass().getClassLoader().getResource("ham-runner-log4j.properties"), runner);
    Appender console = runner.getRootLogger().getAppender("console");
    Filter filter = console.getFilter();
    assertTrue(filter instanceof RunnerLinesOnly, String.valueOf(filter));
    LoggingEvent task = event("org.apache.hadoop.mapred.MapTask", Level.WARN);
    LoggingEvent own = event(TaskRunner.class.getName(), Level.INFO);
    LoggingEvent hamWarning = event("io.github.ham.mapreduce.common.HamLocalFileSystem",
        Level.WARN);
    LoggingEvent hamInfo = event("org.apache.hadoop.mapred.HamMapOutputBuffer", Level.INFO);
    LoggingEvent hamInHadoops = event("org.apache.hadoop.mapred.HamMapOutputBuffer", Level.WARN);
    LoggingEvent ipc = event("org.apache.hadoop.ipc.Client", Level.WARN);
    LoggingEvent hadoopWarning = event("org.apache.hadoop.mapred.HadoopMapTask", Level.WARN);
    assertEquals(Filter.NEUTRAL, filter.decide(task), "no attempt: every line");
    JobDirs dirs = JobDirs.of(tmp.toString(), "job_1700000000000_0001");
    try (AttemptLogs logs = new AttemptLogs(dirs, ATTEMPT, "node1")) {
      assertEquals(Filter.DENY, filter.decide(task));
      assertEquals(Filter.DENY, filter.decide(hamInfo));
      assertEquals(Filter.NEUTRAL, filter.decide(own));
      assertEquals(Filter.NEUTRAL, filter.decide(hamWarning), "HAM's warnings: both");
      assertEquals(Filter.NEUTRAL, filter.decide(hamInHadoops));
      assertEquals(Filter.NEUTRAL, filter.decide(ipc), "the runner's connection");
      assertEquals(Filter.DENY, filter.decide(hadoopWarning));
    }
    assertEquals(Filter.NEUTRAL, filter.decide(task), "after the attempt");
  }

  private static LoggingEvent event(String logger, Level level) {
    return new LoggingEvent(Logger.class.getName(), Logger.getLogger(logger), level, "x", null);
  }
}
