package io.github.ham.mapreduce.history;

import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import io.github.ham.mapreduce.common.ids.RunnerId;
import io.github.ham.mapreduce.common.jobfiles.JobDirs;

import org.apache.avro.specific.SpecificRecordBase;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapreduce.Counters;
import org.apache.hadoop.mapreduce.JobID;
import org.apache.hadoop.mapreduce.MRJobConfig;
import org.apache.hadoop.mapreduce.TaskAttemptID;
import org.apache.hadoop.mapreduce.TaskID;
import org.apache.hadoop.mapreduce.TaskType;
import org.apache.hadoop.mapreduce.TypeConverter;
import org.apache.hadoop.mapreduce.jobhistory.AMStartedEvent;
import org.apache.hadoop.mapreduce.jobhistory.HistoryEvent;
import org.apache.hadoop.mapreduce.jobhistory.JhCounters;
import org.apache.hadoop.mapreduce.jobhistory.JobFinishedEvent;
import org.apache.hadoop.mapreduce.jobhistory.JobInfoChangeEvent;
import org.apache.hadoop.mapreduce.jobhistory.JobInitedEvent;
import org.apache.hadoop.mapreduce.jobhistory.JobSubmittedEvent;
import org.apache.hadoop.mapreduce.jobhistory.JobUnsuccessfulCompletionEvent;
import org.apache.hadoop.mapreduce.jobhistory.MapAttemptFinishedEvent;
import org.apache.hadoop.mapreduce.jobhistory.ReduceAttemptFinishedEvent;
import org.apache.hadoop.mapreduce.jobhistory.TaskAttemptStartedEvent;
import org.apache.hadoop.mapreduce.jobhistory.TaskAttemptUnsuccessfulCompletionEvent;
import org.apache.hadoop.mapreduce.jobhistory.TaskFailedEvent;
import org.apache.hadoop.mapreduce.jobhistory.TaskFinishedEvent;
import org.apache.hadoop.mapreduce.jobhistory.TaskStartedEvent;
import org.apache.hadoop.mapreduce.util.MRJobConfUtil;
import org.apache.hadoop.mapreduce.jobhistory.JobHistoryParser.AMInfo;
import org.apache.hadoop.mapreduce.v2.jobhistory.JobIndexInfo;
import org.apache.hadoop.yarn.api.records.ApplicationAttemptId;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The job's history in Hadoop's own format, as the MRAppMaster's JobHistoryEventHandler writes
 * it: {@code history/<jobid>_<run>.jhist} and {@code <jobid>_<run>_conf.xml} while the job runs,
 * and, once it has ended, the three files a JobHistoryServer picks up ({@code <done name>.jhist},
 * {@code <jobid>_conf.xml}, {@code <jobid>.summary}) in {@code history/done/}, which
 * `ham history-server` publishes. Without YARN the application attempt is the run (1, or the
 * resume's number) and each attempt has a container of its own, as on YARN (numbered as it
 * starts; 1 is the driver's); when the job has ended, the attempts' logs are written in YARN's
 * aggregated format as those containers' ({@link AggregatedLogs}). Events are written by one
 * thread; a failure to write history or logs is logged and never fails the job.
 */
public final class JobHistoryLog {
  private static final Logger LOG = LoggerFactory.getLogger(JobHistoryLog.class);
  /** Written as ports: no NodeManager web server (-1 keeps `-history -format json` working). */
  private static final int NO_PORT = -1;
  private static final String RACK = "/default-rack";
  public static final String DONE = "done";

  private final JobID id;
  private final JobConf conf;
  private final JobDirs dirs;
  private final File dir;
  private final String user;
  private final int run;
  private final ApplicationAttemptId appAttempt;
  /** The history's thread: a task's end is flushed once it has caught up. */
  private final PacedWorker writer = new PacedWorker("ham-history");
  private final FileSystem fs;
  private final Set<TaskID> started = new HashSet<>();
  /** The attempt each ended task ended with (a map may end again after its output is lost). */
  private final Map<TaskID, TaskAttemptID> ended = new HashMap<>();
  private final Map<TaskID, Long> startTimes = new HashMap<>();
  /** Each attempt in the file, with the container and node its events name. */
  private final Map<TaskAttemptID, AggregatedLogs.Attempt> attempts = new LinkedHashMap<>();
  private long nextContainer = 2;
  /** Where the attempts' logs go when the job has ended. */
  private AggregatedLogs logs;
  private JhistWriter out;
  private final HistoryCounters avro = new HistoryCounters();
  private final NamedIds named;  // the ids events print, named once
  private long submitTime;
  private long launchTime;
  private long firstMapLaunch;
  private long firstReduceLaunch;

  public JobHistoryLog(JobID id, JobConf conf, JobDirs dirs, String user, int run)
      throws IOException {
    this.id = id;
    this.conf = conf;
    this.dirs = dirs;
    this.dir = dirs.history();
    this.user = user;
    this.run = run;
    this.named = new NamedIds(id);
    this.appAttempt = ApplicationAttemptId.newInstance(ApplicationId.newInstance(
        Long.parseLong(id.getJtIdentifier()), id.getId()), run);
    // Raw: no .crc beside a file that grows (a stale one would fail the next read).
    this.fs = FileSystem.getLocal(new Configuration(false)).getRaw();
  }

  /**
   * The job's published history ({@code history/done/*.jhist}): none until the job has ended
   * (its aggregated logs are written before it is published).
   */
  public static File[] published(JobDirs dirs) {
    File[] found = new File(dirs.history(), DONE).listFiles((d, name) -> name.endsWith(".jhist"));
    return found == null ? new File[0] : found;
  }

  /** The history file of this run. */
  public File jhist() {
    return HistoryFiles.jhist(dir, id.toString(), run);
  }

  private void submit(String what, IoAction action) {
    try {
      writer.execute(() -> {
        try {
          action.run();
          if (out != null) {
            out.flushIfDue(writer.isIdle());
          }
        } catch (IOException | RuntimeException | LinkageError e) {
          LOG.warn("Job history of {}: cannot write {}: {}", id, what, e.toString());
        }
      });
    } catch (RejectedExecutionException e) {
      // The caller must not fail for it (an IPC handler): the history has already ended.
      LOG.info("Job history of {} already ended: {} not written", id, what);
    }
  }

  private interface IoAction {
    void run() throws IOException;
  }

  private void write(HistoryEvent e) throws IOException {
    if (out != null) {
      out.write(e);
    }
  }

  /**
   * Writes {@code e}, made with no counters, with {@code counters} (converted by
   * {@link HistoryCounters}, not by the event) in its datum's {@code counters} field.
   */
  private void write(HistoryEvent e, JhCounters counters) throws IOException {
    if (out != null) {
      SpecificRecordBase datum = (SpecificRecordBase) e.getDatum();
      datum.put("counters", counters);
      out.write(e.getEventType(), datum);
    }
  }

  /**
   * The job was submitted and its tasks are known: the file starts, with the earlier runs'
   * driver attempts first (a resumed run; as the MRAppMaster's attempt N lists attempts 1..N-1).
   */
  public void submitted(long submitTime, long launchTime, int maps, int reduces,
      List<AMInfo> earlierRuns) {
    this.submitTime = submitTime;
    this.launchTime = launchTime;
    submit("the job's start", () -> {
      fs.mkdirs(new Path(dir.getPath()));
      JobConf redacted = new JobConf(conf);
      MRJobConfUtil.redact(redacted);
      try (OutputStream o = fs.create(new Path(dir.getPath(), id + "_" + run + "_conf.xml"),
          true)) {
        redacted.writeXml(o);
      }
      out = new JhistWriter(fs.create(new Path(jhist().getPath()), true,
          JhistWriter.BUFFER_BYTES));
      String host = InetAddress.getLocalHost().getHostName();
      for (AMInfo r : earlierRuns) {
        write(new AMStartedEvent(r.getAppAttemptId(), r.getStartTime(), r.getContainerId(),
            r.getNodeManagerHost(), NO_PORT, NO_PORT, submitTime));
      }
      write(new AMStartedEvent(appAttempt, System.currentTimeMillis(),
          ContainerId.newContainerId(appAttempt, 1), host, NO_PORT, NO_PORT, submitTime));
      write(new JobSubmittedEvent(id, conf.getJobName(), user, submitTime,
          new File(dir.getParentFile(), "job.xml").toURI().toString(), new HashMap<>(),
          conf.get(MRJobConfig.QUEUE_NAME, "default"), conf.get(MRJobConfig.WORKFLOW_ID, ""),
          conf.get(MRJobConfig.WORKFLOW_NAME, ""), conf.get(MRJobConfig.WORKFLOW_NODE_NAME, ""),
          "", conf.get(MRJobConfig.WORKFLOW_TAGS, "")));
      write(new JobInitedEvent(id, launchTime, maps, reduces, "INITED", false));
      write(new JobInfoChangeEvent(id, submitTime, launchTime));
      out.flush();
    });
  }

  /**
   * A task an earlier run finished, kept by this one: its events are written again with their
   * first times, container and counters, so that this run's file tells the whole job (as the
   * MRAppMaster's recovery writes them); {@code container} null: one of this run.
   */
  public void recovered(TaskAttemptID attempt, String node, ContainerId container,
      long taskStart, long start, long finish, Counters taskCounters) {
    submit("a recovered task", () -> {
      JhCounters counters = avro.encoded(avro.toAvro(taskCounters));
      TaskID task = attempt.getTaskID();
      TaskAttemptID a = named.attempt(attempt);
      started.add(task);
      startTimes.put(task, taskStart);
      write(new TaskStartedEvent(a.getTaskID(), taskStart, task.getTaskType(), ""));
      write(new TaskAttemptStartedEvent(a, task.getTaskType(), start, node, NO_PORT,
          NO_PORT, container(attempt, a, node, container), "OFF_SWITCH", "VIRGIN"));
      write(attemptEnd(a, "SUCCEEDED", node, start, finish, null), counters);
      ended.put(task, attempt);
      write(new TaskFinishedEvent(a.getTaskID(), a, finish, task.getTaskType(), "SUCCEEDED",
          null, taskStart), counters);
    });
  }

  /**
   * The job stopped before it finished (it may be resumed): what is written so far is kept,
   * without a final event and without publishing, as the MRAppMaster leaves a killed attempt's
   * file for the next attempt to read.
   */
  public void stopped() {
    submit("the job's stop", () -> {
      if (out != null) {
        out.close();
        out = null;
      }
    });
    writer.shutdown();
    written();
  }

  /** A runner took an attempt: its task starts with its first attempt. */
  public void attemptStarted(TaskAttemptID attempt, String runnerId, long start,
      boolean speculative) {
    submit("an attempt's start", () -> {
      TaskID task = attempt.getTaskID();
      TaskAttemptID a = named.attempt(attempt);
      if (started.add(task)) {
        startTimes.put(task, start);
        write(new TaskStartedEvent(a.getTaskID(), start, task.getTaskType(), ""));
      }
      if (task.getTaskType() == TaskType.MAP && firstMapLaunch == 0) {
        firstMapLaunch = start;
      } else if (task.getTaskType() == TaskType.REDUCE && firstReduceLaunch == 0) {
        firstReduceLaunch = start;
      }
      String node = RunnerId.nodeOf(runnerId);
      write(new TaskAttemptStartedEvent(a, task.getTaskType(), start, node, NO_PORT,
          NO_PORT, container(attempt, a, node, null), "OFF_SWITCH",
          speculative ? "SPECULATIVE" : "VIRGIN"));
    });
  }

  /** An attempt's container: {@code given} (a recovered attempt's), else this run's next. */
  private ContainerId container(TaskAttemptID attempt, TaskAttemptID named, String node,
      ContainerId given) {
    ContainerId c = given != null ? given : ContainerId.newContainerId(appAttempt,
        nextContainer++);
    attempts.put(attempt, new AggregatedLogs.Attempt(named.toString(), c, node));
    return c;
  }

  /**
   * An attempt ended (SUCCEEDED, FAILED or KILLED). Its counters are asked for in the history's
   * own thread (turning them into the events' form is not the caller's cost).
   */
  public void attemptEnded(TaskAttemptID attempt, String state, String node, long start,
      long finish, String error, Supplier<IndexedCounters> attemptCounters) {
    submit("an attempt's end", () -> {
      if (!started.contains(attempt.getTaskID())) {
        return;  // never started in this file (cannot happen; the HS would fail on it)
      }
      write(attemptEnd(named.attempt(attempt), state, node, start, finish, error),
          avro.of(attemptCounters));
    });
  }

  /** The event of an attempt's end in {@code state}, made with no counters. */
  private static HistoryEvent attemptEnd(TaskAttemptID a, String state, String node,
      long start, long finish, String error) {
    TaskType type = a.getTaskType();
    if (!state.equals("SUCCEEDED")) {
      return new TaskAttemptUnsuccessfulCompletionEvent(a, type, state, finish, node, NO_PORT,
          RACK, error == null ? "" : error, null, null, start);
    }
    return type == TaskType.MAP
        ? new MapAttemptFinishedEvent(a, type, state, finish, finish, node, NO_PORT, RACK,
            "map", null, null, start)
        : new ReduceAttemptFinishedEvent(a, type, state, finish, finish, finish, node, NO_PORT,
            RACK, "reduce", null, null, start);
  }

  /**
   * A task ended: SUCCEEDED with {@code attempt}, or FAILED (used up its attempts) or KILLED
   * (the job ended first), the last attempt being {@code attempt}. Flushed once the history thread
   * has caught up (at least once a second): once a task's end is in the file, a resume need not
   * run it again.
   */
  public void taskEnded(TaskID task, String state, TaskAttemptID attempt, long finish,
      String error, Supplier<IndexedCounters> taskCounters) {
    submit("a task's end", () -> {
      if (!started.contains(task) || (ended.containsKey(task)
          && java.util.Objects.equals(ended.get(task), attempt))) {
        return;
      }
      ended.put(task, attempt);
      long start = startTimes.getOrDefault(task, finish);
      TaskID t = named.task(task);
      TaskAttemptID a = named.attempt(attempt);
      if (state.equals("SUCCEEDED")) {
        write(new TaskFinishedEvent(t, a, finish, task.getTaskType(), state,
            null, start), avro.of(taskCounters));
      } else {
        write(new TaskFailedEvent(t, finish, task.getTaskType(), error == null ? "" : error,
            state, a, null, start), avro.of(taskCounters));
      }
      if (out != null) {
        out.flushSoon();
      }
    });
  }

  /**
   * The job ended in {@code state} (SUCCEEDED, FAILED, KILLED): the last events, then the files
   * a JobHistoryServer reads, in history/done/, then the attempts' logs in YARN's aggregated
   * format (their application directory is made before the files are published, so a history
   * server that takes the job finds it). Written in the history's thread: {@link #written}
   * waits for it, before anyone is told the job ended (the JVM may exit as soon as that is
   * known).
   */
  public void jobEnded(String state, long finish, JobTotals t, List<String> diagnostics,
      List<TaskID> unfinished) {
    submit("the job's end", () -> {
      for (TaskID task : unfinished) {
        if (started.contains(task) && !ended.containsKey(task)) {
          ended.put(task, null);
          write(new TaskFailedEvent(task, finish, task.getTaskType(), "the job ended", "KILLED",
              null, new Counters(), startTimes.getOrDefault(task, finish)));
        }
      }
      if (state.equals("SUCCEEDED")) {
        write(new JobFinishedEvent(id, finish, t.succeeded()[0], t.succeeded()[1], t.failed()[0],
            t.failed()[1], t.killed()[0], t.killed()[1], t.maps(), t.reduces(), t.total()));
      } else {
        write(new JobUnsuccessfulCompletionEvent(id, finish, t.succeeded()[0], t.succeeded()[1],
            t.failed()[0], t.failed()[1], t.killed()[0], t.killed()[1], state, diagnostics));
      }
      if (out != null) {
        out.close();
        out = null;
      }
      logs = AggregatedLogs.forJob(dirs, appAttempt.getApplicationId(), user, NO_PORT, conf);
      publish(state, finish, t);
    });
    submit("the attempts' logs", () -> {
      if (logs != null) {
        logs.write(dirs, attempts.values());
      }
    });
    writer.shutdown();
  }

  /** Waits (up to 30 s) until what {@link #jobEnded} said is written. */
  public void written() {
    try {
      if (!writer.awaitTermination(30, TimeUnit.SECONDS)) {
        LOG.warn("Job history of {} not complete after 30 s", id);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** history/done/ ({@link DoneFiles}). */
  private void publish(String state, long finish, JobTotals t) throws IOException {
    JobIndexInfo index = new JobIndexInfo(submitTime, finish, user, conf.getJobName(),
        TypeConverter.toYarn(id), t.succeeded()[0], t.succeeded()[1], state,
        conf.get(MRJobConfig.QUEUE_NAME, "default"));
    index.setJobStartTime(launchTime);
    DoneFiles.publish(fs, new File(dir, DONE), id, jhist(),
        new File(dir, id + "_" + run + "_conf.xml"), index,
        JobSummary.line(id, submitTime, launchTime, firstMapLaunch, firstReduceLaunch, finish,
            conf, t, user, state), conf.getInt("mapreduce.jobhistory.jobname.limit", 50));
  }
}
