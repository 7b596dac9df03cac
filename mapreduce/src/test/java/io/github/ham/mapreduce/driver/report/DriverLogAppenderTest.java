package io.github.ham.mapreduce.driver.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.apache.log4j.Level;
import org.apache.log4j.Logger;
import org.apache.log4j.PatternLayout;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DriverLogAppenderTest {
  @TempDir
  Path tmp;

  private static DriverLogAppender appender(File file) {
    DriverLogAppender a = new DriverLogAppender();
    a.setFile(file.getPath());
    a.setLayout(new PatternLayout("%p %m%n"));
    a.activateOptions();
    return a;
  }

  /** A logger of its own whose lines go to {@code a} alone. */
  private static Logger loggerTo(String name, DriverLogAppender a) {
    Logger log = Logger.getLogger(name);
    log.setAdditivity(false);
    log.addAppender(a);
    return log;
  }

  private static void detach(Logger log, DriverLogAppender a) {
    log.removeAppender(a);
    a.close();
  }

  private static String read(File f) throws Exception {
    return Files.readString(f.toPath(), StandardCharsets.UTF_8);
  }

  @Test
  void infoLinesWaitForTheFlushAndAWarnTakesThemAlongAtOnce() throws Exception {
    File f = tmp.resolve("driver.log").toFile();
    DriverLogAppender a = appender(f);
    Logger log = loggerTo("driver-log-test-1", a);
    try {
      log.info("assigned 1");
      // Not written yet: a line is not a write(2) (unless the flusher ran just now).
      String early = read(f);
      log.warn("lost runner");
      assertEquals("INFO assigned 1\nWARN lost runner\n", read(f));
      assertTrue(early.isEmpty() || early.equals("INFO assigned 1\n"), early);
      log.info("assigned 2");
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
      while (!read(f).endsWith("assigned 2\n") && System.nanoTime() < deadline) {
        Thread.sleep(20);
      }
      assertTrue(read(f).endsWith("INFO assigned 2\n"), "flushed within a few periods");
    } finally {
      detach(log, a);
    }
  }

  @Test
  void closingWritesWhatWasAppended() throws Exception {
    File f = tmp.resolve("closed.log").toFile();
    DriverLogAppender a = appender(f);
    Logger log = loggerTo("driver-log-test-2", a);
    for (int i = 0; i < 100; i++) {
      log.info("line " + i);
    }
    detach(log, a);
    List<String> lines = Files.readAllLines(f.toPath());
    assertEquals(100, lines.size());
    assertEquals("INFO line 99", lines.get(99));
    a.flush();  // after close: nothing to flush, no error
  }

  /**
   * A JVM that logs INFO lines and exits at once, and whose own shutdown hook logs one more
   * line a little after ours has run (as the driver's does: a held output, the history's end).
   */
  public static final class ExitingMain {
    public static void main(String[] args) {
      DriverLogAppender a = appender(new File(args[0]));
      Logger log = Logger.getLogger("driver-log-exit");
      log.setLevel(Level.INFO);
      log.addAppender(a);
      Runtime.getRuntime().addShutdownHook(new Thread(() -> {
        try {
          Thread.sleep(50);
        } catch (InterruptedException e) {
          return;
        }
        log.info("from a shutdown hook");
      }));
      for (int i = 0; i < 50; i++) {
        log.info("line " + i);
      }
      System.exit(3);
    }
  }

  @Test
  void aJvmThatExitsRightAfterLoggingLosesNoLine() throws Exception {
    File f = tmp.resolve("exit.log").toFile();
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Process p = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
        ExitingMain.class.getName(), f.getPath()).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(60, TimeUnit.SECONDS));
    assertEquals(3, p.exitValue(), out);
    List<String> lines = Files.readAllLines(f.toPath());
    assertEquals(51, lines.size(), out);
    assertEquals("INFO line 49", lines.get(49));
    assertEquals("INFO from a shutdown hook", lines.get(50));
    assertFalse(out.contains("log4j:ERROR"), out);
  }

  /** write(2) calls this thread has made (/proc/thread-self/io's syscw). */
  private static long writesOfThisThread() throws Exception {
    for (String line : Files.readAllLines(Path.of("/proc/thread-self/io"))) {
      if (line.startsWith("syscw:")) {
        return Long.parseLong(line.substring(6).trim());
      }
    }
    throw new IllegalStateException("no syscw in /proc/thread-self/io");
  }

  @Test
  void heldLinesGoOutInOneWrite() throws Exception {
    // One write(2) a flush, to a file opened for appending: another JVM's lines cannot land
    // inside one of ours (log4j's writer writes 8 KB pieces, cutting lines).
    File f = tmp.resolve("one-write.log").toFile();
    DriverLogAppender a = appender(f);
    Logger log = loggerTo("driver-log-test-one-write", a);
    try {
      String pad = "y".repeat(150);
      long before = writesOfThisThread();
      for (int i = 0; i < 250; i++) {  // 40 KB, held (under MAX_PENDING)
        log.info(i + " " + pad);
      }
      log.warn("end");
      long writes = writesOfThisThread() - before;
      // 1, or 0 if the flusher's thread wrote them all meanwhile
      assertTrue(writes <= 1, writes + " writes");
      List<String> lines = Files.readAllLines(f.toPath());
      assertEquals(251, lines.size());
      assertEquals("WARN end", lines.get(250));
    } finally {
      detach(log, a);
    }
  }

  @Test
  void twoWritersOfOneFileNeverCutEachOthersLines() throws Exception {
    // The jobs of one session append to one driver.log, each from its own JVM; here two
    // appenders of one file, each written from its own thread.
    File f = tmp.resolve("shared.log").toFile();
    String pad = "x".repeat(150);
    int each = 20_000;  // 3 MB each, written 64 KB at a time, the two at once
    java.util.concurrent.CyclicBarrier start = new java.util.concurrent.CyclicBarrier(2);
    Thread[] writers = new Thread[2];
    for (int w = 0; w < writers.length; w++) {
      int id = w;
      writers[w] = new Thread(() -> {
        DriverLogAppender a = appender(f);
        Logger log = loggerTo("driver-log-shared-" + id, a);
        try {
          start.await();
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
        for (int i = 0; i < each; i++) {
          log.info(id + " " + i + " " + pad);
        }
        detach(log, a);
      });
      writers[w].start();
    }
    for (Thread t : writers) {
      t.join();
    }
    List<String> lines = Files.readAllLines(f.toPath());
    assertEquals(2 * each, lines.size());
    int[] next = new int[2];
    for (String line : lines) {
      String[] parts = line.split(" ");
      assertEquals(4, parts.length, line);
      assertEquals("INFO", parts[0], line);
      assertEquals(pad, parts[3], line);
      int id = Integer.parseInt(parts[1]);
      assertEquals(next[id]++, Integer.parseInt(parts[2]), "each writer's lines in order");
    }
  }
}
