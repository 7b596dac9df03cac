package io.github.ham.mapreduce.driver.report;

import java.io.IOException;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.nio.charset.Charset;
import java.util.concurrent.TimeUnit;

import org.apache.log4j.FileAppender;
import org.apache.log4j.Layout;
import org.apache.log4j.Level;
import org.apache.log4j.spi.ErrorCode;
import org.apache.log4j.spi.LoggingEvent;

/**
 * driver.log's appender: log4j's FileAppender, written every {@link #FLUSH_MS} instead of after
 * each line. The driver logs two lines a task (assigned, succeeded) into the job directory on
 * the shared file system; log4j's flush made each one a write(2) there. Writing them every
 * 200 ms took the driver's CPU a dispatch from 0.128 to 0.109 ms (medians of 3 alternated pairs,
 * bench/results/trials/driver-log-flush).
 *
 * <ul>
 * <li>Whole lines only, each flush in one write(2) to the file opened for appending: the
 * jobs of one session append to one driver.log, at once if the user runs them so, and no line
 * is cut by another JVM's (log4j's writer would write its buffer in 8 KB pieces).</li>
 * <li>A WARN or worse is written at once, with the lines before it.</li>
 * <li>From JVM exit on (a shutdown hook: Ctrl-C, SIGTERM and scancel run it) every line is
 * written at once, so the lines the driver's own shutdown hooks log are not lost; a driver
 * killed with SIGKILL loses at most the last {@link #FLUSH_MS} of INFO lines.</li>
 * </ul>
 * A layout's header and footer (PatternLayout has none) go through log4j's writer as before.
 * Used by HAM's rendered log4j.properties (templates/log4j.properties.j2) for a job's driver.
 */
public final class DriverLogAppender extends FileAppender {
  static final long FLUSH_MS = 200;
  /** Lines held beyond this many chars are written at once. */
  static final int MAX_PENDING = 64 * 1024;

  /** Lines appended and not yet written; guarded by this appender (log4j's lock). */
  private final StringBuilder pending = new StringBuilder();
  /** The file under log4j's writer, which lines go to directly. */
  private OutputStream file;
  private Charset charset = Charset.defaultCharset();
  private volatile boolean exiting;
  private Thread flusher;
  private Thread exitHook;

  @Override
  public synchronized void activateOptions() {
    super.activateOptions();
    if (flusher == null) {
      flusher = new Thread(this::flushEvery, "ham-driver-log");
      flusher.setDaemon(true);
      flusher.start();
      exitHook = new Thread(() -> {
        exiting = true;
        flush();
      }, "ham-driver-log-exit");
      try {
        Runtime.getRuntime().addShutdownHook(exitHook);
      } catch (IllegalStateException e) {
        exiting = true;  // configured while the JVM exits: nothing waits for the flusher
      }
    }
  }

  @Override
  protected OutputStreamWriter createWriter(OutputStream out) {
    OutputStreamWriter writer = super.createWriter(out);
    file = out;
    charset = Charset.forName(writer.getEncoding());
    return writer;
  }

  /** Called by log4j with the appender's lock held, as WriterAppender's own. */
  @Override
  protected void subAppend(LoggingEvent event) {
    pending.append(layout.format(event));
    if (layout.ignoresThrowable()) {
      String[] trace = event.getThrowableStrRep();
      if (trace != null) {
        for (String line : trace) {
          pending.append(line).append(Layout.LINE_SEP);
        }
      }
    }
    if (exiting || event.getLevel().isGreaterOrEqual(Level.WARN)
        || pending.length() >= MAX_PENDING) {
      flush();
    }
  }

  /** The lines appended so far reach the file, in one write. */
  synchronized void flush() {
    if (pending.length() == 0 || file == null) {
      return;
    }
    try {
      file.write(pending.toString().getBytes(charset));
    } catch (IOException e) {
      errorHandler.error("Cannot write driver.log", e, ErrorCode.WRITE_FAILURE);
    }
    pending.setLength(0);
  }

  /** Before log4j closes the file (close, or a new file set): what is held is written. */
  @Override
  protected void reset() {
    flush();
    file = null;
    super.reset();
  }

  @Override
  public synchronized void close() {
    super.close();
    if (exitHook != null && !exiting) {
      try {
        Runtime.getRuntime().removeShutdownHook(exitHook);
      } catch (IllegalStateException e) {
        // the JVM is exiting: the hook runs and finds nothing to write
      }
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
