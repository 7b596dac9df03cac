package io.github.ham.mapreduce.driver.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.ObjectMapper;

import org.apache.hadoop.mapred.JobID;
import org.apache.hadoop.mapreduce.Counters;
import org.apache.hadoop.mapreduce.TaskCounter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.github.ham.mapreduce.common.ids.AttemptKey;
import io.github.ham.mapreduce.driver.schedule.AttemptIds;
import io.github.ham.mapreduce.driver.schedule.SchedulingPolicy;
import io.github.ham.mapreduce.driver.schedule.TaskScheduler;

class StatusRecordTest {
  @TempDir
  Path tmp;

  @Test
  @SuppressWarnings("unchecked")
  void theFileWrittenIsTheRecordBuilt() throws Exception {
    JobID id = new JobID("1700000000000", 7);
    AttemptIds ids = new AttemptIds(id);
    TaskScheduler s = new TaskScheduler(3, 1, SchedulingPolicy.basic(4, 600_000, 30_000));
    AttemptKey m0 = s.assign("node1/g0-p0/11", 1000);
    AttemptKey m1 = s.assign("node2/g0-p1/12", 1000);
    s.failed(m0, "java.io.IOException: \"disk\" on fire\n\tat Foo.bar(Foo.java:1) \u00e9", 2000);
    s.succeeded(s.assign("node3/g0-p2/13", 3000), 6000);
    // a line longer than the writer's buffer of ASCII lines: written another way, the same
    s.failed(s.assign("node3/g0-p2/13", 7000), "java.io.IOException: " + "x".repeat(3000),
        8000);
    s.progress(m1, 0.5f, 9000);
    Counters counters = new Counters();
    counters.findCounter(TaskCounter.MAP_INPUT_RECORDS).increment(42);
    StatusRecord.Job job = new StatusRecord.Job(id.toString(), "word \"count\"", "alice",
        "RUNNING", 1, 0, null, "/out", true, 3, 1, List.of(4242L),
        new StatusRecord.Resume(1, 0, false));
    File file = tmp.resolve("status.json").toFile();
    StatusRecord record = new StatusRecord(file);
    ObjectMapper json = new ObjectMapper();
    for (TaskScheduler scheduler : new TaskScheduler[] {null, s}) {
      record.write(new StatusRecord.Content(job, scheduler, counters, ids));
      Map<String, Object> written = json.readValue(file, Map.class);
      Map<String, Object> built = json.readValue(json.writeValueAsBytes(
          StatusRecord.build(job, scheduler, counters, ids)), Map.class);
      assertEquals(built, written);
      assertEquals(StatusRecord.JOB_FIELDS, List.copyOf(written.keySet()));
    }
    List<String> lines = Files.readAllLines(file.toPath());
    assertTrue(lines.stream().filter(l -> l.trim().startsWith("{\"id\":")).count() == 4,
        "one line per attempt");
  }
}
