package io.github.ham.mapreduce.history;

import java.io.Closeable;
import java.io.IOException;

import org.apache.avro.Schema;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DatumWriter;
import org.apache.avro.io.Encoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.specific.SpecificDatumWriter;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.mapreduce.TaskType;
import org.apache.hadoop.mapreduce.jobhistory.Event;
import org.apache.hadoop.mapreduce.jobhistory.EventType;
import org.apache.hadoop.mapreduce.jobhistory.HistoryEvent;
import org.apache.hadoop.mapreduce.jobhistory.TaskAttemptStartedEvent;

/**
 * A {@code .jhist} file: the same bytes as Hadoop's EventWriter in binary mode (its write
 * method is not public), readable by JobHistoryParser, the JobHistoryServer and
 * `mapred job -history`. A file cut short (the driver killed) still parses up to the cut.
 */
final class JhistWriter implements Closeable {
  /**
   * The file's buffer: the events of a few dozen tasks (an attempt's end carries its counters
   * twice, ~3 KB) between flushes. The history's file system is Hadoop's raw local one without
   * a site configuration, whose default buffer of 4 KB made about one write(2) a task.
   */
  static final int BUFFER_BYTES = 128 << 10;
  /** A history thread that is behind still flushes a task's end this often. */
  private static final long MAX_FLUSH_DELAY_NS = 1_000_000_000L;
  private boolean flushDue;
  private long flushedAt = System.nanoTime();
  private final FSDataOutputStream out;
  private final BinaryEncoder encoder;
  private final DatumWriter<Event> datum = new SpecificDatumWriter<>(Event.class) {
    @Override
    protected void writeRecord(Schema schema, Object record, Encoder out) throws IOException {
      if (record instanceof HistoryCounters.Encoded c) {
        out.writeFixed(c.bytes);  // a record's binary form is its fields' bytes, in order
      } else {
        super.writeRecord(schema, record, out);
      }
    }
  };

  JhistWriter(FSDataOutputStream out) throws IOException {
    this.out = out;
    out.writeBytes("Avro-Binary\n");  // EventWriter.VERSION_BINARY
    out.writeBytes(Event.SCHEMA$.toString());
    out.writeBytes("\n");
    this.encoder = EncoderFactory.get().binaryEncoder(out, null);
  }

  void write(HistoryEvent event) throws IOException {
    write(typeOf(event), event.getDatum());
  }

  /** What {@code e.getEventType()} says, without an attempt's start parsing its task's id. */
  static EventType typeOf(HistoryEvent e) {
    if (e instanceof TaskAttemptStartedEvent s) {
      return s.getTaskType() == TaskType.MAP ? EventType.MAP_ATTEMPT_STARTED
          : EventType.REDUCE_ATTEMPT_STARTED;
    }
    return e.getEventType();
  }

  /** An event of {@code type} in its Avro form (an event's datum, changed by the caller). */
  void write(EventType type, Object eventDatum) throws IOException {
    Event wrapper = new Event();
    wrapper.setType(type);
    wrapper.setEvent(eventDatum);
    datum.write(wrapper, encoder);
  }

  /** What is written so far reaches the file (a resume reads up to here). */
  void flush() throws IOException {
    encoder.flush();
    out.hflush();
    flushDue = false;
    flushedAt = System.nanoTime();
  }

  /**
   * A task's end was written: it reaches the file at the next {@link #flushIfDue} that finds
   * the writer caught up, one write for a burst of ends rather than one each (what a driver
   * killed meanwhile loses is what its queue held anyway).
   */
  void flushSoon() {
    flushDue = true;
  }

  /** Flushes a task's end written since the last flush, if {@code caughtUp} or 1 s old. */
  void flushIfDue(boolean caughtUp) throws IOException {
    if (flushDue && (caughtUp || System.nanoTime() - flushedAt > MAX_FLUSH_DELAY_NS)) {
      flush();
    }
  }

  @Override
  public void close() throws IOException {
    encoder.flush();
    out.close();
  }
}
