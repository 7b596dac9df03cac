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

  private static String read(File f) throws Exception {
    return Files.readString(f.toPath(), StandardCharsets.UTF_8);
  }

  @Test
  void infoLinesWaitForTheFlushAndAWarnTakesThemAlongAtOnce() throws Exception {
    File f = tmp.resolve("driver.log").toFile();
    DriverLogAppender a = appender(f);
    Logger log = Logger.getLogger("driver-log-test-1");
    log.setAdditivity(false);
    log.addAppender(a);
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
      log.removeAppender(a);
      a.close();
    }
  }

  @Test
  void closingWritesWhatWasAppended() throws Exception {
    File f = tmp.resolve("closed.log").toFile();
    DriverLogAppender a = appender(f);
    Logger log = Logger.getLogger("driver-log-test-2");
    log.setAdditivity(false);
    log.addAppender(a);
    for (int i = 0; i < 100; i++) {
      log.info("line " + i);
    }
    log.removeAppender(a);
    a.close();
    List<String> lines = Files.readAllLines(f.toPath());
    assertEquals(100, lines.size());
    assertEquals("INFO line 99", lines.get(99));
    a.flush();  // after close: nothing to flush, no error
  }

  /** A JVM that logs INFO lines and exits at once: the shutdown hook writes them. */
  public static final class ExitingMain {
    public static void main(String[] args) {
      DriverLogAppender a = appender(new File(args[0]));
      Logger log = Logger.getLogger("driver-log-exit");
      log.setLevel(Level.INFO);
      log.addAppender(a);
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
    assertEquals(50, lines.size(), out);
    assertEquals("INFO line 49", lines.get(49));
    assertFalse(out.contains("log4j:ERROR"), out);
  }
}
