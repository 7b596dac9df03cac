package io.github.ham.mapreduce.driver.report;

import java.util.concurrent.TimeUnit;

import org.apache.log4j.FileAppender;
import org.apache.log4j.Level;
import org.apache.log4j.spi.LoggingEvent;

/**
 * driver.log's appender: log4j's FileAppender, flushed every {@link #FLUSH_MS} instead of after
 * each line. The driver writes two lines a task (assigned, succeeded), into the job directory on
 * the shared file system; log4j's default flush made each one a write(2) there, 13% of the
 * driver's CPU a dispatch in the scale bench (bench/README.md). A WARN or worse is flushed at
 * once with what came before it, as is everything at JVM exit (a shutdown hook: Ctrl-C, SIGTERM
 * and scancel run it), so a driver that is killed with SIGKILL loses at most the last
 * {@link #FLUSH_MS} of INFO lines. Used by HAM's rendered log4j.properties
 * (templates/log4j.properties.j2).
 */
public final class DriverLogAppender extends FileAppender {
  static final long FLUSH_MS = 200;

  private Thread flusher;

  @Override
  public synchronized void activateOptions() {
    super.activateOptions();
    if (flusher == null) {
      flusher = new Thread(this::flushEvery, "ham-driver-log");
      flusher.setDaemon(true);
      flusher.start();
      Runtime.getRuntime().addShutdownHook(new Thread(this::flush, "ham-driver-log-exit"));
    }
  }

  /** Called by log4j after each line, under the appender's lock. */
  @Override
  protected boolean shouldFlush(LoggingEvent event) {
    return event.getLevel().isGreaterOrEqual(Level.WARN);
  }

  /** What was appended reaches the file (called with or without log4j's lock held). */
  synchronized void flush() {
    if (qw != null) {
      qw.flush();
    }
  }

  private void flushEvery() {
    while (!closed) {
      try {
        TimeUnit.MILLISECONDS.sleep(FLUSH_MS);
      } catch (InterruptedException e) {
        return;
      }
      flush();
    }
  }
}
