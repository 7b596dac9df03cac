package io.github.ham.mapreduce.driver.ipc;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

import io.github.ham.mapreduce.common.ids.AttemptKey;
import io.github.ham.mapreduce.common.protocol.BadMapOutput;
import io.github.ham.mapreduce.common.protocol.RunnerSupport;
import io.github.ham.mapreduce.common.protocol.RunnerUmbilical;
import io.github.ham.mapreduce.common.protocol.TaskEnds;
import io.github.ham.mapreduce.driver.launch.RunnerTracker;
import io.github.ham.mapreduce.driver.report.JobCounters;
import io.github.ham.mapreduce.driver.report.JobEvents;
import io.github.ham.mapreduce.driver.schedule.AttemptIds;
import io.github.ham.mapreduce.driver.schedule.RunnerKind;
import io.github.ham.mapreduce.driver.schedule.TaskScheduler;

import org.apache.hadoop.io.BytesWritable;
import org.apache.hadoop.io.ObjectWritable;
import org.apache.hadoop.ipc.Server;
import org.apache.hadoop.mapred.AMFeedback;
import org.apache.hadoop.mapred.HamUmbilicalBase;
import org.apache.hadoop.mapred.JobID;
import org.apache.hadoop.mapred.JvmTask;
import org.apache.hadoop.mapred.MapTaskCompletionEventsUpdate;
import org.apache.hadoop.mapred.TaskAttemptID;
import org.apache.hadoop.mapred.TaskCompletionEvent;
import org.apache.hadoop.mapred.TaskID;
import org.apache.hadoop.mapred.TaskStatus;
import org.apache.hadoop.mapreduce.checkpoint.TaskCheckpointID;
import org.apache.hadoop.security.AccessControlException;
import org.apache.hadoop.security.UserGroupInformation;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The driver's side of the umbilical: hands out tasks and turns the runners' reports into
 * scheduler decisions, completion events and counters. Only callers authenticated with the job
 * token are served. A runner asking for a task when there is none for it is held until there
 * is ({@link WaitingRunners}). It may serve before the job is submitted (runners started early,
 * while the client still stages the job: {@link DriverServices}): until {@link #bind} a runner
 * asking for a task is held, and the other calls fail.
 */
public final class DriverUmbilical extends HamUmbilicalBase implements RunnerUmbilical {
  private static final Logger LOG = LoggerFactory.getLogger(DriverUmbilical.class);
  /**
   * The longest a runner's call for a task is held: well within the runner's IPC client's
   * timeout, and its idle connections' life (RunnerClientConf.KEEP_IDLE_CONNECTION_MS).
   */
  static final long MAX_HOLD_MS = 10_000;
  private final RunnerTracker runners;
  private final AttemptIds ids;
  private final String jobIdentity;
  private final WaitingRunners waiting;
  private volatile boolean bound;
  // The job's, set once by bind() (published by the volatile write of bound).
  private TaskScheduler scheduler;
  private JobTasks tasks;
  private JobEvents events;
  private JobCounters counters;
  private byte[] sealedCredentials;

  /**
   * @param heartbeatMs the runners' heartbeat timeout (ham.heartbeat.timeout.ms): a held call
   *     is answered within a third of it, so that a waiting runner is never taken for lost
   */
  public DriverUmbilical(RunnerTracker runners, AttemptIds ids, long heartbeatMs) {
    this.runners = runners;
    this.ids = ids;
    this.jobIdentity = ids.job().toString();
    long hold = heartbeatMs > 0 ? Math.min(MAX_HOLD_MS, heartbeatMs / 3) : MAX_HOLD_MS;
    this.waiting = new WaitingRunners(jobIdentity, this::nextFor, Math.max(hold, 1));
  }

  /** The job is submitted: from now on its tasks are handed out. */
  public void bind(TaskScheduler scheduler, JobTasks tasks, JobEvents events, JobCounters counters,
      byte[] sealedCredentials) {
    this.scheduler = scheduler;
    this.tasks = tasks;
    this.events = events;
    this.counters = counters;
    this.sealedCredentials = sealedCredentials;
    bound = true;
    // An attempt ended or the job stopped: a held runner may now get a task, or exit.
    scheduler.onChange(waiting::signal);
    waiting.signal();
  }

  /** The server stops: held calls are left unanswered (their runners find the driver gone). */
  public void close() {
    waiting.close();
  }

  private void requireBound() throws IOException {
    if (!bound) {
      throw new IOException("Job " + ids.job() + " is not submitted yet");
    }
  }

  @Override
  public long getProtocolVersion(String protocol, long clientVersion) {
    if (RunnerUmbilical.class.getName().equals(protocol)) {
      return RunnerUmbilical.versionID;
    }
    return RunnerSupport.class.getName().equals(protocol) ? RunnerSupport.versionID
        : super.getProtocolVersion(protocol, clientVersion);
  }

  @Override
  public BytesWritable getJobCredentials() throws IOException {
    authorize();
    requireBound();
    return new BytesWritable(sealedCredentials);
  }

  /** Only runners, holding the job token (not a client token), may call. */
  private void authorize() throws IOException {
    UserGroupInformation caller = Server.getRemoteUser();
    if (caller != null && (caller.getAuthenticationMethod()
        != UserGroupInformation.AuthenticationMethod.TOKEN
        || !caller.getUserName().equals(jobIdentity))) {
      throw new AccessControlException("HAM umbilical: job token authentication required, got "
          + caller.getAuthenticationMethod() + " as " + caller.getUserName() + " from "
          + Server.getRemoteAddress());
    }
  }

  private AttemptKey key(TaskAttemptID attempt) throws IOException {
    authorize();
    requireBound();
    AttemptKey key = ids.keyOf(attempt);
    if (key == null) {
      throw new IOException("Attempt " + attempt + " is not part of " + ids.job());
    }
    return key;
  }

  @Override
  protected JvmTask getTaskForRunner(String runnerId) throws IOException {
    authorize();
    if (!runners.contact(runnerId, System.currentTimeMillis())) {
      // Declared lost (silent too long): its attempts went elsewhere, it may be replaced.
      LOG.warn("Task runner {} was declared lost; telling it to exit", runnerId);
      return new JvmTask(null, true);
    }
    JvmTask next = nextFor(runnerId);
    Server.Call call = Server.getCurCall().get();
    if (next != null || call == null) {
      return next != null ? next : WaitingRunners.ASK_AGAIN;
    }
    // Nothing for it yet: answered later, from the waiting runners' thread.
    call.deferResponse();
    waiting.hold(runnerId, runners.kindOf(runnerId), task -> {
      // A held runner cannot talk: its silence counts from this answer, not from its call (up
      // to a third of the heartbeat timeout earlier), or a task's slow start on a busy machine
      // (its first ping comes 3 s after it began) could take it for lost.
      runners.contact(runnerId, System.currentTimeMillis());
      call.setDeferredResponse(new ObjectWritable(JvmTask.class, task));
    });
    return null;
  }

  /**
   * The runner's next task; "exit" when the job is over, the runner was lost or its kind has
   * no more tasks; "ask again" when its node takes no more tasks (blacklisted); null when there
   * is nothing for it yet (before the job is submitted, or every task of its kind is taken).
   */
  private JvmTask nextFor(String runnerId) {
    if (!bound) {
      return null;
    }
    if (scheduler.isFinished() || runners.isLost(runnerId)) {
      return new JvmTask(null, true);
    }
    RunnerKind kind = runners.kindOf(runnerId);
    if (!scheduler.hasWork(kind)) {
      // No more tasks of its kind (the maps are done): it goes, as YARN frees the container.
      runners.retire(runnerId);
      LOG.info("Task runner {} retired: no more {} tasks", runnerId, kind);
      return new JvmTask(null, true);
    }
    AttemptKey key = scheduler.assign(runnerId, kind, System.currentTimeMillis());
    if (key == null) {
      return scheduler.excludes(runnerId) ? WaitingRunners.ASK_AGAIN : null;
    }
    LOG.info("Assigned {} to {}", ids.attemptName(key), runnerId);
    events.started(key);
    if (runners.isLost(runnerId)) {
      // Declared lost since the check above. The supervisor marks a runner lost before it
      // kills the runner's attempts, so either it saw this one (killed already) or this check
      // sees the mark: the attempt never stays with a lost runner (KILLED, not counted).
      events.ended(scheduler.runnerLost(runnerId, "Task runner " + runnerId
          + " was declared lost as it was handed " + ids.attemptName(key),
          System.currentTimeMillis()));
      return new JvmTask(null, true);
    }
    return tasks.jvmTask(key, key.isMap() ? null : scheduler.succeededMaps());
  }

  @Override
  public AMFeedback statusUpdate(TaskAttemptID taskId, TaskStatus status) throws IOException {
    AttemptKey key = key(taskId);
    String runner = scheduler.runnerOf(key);
    boolean found = report(key, runner, status);
    if (!found && runner != null) {
      // The task will exit its runner JVM (System.exit(66)): expected, replace it freely.
      runners.expectExit(runner);
    }
    AMFeedback feedback = new AMFeedback();
    feedback.setTaskFound(found);
    return feedback;
  }

  /** An attempt's status (progress and counters), or a ping: whether it still runs. */
  private boolean report(AttemptKey key, String runner, TaskStatus status) {
    long now = System.currentTimeMillis();
    if (runner != null) {
      runners.contact(runner, now);
    }
    if (status == null) {
      return scheduler.ping(key, now);
    }
    boolean found = scheduler.progress(key, status.getProgress(), now);
    if (found) {
      counters.update(key, status.getCounters());
    }
    return found;
  }

  @Override
  public void commitPending(TaskAttemptID taskId, TaskStatus status) throws IOException {
    statusUpdate(taskId, status);
  }

  @Override
  public boolean canCommit(TaskAttemptID taskId) throws IOException {
    return scheduler.canCommit(key(taskId));
  }

  @Override
  public JvmTask doneAndGetTask(TaskAttemptID attempt, TaskStatus last, String runnerId)
      throws IOException {
    if (last != null) {
      // Its task has ended: an attempt ended meanwhile (killed) does not end the runner, as a
      // "not found" answer to a running task's status does.
      AttemptKey key = key(attempt);
      report(key, scheduler.runnerOf(key), last);
    }
    done(attempt);
    return getTaskForRunner(runnerId);
  }

  @Override
  public boolean commitPendingAndCanCommit(TaskAttemptID attempt, TaskStatus status)
      throws IOException {
    commitPending(attempt, status);
    return canCommit(attempt);
  }

  @Override
  public void done(TaskAttemptID taskId) throws IOException {
    AttemptKey key = key(taskId);
    if (!scheduler.succeeded(key, System.currentTimeMillis())) {
      return;  // ended meanwhile (killed, timed out), or a retried done already counted
    }
    LOG.info("Attempt {} succeeded", ids.attemptName(key));
    events.ended(key);
    events.ended(scheduler.takeEnded());
  }

  private void failed(TaskAttemptID taskId, String message) throws IOException {
    AttemptKey key = key(taskId);
    if (!scheduler.isActive(key)) {
      return;  // already ended: killed on request, timed out, superseded
    }
    if (TaskEnds.endsRunner(message)) {
      // Past its memory, or System.exit: the runner goes with the attempt; replace it freely.
      runners.expectExit(scheduler.runnerOf(key));
    }
    events.addDiagnostic(key, message);
    List<AttemptKey> badMaps = key.isMap() ? List.of() : badMaps(message);
    if (!badMaps.isEmpty()) {
      mapOutputLost(key, badMaps, message);
      return;
    }
    scheduler.failed(key, message, System.currentTimeMillis());
    LOG.warn("Attempt {} failed: {}", taskId, message);
    events.ended(key);
    events.ended(scheduler.takeEnded());
  }

  /** The map attempts of this job a reduce's failure report names as unreadable. */
  private List<AttemptKey> badMaps(String message) {
    List<AttemptKey> out = new ArrayList<>();
    for (String id : BadMapOutput.parse(message)) {
      AttemptKey map = ids.keyOf(TaskAttemptID.forName(id));
      if (map != null) {
        out.add(map);
      }
    }
    return out;
  }

  /**
   * A reduce attempt could not read some maps' output: those map attempts are failed and their
   * maps run again, and the reduce attempt is killed (it runs again once the maps are done).
   */
  private void mapOutputLost(AttemptKey reduce, List<AttemptKey> badMaps, String message) {
    List<AttemptKey> invalidated = scheduler.mapOutputLost(reduce, badMaps, message,
        System.currentTimeMillis());
    LOG.warn("Attempt {} could not read the output of {}; re-running {}", ids.attempt(reduce),
        badMaps.stream().map(k -> ids.attempt(k).toString()).toList(),
        invalidated.stream().map(k -> ids.attempt(k).toString()).toList());
    events.ended(invalidated);
    events.ended(reduce);
  }

  @Override
  public void fatalError(TaskAttemptID taskId, String message, boolean fastFail)
      throws IOException {
    failed(taskId, message);
  }

  @Override
  public void fsError(TaskAttemptID taskId, String message) throws IOException {
    failed(taskId, "FSError: " + message);
  }

  @Override
  public void shuffleError(TaskAttemptID taskId, String message) throws IOException {
    failed(taskId, "Shuffle error: " + message);
  }

  @Override
  public void reportDiagnosticInfo(TaskAttemptID taskId, String trace) throws IOException {
    events.addDiagnostic(key(taskId), trace);
  }

  @Override
  public MapTaskCompletionEventsUpdate getMapCompletionEvents(JobID jobId, int fromIndex,
      int maxLocs, TaskAttemptID id) throws IOException {
    authorize();
    // The direct-read shuffle gets the map set with the task; nothing to fetch remotely.
    return new MapTaskCompletionEventsUpdate(TaskCompletionEvent.EMPTY_ARRAY, false);
  }

  @Override
  public void preempted(TaskAttemptID taskId, TaskStatus status) throws IOException {
    AttemptKey key = key(taskId);
    scheduler.killed(key, "preempted", System.currentTimeMillis());
    events.ended(key);
  }

  @Override
  public TaskCheckpointID getCheckpointID(TaskID taskId) {
    return null;
  }

  @Override
  public void setCheckpointID(TaskID taskId, TaskCheckpointID cid) {
    // Checkpointing is not supported.
  }
}
