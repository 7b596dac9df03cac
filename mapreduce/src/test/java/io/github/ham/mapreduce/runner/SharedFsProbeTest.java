package io.github.ham.mapreduce.runner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A runner waits for the job's directory to answer again (a restarting file-system server). */
class SharedFsProbeTest {
  @TempDir
  Path tmp;

  @Test
  void aDirectoryAnswersAMissingOneOrAFileDoesNot() throws Exception {
    assertTrue(SharedFsProbe.reachable(tmp.toFile()));
    assertFalse(SharedFsProbe.reachable(tmp.resolve("gone").toFile()));
    assertFalse(SharedFsProbe.reachable(Files.createFile(tmp.resolve("plain")).toFile()));
  }

  @Test
  void awaitReturnsOnceTheDirectoryIsBackCallingMeanwhileInBetween() throws Exception {
    File dir = tmp.resolve("job").toFile();
    AtomicInteger pings = new AtomicInteger();
    boolean back = SharedFsProbe.await(dir, 10_000, 1, () -> {
      if (pings.incrementAndGet() == 2) {
        assertTrue(dir.mkdir());  // the server is back
      }
    });
    assertTrue(back);
    assertEquals(2, pings.get());
  }

  @Test
  void anAnsweringDirectoryIsNotWaitedFor() throws Exception {
    AtomicInteger pings = new AtomicInteger();
    assertTrue(SharedFsProbe.awaitAnswer(tmp.toFile(), 10_000, pings::incrementAndGet, "a"));
    assertEquals(0, pings.get());
    assertFalse(SharedFsProbe.awaitAnswer(tmp.resolve("gone").toFile(), 20, pings::incrementAndGet,
        "a"));
  }

  @Test
  void theJobsStateIsSuspectedOnlyForClassesJarsOrAnUnansweringDirectory() {
    Exception user = new java.io.IOException("the mapper's own error");
    assertFalse(SharedFsProbe.mayBeJobState(user, tmp.toFile()));
    assertTrue(SharedFsProbe.mayBeJobState(user, tmp.resolve("gone").toFile()));
    assertTrue(SharedFsProbe.mayBeJobState(new RuntimeException(new RuntimeException(
        new ClassNotFoundException("org.apache.hadoop.streaming.PipeMapRunner"))), tmp.toFile()));
    assertTrue(SharedFsProbe.mayBeJobState(new java.util.zip.ZipException("invalid LOC header"),
        tmp.toFile()));
    assertTrue(SharedFsProbe.mayBeJobState(new RuntimeException(new ExceptionInInitializerError(
        new IllegalStateException("a static initializer threw"))), tmp.toFile()),
        "a class of the job's left uninitialized goes with the job's class loader");
  }

  @Test
  void awaitGivesUpAfterTheWait() throws Exception {
    AtomicInteger pings = new AtomicInteger();
    long start = System.currentTimeMillis();
    assertFalse(SharedFsProbe.await(tmp.resolve("never").toFile(), 50, 5, pings::incrementAndGet));
    assertTrue(pings.get() >= 1);
    assertTrue(System.currentTimeMillis() - start >= 50);
  }
}
