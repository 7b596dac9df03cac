package io.github.ham.mapreduce.driver;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

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

  private final File file;
  private long lastWrite;

  StatusRecord(File file) {
    this.file = file;
  }

  /** The record of {@code job}; {@code scheduler} is null before the job's tasks are known. */
  public static Map<String, Object> build(Job job, TaskScheduler scheduler, Counters counters,
      AttemptIds ids) {
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
    r.put("attempts", scheduler == null ? List.of() : attempts(scheduler.attempts(), ids));
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
      m.put("id", ids.attempt(a.key()).toString());
      m.put("task", ids.task(a.key().task()).toString());
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

  /** Writes the record now (job start and end); failures are logged, never thrown. */
  void write(Map<String, Object> record) {
    lastWrite = System.currentTimeMillis();
    try {
      if (!record.keySet().equals(new java.util.LinkedHashSet<>(JOB_FIELDS))) {
        throw new IllegalStateException("status record fields " + record.keySet()
            + " are not the declared " + JOB_FIELDS);
      }
      File dir = file.getParentFile();
      Files.createDirectories(dir.toPath());
      File tmp = new File(dir, "." + file.getName() + ".tmp");
      JSON.writeValue(tmp, record);
      Files.move(tmp.toPath(), file.toPath(), StandardCopyOption.REPLACE_EXISTING,
          StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException | RuntimeException e) {
      LOG.warn("Cannot write {}", file, e);
    }
  }

  /** Writes the record unless it was written less than {@link #INTERVAL_MS} ago. */
  void writeEvery(java.util.function.Supplier<Map<String, Object>> record) {
    if (System.currentTimeMillis() - lastWrite >= INTERVAL_MS) {
      write(record.get());
    }
  }

  File file() {
    return file;
  }
}
