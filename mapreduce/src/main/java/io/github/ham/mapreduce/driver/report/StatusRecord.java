package io.github.ham.mapreduce.driver.report;

import java.io.BufferedOutputStream;
import java.io.File;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.github.ham.mapreduce.driver.schedule.AttemptIds;
import io.github.ham.mapreduce.driver.schedule.AttemptInfo;
import io.github.ham.mapreduce.driver.schedule.TaskScheduler;

import com.fasterxml.jackson.core.io.JsonStringEncoder;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;

import org.apache.hadoop.mapreduce.Counter;
import org.apache.hadoop.mapreduce.CounterGroup;
import org.apache.hadoop.mapreduce.Counters;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The job's status record, {@code status.json}: what `ham status`, `ham report` and `ham run`
 * read about a job while it runs and after it ended. Its fields are a contract with the
 * launcher (launcher/ham/contract.py, checked by tests/unit/test_contract.py): a record with
 * other fields is refused here, so the writer cannot drift from the declared lists.
 *
 * <p>Its cost grows with the job's attempts (every attempt is in it, one per line): the driver
 * writes it every {@link #INTERVAL_MS}, or less often when a write takes longer than 1/20th
 * of that (so that it never takes more than 5% of a core), the attempts written straight
 * from the scheduler's snapshot, not through maps.
 */
public final class StatusRecord {
  private static final Logger LOG = LoggerFactory.getLogger(StatusRecord.class);
  public static final List<String> JOB_FIELDS = List.of("job_id", "name", "user", "state",
      "map_progress", "reduce_progress", "maps", "reduces", "start_time", "finish_time",
      "counters", "attempts", "errors", "runners", "runner_launches", "output_dir",
      "output_created", "launcher_pids", "run", "recovered", "resumable");
  /** The fields of "maps" and "reduces". */
  public static final List<String> COUNT_FIELDS = List.of("total", "completed", "failed",
      "running");
  /** The fields of each element of "attempts". */
  public static final List<String> ATTEMPT_FIELDS = List.of("id", "task", "type", "node",
      "state", "start", "finish", "error");
  /** Minimum interval between two writes while the job runs. */
  static final long INTERVAL_MS = 2_000L;
  /** A write is followed by at least this many times its duration before the next. */
  static final int INTERVAL_PER_WRITE_TIME = 20;
  /** How the empty attempts list of the head looks once serialized (its place in the file). */
  private static final String NO_ATTEMPTS = "\n  \"attempts\" : [ ]";
  private static final ObjectMapper JSON =
      new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  /** What the record says about the job apart from its tasks. */
  public record Job(String id, String name, String user, String state, long start, long finish,
      String failure, String outputDir, boolean outputCreated, int runners, int launches,
      List<Long> launcherPids, Resume resume) {
  }

  /**
   * The job's runs: which one this is (1, then 2 for the first resume...), how many tasks it
   * took over from earlier runs, and whether it stopped in a way `ham submit --resume` continues.
   */
  public record Resume(int run, int recovered, boolean resumable) {
  }

  /**
   * What a record is made of: the job's facts, its scheduler (null before its tasks are
   * known), its counters and the job's ids.
   */
  public record Content(Job job, TaskScheduler scheduler, Counters counters, AttemptIds ids) {
  }

  private final File file;
  private long lastWrite;
  private long lastWriteMs;

  public StatusRecord(File file) {
    this.file = file;
  }

  /** The record of {@code job}; {@code scheduler} is null before the job's tasks are known. */
  public static Map<String, Object> build(Job job, TaskScheduler scheduler, Counters counters,
      AttemptIds ids) {
    Map<String, Object> r = head(job, scheduler, counters);
    r.put("attempts", scheduler == null ? List.of() : attempts(scheduler.attempts(), ids));
    return r;
  }

  /** The record without its attempts (an empty list in their place). */
  private static Map<String, Object> head(Job job, TaskScheduler scheduler, Counters counters) {
    Map<String, Object> r = new LinkedHashMap<>();
    r.put("job_id", job.id());
    r.put("name", job.name());
    r.put("user", job.user());
    r.put("state", job.state());
    TaskScheduler.Counts maps = scheduler == null ? null : scheduler.counts(true);
    TaskScheduler.Counts reduces = scheduler == null ? null : scheduler.counts(false);
    r.put("map_progress", maps == null ? 0f : maps.progress());
    r.put("reduce_progress", reduces == null ? 0f : reduces.progress());
    r.put("maps", counts(maps));
    r.put("reduces", counts(reduces));
    r.put("start_time", job.start());
    r.put("finish_time", job.finish() == 0 ? null : job.finish());
    r.put("counters", counters(counters));
    r.put("attempts", List.of());
    r.put("errors", job.failure() == null ? List.of() : List.of(job.failure()));
    r.put("runners", job.runners());
    r.put("runner_launches", job.launches());
    r.put("output_dir", job.outputDir());
    r.put("output_created", job.outputCreated());
    r.put("launcher_pids", job.launcherPids());
    r.put("run", job.resume().run());
    r.put("recovered", job.resume().recovered());
    r.put("resumable", job.resume().resumable());
    return r;
  }

  private static Map<String, Object> counts(TaskScheduler.Counts c) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("total", c == null ? 0 : c.total());
    m.put("completed", c == null ? 0 : c.completed());
    m.put("failed", c == null ? 0 : c.failedAttempts());
    m.put("running", c == null ? 0 : c.running());
    return m;
  }

  private static Map<String, Object> counters(Counters counters) {
    Map<String, Object> out = new LinkedHashMap<>();
    if (counters == null) {
      return out;
    }
    for (CounterGroup g : counters) {
      Map<String, Object> group = new LinkedHashMap<>();
      for (Counter c : g) {
        group.put(c.getName(), c.getValue());
      }
      out.put(g.getName(), group);
    }
    return out;
  }

  private static List<Map<String, Object>> attempts(List<AttemptInfo.Snapshot> attempts,
      AttemptIds ids) {
    List<Map<String, Object>> out = new ArrayList<>();
    for (AttemptInfo.Snapshot a : attempts) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("id", ids.attemptName(a.key()));
      m.put("task", ids.taskName(a.key().task()));
      m.put("type", a.key().isMap() ? "MAP" : "REDUCE");
      int slash = a.runner().indexOf('/');
      m.put("node", slash >= 0 ? a.runner().substring(0, slash) : a.runner());
      m.put("state", a.state().name());
      m.put("start", a.start());
      m.put("finish", a.finish() == 0 ? null : a.finish());
      m.put("error", a.error());
      out.add(m);
    }
    return out;
  }

  /**
   * Writes the record now (job start and end; {@link #writeEvery} while it runs): the head as
   * {@link #build} makes it, then the attempts, one per line. Failures are logged, never
   * thrown.
   */
  public void write(Content c) {
    long t0 = System.nanoTime();
    try {
      Map<String, Object> head = head(c.job(), c.scheduler(), c.counters());
      if (!head.keySet().equals(new java.util.LinkedHashSet<>(JOB_FIELDS))) {
        throw new IllegalStateException("status record fields " + head.keySet()
            + " are not the declared " + JOB_FIELDS);
      }
      String text = JSON.writeValueAsString(head);
      int at = text.indexOf(NO_ATTEMPTS);
      if (at < 0) {
        throw new IllegalStateException("no attempts list in " + text);
      }
      List<AttemptInfo.Snapshot> attempts = c.scheduler() == null ? List.of()
          : c.scheduler().attempts();
      File dir = file.getParentFile();
      Files.createDirectories(dir.toPath());
      File tmp = new File(dir, "." + file.getName() + ".tmp");
      // Bytes, not a Writer, and no String a line: a Writer copies each line into chars and
      // encodes them back, 40% of a write's CPU in a profile of a 60,000-map job, and the
      // lines' Strings and bytes were a tenth of the driver's allocation.
      try (OutputStream w = new BufferedOutputStream(new FileOutputStream(tmp), 1 << 16)) {
        w.write(utf8(text.substring(0, at)));
        w.write(utf8("\n  \"attempts\" : ["));
        StringBuilder line = new StringBuilder(256);
        byte[] bytes = new byte[1024];
        for (int i = 0; i < attempts.size(); i++) {
          line.setLength(0);
          line.append(i == 0 ? "\n    " : ",\n    ");
          attemptLine(line, attempts.get(i), c.ids());
          writeLine(w, line, bytes);
        }
        w.write(utf8(attempts.isEmpty() ? " ]" : "\n  ]"));
        w.write(utf8(text.substring(at + NO_ATTEMPTS.length())));
      }
      Files.move(tmp.toPath(), file.toPath(), StandardCopyOption.REPLACE_EXISTING,
          StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException | RuntimeException e) {
      LOG.warn("Cannot write {}", file, e);
    }
    lastWrite = System.currentTimeMillis();
    lastWriteMs = (System.nanoTime() - t0) / 1_000_000;
  }

  /**
   * Writes the record unless it was written less than {@link #INTERVAL_MS} ago, or less than
   * {@link #INTERVAL_PER_WRITE_TIME} times the last write's duration.
   */
  public void writeEvery(java.util.function.Supplier<Content> record) {
    if (System.currentTimeMillis() - lastWrite >= Math.max(INTERVAL_MS,
        INTERVAL_PER_WRITE_TIME * lastWriteMs)) {
      write(record.get());
    }
  }

  /** One attempt as one JSON object, the fields of {@link #ATTEMPT_FIELDS} in their order. */
  private static void attemptLine(StringBuilder b, AttemptInfo.Snapshot a, AttemptIds ids) {
    int slash = a.runner().indexOf('/');
    // Hadoop's ids: letters, digits and '_', nothing to quote.
    ids.appendAttemptName(b.append("{\"id\":\""), a.key()).append('"');
    ids.appendTaskName(b.append(",\"task\":\""), a.key().task()).append('"');
    b.append(",\"type\":").append(a.key().isMap() ? "\"MAP\"" : "\"REDUCE\"");
    b.append(",\"node\":");
    string(b, slash >= 0 ? a.runner().substring(0, slash) : a.runner());
    b.append(",\"state\":");
    string(b, a.state().name());
    b.append(",\"start\":").append(a.start());
    b.append(",\"finish\":");
    if (a.finish() == 0) {
      b.append("null");
    } else {
      b.append(a.finish());
    }
    b.append(",\"error\":");
    string(b, a.error());
    b.append('}');
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /** {@code line} as UTF-8: through {@code bytes} if it is ASCII and fits, as nearly all are. */
  private static void writeLine(OutputStream out, CharSequence line, byte[] bytes)
      throws IOException {
    int n = line.length();
    if (n <= bytes.length) {
      int i = 0;
      for (char c; i < n && (c = line.charAt(i)) < 0x80; i++) {
        bytes[i] = (byte) c;
      }
      if (i == n) {
        out.write(bytes, 0, n);
        return;
      }
    }
    out.write(utf8(line.toString()));  // an error's text beyond ASCII, or a long one
  }

  private static void string(StringBuilder b, String s) {
    if (s == null) {
      b.append("null");
      return;
    }
    b.append('"');
    if (plain(s)) {
      b.append(s);  // ids, states, node names: nothing to escape, nothing to copy twice
    } else {
      b.append(JsonStringEncoder.getInstance().quoteAsString(s));
    }
    b.append('"');
  }

  /** Whether {@code s} stands in a JSON string as it is (no quote, backslash or control). */
  private static boolean plain(String s) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c < 0x20 || c == '"' || c == '\\' || c >= 0x7f) {
        return false;
      }
    }
    return true;
  }

  public File file() {
    return file;
  }
}
