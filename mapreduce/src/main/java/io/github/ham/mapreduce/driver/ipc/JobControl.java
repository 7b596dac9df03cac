package io.github.ham.mapreduce.driver.ipc;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

import io.github.ham.mapreduce.common.ids.AttemptKey;
import io.github.ham.mapreduce.common.protocol.DriverControl;
import io.github.ham.mapreduce.common.protocol.HamTaskReport;
import io.github.ham.mapreduce.driver.report.JobCounters;
import io.github.ham.mapreduce.driver.report.JobEvents;
import io.github.ham.mapreduce.driver.schedule.AttemptIds;
import io.github.ham.mapreduce.driver.schedule.TaskScheduler;

import org.apache.hadoop.ipc.Server;
import org.apache.hadoop.mapred.TIPStatus;
import org.apache.hadoop.mapreduce.Counters;
import org.apache.hadoop.mapreduce.JobStatus;
import org.apache.hadoop.mapreduce.TaskAttemptID;
import org.apache.hadoop.mapreduce.TaskCompletionEvent;
import org.apache.hadoop.mapreduce.TaskReport;
import org.apache.hadoop.mapreduce.TaskType;
import org.apache.hadoop.security.AccessControlException;
import org.apache.hadoop.security.UserGroupInformation;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The running job as clients see it ({@link DriverControl}): in the submitting JVM directly,
 * and over the driver's IPC for callers holding the client token.
 */
public final class JobControl implements DriverControl {
  private static final Logger LOG = LoggerFactory.getLogger(JobControl.class);
  private final TaskScheduler scheduler;
  private final JobEvents events;
  private final JobCounters counters;
  private final AttemptIds ids;
  private final Supplier<JobStatus> status;
  private final Runnable kill;
  private final String clientIdentity;

  public JobControl(TaskScheduler scheduler, JobEvents events, JobCounters counters, AttemptIds ids,
      Supplier<JobStatus> status, Runnable kill, String clientIdentity) {
    this.scheduler = scheduler;
    this.events = events;
    this.counters = counters;
    this.ids = ids;
    this.status = status;
    this.kill = kill;
    this.clientIdentity = clientIdentity;
  }

  /** Over IPC only the client token's holder may call (a runner's job token may not). */
  private void authorize() throws IOException {
    UserGroupInformation caller = Server.getRemoteUser();
    if (caller != null && !caller.getUserName().equals(clientIdentity)) {
      throw new AccessControlException("HAM driver: " + caller.getUserName()
          + " may not control job " + ids.job());
    }
  }

  @Override
  public JobStatus getJobStatus() throws IOException {
    authorize();
    return status.get();
  }

  @Override
  public Counters getJobCounters() throws IOException {
    authorize();
    return new Counters(counters.total());
  }

  @Override
  public TaskCompletionEvent[] getTaskCompletionEvents(int from, int max) throws IOException {
    authorize();
    return events.events(from, max);
  }

  @Override
  public String[] getTaskDiagnostics(TaskAttemptID attempt) throws IOException {
    authorize();
    return events.diagnostics(attempt);
  }

  @Override
  public TaskReport[] getTaskReports(TaskType type) throws IOException {
    authorize();
    if (type != TaskType.MAP && type != TaskType.REDUCE) {
      return new TaskReport[0];
    }
    List<TaskReport> out = new ArrayList<>();
    for (TaskScheduler.TaskSnapshot t : scheduler.tasks(type == TaskType.MAP)) {
      AttemptKey shown = t.successful() != null ? t.successful()
          : t.running().isEmpty() ? null : t.running().get(0);
      List<TaskAttemptID> running = new ArrayList<>();
      for (AttemptKey a : t.running()) {
        running.add(ids.attempt(a));
      }
      out.add(new HamTaskReport(ids.task(t.key()), t.progress(), t.state(),
          t.errors().toArray(new String[0]), tipStatus(t.state()), t.start(), t.finish(),
          shown == null ? new Counters() : new Counters(counters.ofAttempt(shown)),
          t.successful() == null ? null : ids.attempt(t.successful()), running));
    }
    return out.toArray(new TaskReport[0]);
  }

  private static TIPStatus tipStatus(String state) {
    return switch (state) {
      case "SUCCEEDED" -> TIPStatus.COMPLETE;
      case "FAILED" -> TIPStatus.FAILED;
      case "RUNNING" -> TIPStatus.RUNNING;
      default -> TIPStatus.PENDING;
    };
  }

  @Override
  public void killJob() throws IOException {
    authorize();
    LOG.info("Job {} killed on request", ids.job());
    kill.run();
  }

  @Override
  public boolean killTask(TaskAttemptID attempt, boolean shouldFail) throws IOException {
    authorize();
    AttemptKey key = ids.keyOf(attempt);
    if (key == null) {
      return false;
    }
    long now = System.currentTimeMillis();
    // The runner learns it at its next status report (task not found) and ends the task, as
    // YARN kills the attempt's container.
    boolean wasRunning = scheduler.isActive(key);
    if (shouldFail) {
      scheduler.failed(key, "Task attempt " + attempt + " failed on request", now);
    } else {
      scheduler.killed(key, "Task attempt " + attempt + " killed on request", now);
    }
    if (wasRunning) {
      LOG.info("Attempt {} {} on request", attempt, shouldFail ? "failed" : "killed");
      events.ended(key);
      events.ended(scheduler.takeEnded());
    }
    return wasRunning;
  }
}
