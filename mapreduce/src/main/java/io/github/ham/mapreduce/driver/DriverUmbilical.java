package io.github.ham.mapreduce.driver;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.github.ham.mapreduce.common.AttemptKey;
import io.github.ham.mapreduce.common.BadMapOutput;
import io.github.ham.mapreduce.common.RunnerSupport;
import io.github.ham.mapreduce.common.RunnerUmbilical;
import io.github.ham.mapreduce.common.TaskEnds;

import org.apache.hadoop.io.BytesWritable;
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
 * token are served. It may serve before the job is submitted (runners started early, while the
 * client still stages the job: {@link DriverServices}): until {@link #bind} a runner asking
 * for a task waits a little and is told to ask again, and the other calls fail.
 */
final class DriverUmbilical extends HamUmbilicalBase implements RunnerUmbilical {
  private static final Logger LOG = LoggerFactory.getLogger(DriverUmbilical.class);
  /** How long a runner's getTask waits for the job to be submitted before "ask again". */
  private static final long BIND_WAIT_MS = 1000;
  private final RunnerTracker runners;
  private final AttemptIds ids;
  private final String jobIdentity;
  private final CountDownLatch bound = new CountDownLatch(1);
  // The job's, set once by bind() (published by the latch).
  private TaskScheduler scheduler;
  private JobTasks tasks;
  private JobEvents events;
  private JobCounters counters;
  private byte[] sealedCredentials;

  DriverUmbilical(RunnerTracker runners, AttemptIds ids) {
    this.runners = runners;
    this.ids = ids;
    this.jobIdentity = ids.job().toString();
  }

  /** The job is submitted: from now on its tasks are handed out. */
  void bind(TaskScheduler scheduler, JobTasks tasks, JobEvents events, JobCounters counters,
      byte[] sealedCredentials) {
    this.scheduler = scheduler;
    this.tasks = tasks;
    this.events = events;
    this.counters = counters;
    this.sealedCredentials = sealedCredentials;
    bound.countDown();
  }

  private void requireBound() throws IOException {
    if (bound.getCount() > 0) {
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
    try {
      if (!bound.await(BIND_WAIT_MS, TimeUnit.MILLISECONDS)) {
        runners.contact(runnerId, System.currentTimeMillis());
        return new JvmTask(null, false);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("Interrupted waiting for job " + ids.job() + " to be submitted", e);
    }
    if (scheduler.isFinished()) {
      return new JvmTask(null, true);
    }
    long now = System.currentTimeMillis();
    if (!runners.contact(runnerId, now)) {
      // Declared lost (silent too long): its attempts went elsewhere, it may be replaced.
      LOG.warn("Task runner {} was declared lost; telling it to exit", runnerId);
      return new JvmTask(null, true);
    }
    RunnerKind kind = runners.kindOf(runnerId);
    if (!scheduler.hasWork(kind)) {
      // No more tasks of its kind (the maps are done): it goes, as YARN frees the container.
      runners.retire(runnerId);
      LOG.info("Task runner {} retired: no more {} tasks", runnerId, kind);
      return new JvmTask(null, true);
    }
    AttemptKey key = scheduler.assign(runnerId, kind, now);
    if (key == null) {
      return new JvmTask(null, false);
    }
    LOG.info("Assigned {} to {}", ids.attempt(key), runnerId);
    events.started(key);
    return new JvmTask(tasks.task(key, key.isMap() ? null : scheduler.succeededMaps()), false);
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
    LOG.info("Attempt {} succeeded", taskId);
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
