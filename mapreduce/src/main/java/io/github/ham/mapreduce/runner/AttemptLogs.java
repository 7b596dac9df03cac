package io.github.ham.mapreduce.runner;

import java.io.File;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.ham.mapreduce.common.jobfiles.JobDirs;

import org.apache.log4j.FileAppender;
import org.apache.log4j.Level;
import org.apache.log4j.Logger;
import org.apache.log4j.PatternLayout;

/**
 * Per-attempt logs in a runner JVM: System.out/err go to
 * {@code <attempt>.<host>.stdout/.stderr} and log4j additionally to {@code .syslog}. The stdout
 * and stderr files are created at their first byte: most tasks write nothing there, and each
 * file created is a metadata operation on the shared file system (history's aggregated logs
 * still show both, empty, for every container, as YARN's do).
 */
final class AttemptLogs implements AutoCloseable {
  /** How many are open in this JVM (one, during an attempt): {@link RunnerLinesOnly}. */
  private static final AtomicInteger OPEN = new AtomicInteger();
  private final PrintStream savedOut = System.out;
  private final PrintStream savedErr = System.err;
  private final PrintStream out;
  private final PrintStream err;
  private final FileAppender appender;
  private final File stderrFile;
  private final Level savedLevel = Logger.getRootLogger().getLevel();

  AttemptLogs(JobDirs dirs, String attemptId, String host) throws IOException {
    File dir = dirs.logs();
    if (!dir.isDirectory() && !dir.mkdirs() && !dir.isDirectory()) {
      throw new IOException("Cannot create " + dir);
    }
    out = new PrintStream(new OpenedAtFirstByte(dirs.attemptLog(attemptId, host, "stdout")), true,
        "UTF-8");
    stderrFile = dirs.attemptLog(attemptId, host, "stderr");
    err = new PrintStream(new OpenedAtFirstByte(stderrFile), true, "UTF-8");
    appender = new FileAppender(new PatternLayout("%d{ISO8601} %p [%t] %c: %m%n"),
        dirs.attemptLog(attemptId, host, "syslog").getAbsolutePath(), false);
    appender.setName("ham-attempt-" + attemptId);
    Logger.getRootLogger().addAppender(appender);
    System.setOut(out);
    System.setErr(err);
    OPEN.incrementAndGet();
  }

  /** Whether an attempt's logs are open in this JVM. */
  static boolean anyOpen() {
    return OPEN.get() > 0;
  }

  /**
   * The last {@code bytes} of what the attempt wrote to its stderr (a streaming script's error
   * messages land there): YARN appends the same to a failed container's diagnostics, which is
   * how a script's own message reaches the client.
   */
  String stderrTail(int bytes) {
    err.flush();
    try (RandomAccessFile f = new RandomAccessFile(stderrFile, "r")) {
      long start = Math.max(0, f.length() - bytes);
      byte[] buf = new byte[(int) (f.length() - start)];
      f.seek(start);
      f.readFully(buf);
      return new String(buf, StandardCharsets.UTF_8);
    } catch (IOException e) {
      return "";
    }
  }

  /**
   * The attempt logs at the task's level (mapreduce.{map,reduce}.log.level), as a YARN
   * container's log4j root logger does; the runner's level comes back at close.
   */
  void useLevel(String level) {
    Logger.getRootLogger().setLevel(Level.toLevel(level, Level.INFO));
  }

  /** A file output stream that creates its file when the first byte is written. */
  static final class OpenedAtFirstByte extends OutputStream {
    private final File file;
    private FileOutputStream out;

    OpenedAtFirstByte(File file) {
      this.file = file;
    }

    private FileOutputStream open() throws IOException {
      if (out == null) {
        out = new FileOutputStream(file);
      }
      return out;
    }

    @Override
    public void write(int b) throws IOException {
      open().write(b);
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
      if (len > 0) {
        open().write(b, off, len);
      }
    }

    @Override
    public void flush() throws IOException {
      if (out != null) {
        out.flush();
      }
    }

    @Override
    public void close() throws IOException {
      if (out != null) {
        out.close();
      }
    }
  }

  @Override
  public void close() {
    OPEN.decrementAndGet();
    Logger.getRootLogger().setLevel(savedLevel);
    System.setOut(savedOut);
    System.setErr(savedErr);
    Logger.getRootLogger().removeAppender(appender);
    appender.close();
    out.close();
    err.close();
  }
}
