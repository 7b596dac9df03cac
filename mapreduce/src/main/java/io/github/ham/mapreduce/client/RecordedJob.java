package io.github.ham.mapreduce.client;

import java.io.File;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.github.ham.mapreduce.common.protocol.DriverControl;
import io.github.ham.mapreduce.common.protocol.HamTaskReport;

import org.apache.hadoop.mapred.HamBridge;
import org.apache.hadoop.mapred.JobID;
import org.apache.hadoop.mapred.TIPStatus;
import org.apache.hadoop.mapred.TaskID;
import org.apache.hadoop.mapreduce.Counters;
import org.apache.hadoop.mapreduce.JobStatus;
import org.apache.hadoop.mapreduce.TaskAttemptID;
import org.apache.hadoop.mapreduce.TaskCompletionEvent;
import org.apache.hadoop.mapreduce.TaskReport;
import org.apache.hadoop.mapreduce.TaskType;

/**
 * A job as its status record (status.json) tells it: how clients see a job whose driver has
 * ended (or cannot be reached). It cannot be killed any more.
 */
final class RecordedJob implements DriverControl {
  private static final ObjectMapper JSON = new ObjectMapper();
  private final JsonNode record;
  private final File jobConf;

  RecordedJob(File status, File jobConf) throws IOException {
    this.record = JSON.readTree(status);
    this.jobConf = jobConf;
  }

  private long time(String field) {
    JsonNode n = record.get(field);
    return n == null || n.isNull() ? 0 : n.asLong();
  }

  @Override
  public JobStatus getJobStatus() {
    JsonNode errors = record.path("errors");
    String state = record.path("state").asText("PREP");
    return HamBridge.jobStatus(JobID.forName(record.path("job_id").asText()), 1.0f,
        (float) record.path("map_progress").asDouble(),
        (float) record.path("reduce_progress").asDouble(),
        isTerminal(state) ? 1.0f : 0.0f, JobStatus.State.valueOf(state).getValue(),
        record.path("user").asText(), record.path("name").asText(), jobConf.getPath(),
        time("start_time"), time("finish_time"),
        errors.size() > 0 ? errors.get(0).asText() : null, "");
  }

  private static boolean isTerminal(String state) {
    return state.equals("SUCCEEDED") || state.equals("FAILED") || state.equals("KILLED");
  }

  @Override
  public Counters getJobCounters() {
    Counters counters = new Counters();
    record.path("counters").fields().forEachRemaining(group -> group.getValue().fields()
        .forEachRemaining(c -> counters.findCounter(group.getKey(), c.getKey())
            .setValue(c.getValue().asLong())));
    return counters;
  }

  @Override
  public TaskCompletionEvent[] getTaskCompletionEvents(int from, int max) {
    List<TaskCompletionEvent> out = new ArrayList<>();
    for (JsonNode a : record.path("attempts")) {
      String state = a.path("state").asText();
      if (state.equals("RUNNING")) {
        continue;
      }
      TaskAttemptID id = TaskAttemptID.forName(a.path("id").asText());
      out.add(new TaskCompletionEvent(out.size(), id, id.getTaskID().getId(),
          id.getTaskType() == TaskType.MAP, TaskCompletionEvent.Status.valueOf(state), ""));
    }
    return out.subList(Math.min(from, out.size()), Math.min(out.size(), from + max))
        .toArray(new TaskCompletionEvent[0]);
  }

  @Override
  public String[] getTaskDiagnostics(TaskAttemptID attempt) {
    for (JsonNode a : record.path("attempts")) {
      if (a.path("id").asText().equals(attempt.toString()) && !a.path("error").isNull()) {
        return new String[] {a.path("error").asText()};
      }
    }
    return new String[0];
  }

  @Override
  public TaskReport[] getTaskReports(TaskType type) {
    Map<String, List<JsonNode>> byTask = new LinkedHashMap<>();
    for (JsonNode a : record.path("attempts")) {
      if (a.path("type").asText().equals(type.name())) {
        byTask.computeIfAbsent(a.path("task").asText(), k -> new ArrayList<>()).add(a);
      }
    }
    List<TaskReport> out = new ArrayList<>();
    for (Map.Entry<String, List<JsonNode>> t : byTask.entrySet()) {
      TaskAttemptID successful = null;
      List<String> errors = new ArrayList<>();
      long start = Long.MAX_VALUE;
      long finish = 0;
      for (JsonNode a : t.getValue()) {
        start = Math.min(start, a.path("start").asLong());
        finish = Math.max(finish, a.path("finish").asLong());
        if (a.path("state").asText().equals("SUCCEEDED")) {
          successful = TaskAttemptID.forName(a.path("id").asText());
        }
        if (!a.path("error").isNull()) {
          errors.add(a.path("error").asText());
        }
      }
      String state = successful != null ? "SUCCEEDED" : "FAILED";
      out.add(new HamTaskReport(TaskID.forName(t.getKey()), successful != null ? 1.0f : 0f,
          state, errors.toArray(new String[0]),
          successful != null ? TIPStatus.COMPLETE : TIPStatus.FAILED, start, finish,
          new Counters(), successful, List.of()));
    }
    return out.toArray(new TaskReport[0]);
  }

  @Override
  public void killJob() throws IOException {
    throw new IOException("job " + record.path("job_id").asText() + " has ended ("
        + record.path("state").asText() + "): there is nothing to kill");
  }

  @Override
  public boolean killTask(TaskAttemptID attempt, boolean shouldFail) {
    return false;
  }
}
