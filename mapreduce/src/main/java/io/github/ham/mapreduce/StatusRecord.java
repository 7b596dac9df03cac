package io.github.ham.mapreduce;

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

/** Writes {@code status.json} atomically (temp file + rename). */
final class StatusRecord {
  private static final ObjectMapper JSON =
      new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  private StatusRecord() {
  }

  static Map<String, Object> counts(TaskScheduler.Counts c) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("total", c.total());
    m.put("completed", c.completed());
    m.put("failed", c.failedAttempts());
    m.put("running", c.running());
    return m;
  }

  static Map<String, Object> counters(Counters counters) {
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

  static List<Map<String, Object>> attempts(List<AttemptInfo.Snapshot> attempts,
      java.util.function.Function<AttemptKey, String> attemptId) {
    List<Map<String, Object>> out = new ArrayList<>();
    for (AttemptInfo.Snapshot a : attempts) {
      Map<String, Object> m = new LinkedHashMap<>();
      String id = attemptId.apply(a.key());
      m.put("id", id);
      m.put("task", id.replaceFirst("^attempt_", "task_").replaceFirst("_\\d+$", ""));
      m.put("type", a.key().isMap() ? "MAP" : "REDUCE");
      m.put("node", a.runner().contains("/") ? a.runner().substring(0, a.runner().indexOf('/'))
          : a.runner());
      m.put("state", a.state().name());
      m.put("start", a.start());
      m.put("finish", a.finish() == 0 ? null : a.finish());
      m.put("error", a.error());
      out.add(m);
    }
    return out;
  }

  static void write(File file, Map<String, Object> record) throws IOException {
    File dir = file.getParentFile();
    Files.createDirectories(dir.toPath());
    File tmp = new File(dir, "." + file.getName() + ".tmp");
    JSON.writeValue(tmp, record);
    Files.move(tmp.toPath(), file.toPath(), StandardCopyOption.REPLACE_EXISTING,
        StandardCopyOption.ATOMIC_MOVE);
  }
}
