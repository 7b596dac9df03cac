package io.github.ham.mapreduce.runner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;

import io.github.ham.mapreduce.common.jobfiles.JobDirs;

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
}
