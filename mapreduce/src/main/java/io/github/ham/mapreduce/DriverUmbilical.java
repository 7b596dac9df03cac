package io.github.ham.mapreduce;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;

import org.apache.hadoop.ipc.Server;
import org.apache.hadoop.mapred.AMFeedback;
import org.apache.hadoop.mapred.Counters;
import org.apache.hadoop.mapred.HamBridge;
import org.apache.hadoop.mapred.HamUmbilicalBase;
import org.apache.hadoop.mapred.JobID;
import org.apache.hadoop.mapred.JvmTask;
import org.apache.hadoop.mapred.MapTaskCompletionEventsUpdate;
import org.apache.hadoop.mapred.Task;
import org.apache.hadoop.mapred.TaskAttemptID;
import org.apache.hadoop.mapred.TaskCompletionEvent;
import org.apache.hadoop.mapred.TaskID;
import org.apache.hadoop.mapred.TaskStatus;
import org.apache.hadoop.mapreduce.JobCounter;
import org.apache.hadoop.mapreduce.TaskType;
import org.apache.hadoop.mapreduce.checkpoint.TaskCheckpointID;
import org.apache.hadoop.security.AccessControlException;
import org.apache.hadoop.security.UserGroupInformation;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The driver's side of the umbilical: hands out tasks and turns the runners' reports into
 * scheduler decisions. Only callers authenticated with the job token are served.
 */
final class DriverUmbilical extends HamUmbilicalBase {
  private static final Logger LOG = LoggerFactory.getLogger(DriverUmbilical.class);
  private final HamJob job;
  private final Map<AttemptKey, Counters> counters = new HashMap<>();

  DriverUmbilical(HamJob job) {
    this.job = job;
  }

  private void authorize() throws IOException {
    UserGroupInformation caller = Server.getRemoteUser();
    if (caller != null && caller.getAuthenticationMethod()
        != UserGroupInformation.AuthenticationMethod.TOKEN) {
      throw new AccessControlException("HAM umbilical: job token authentication required, got "
          + caller.getAuthenticationMethod() + " from " + Server.getRemoteAddress());
    }
  }

  private AttemptKey key(TaskAttemptID attempt) throws IOException {
    authorize();
    if (!attempt.getJobID().toString().equals(job.id.toString())) {
      throw new IOException("Attempt " + attempt + " is not part of " + job.id);
    }
    return HamJob.keyOf(attempt);
  }

  @Override
  protected JvmTask getTaskForRunner(String runnerId) throws IOException {
    authorize();
    TaskScheduler s = job.scheduler();
    if (s == null) {
      return new JvmTask(null, false);
    }
    if (s.isFinished()) {
      return new JvmTask(null, true);
    }
    long now = System.currentTimeMillis();
    if (!job.runners().contact(runnerId, now)) {
      // Declared lost (silent too long): its attempts went elsewhere, it may be replaced.
      LOG.warn("Task runner {} was declared lost; telling it to exit", runnerId);
      return new JvmTask(null, true);
    }
    AttemptKey key = s.assign(runnerId, now);
    if (key == null) {
      return new JvmTask(null, false);
    }
    TaskAttemptID attempt = job.attemptId(key);
    Task task;
    if (key.isMap()) {
      task = HamBridge.newMapTask(job.jobFile(), attempt, key.task().index(),
          job.split(key.task().index()).getSplitIndex(), job.user());
    } else {
      StringJoiner maps = new StringJoiner(",");
      for (AttemptKey m : s.succeededMaps()) {
        maps.add(job.attemptId(m).toString());
      }
      task = HamBridge.newReduceTask(job.jobFile(), attempt, key.task().index(), job.numMaps(),
          job.user(), maps.toString());
    }
    LOG.info("Assigned {} to {}", attempt, runnerId);
    return new JvmTask(task, false);
  }

  @Override
  public AMFeedback statusUpdate(TaskAttemptID taskId, TaskStatus status) throws IOException {
    AttemptKey key = key(taskId);
    long now = System.currentTimeMillis();
    String runner = job.scheduler().runnerOf(key);
    if (runner != null) {
      job.runners().contact(runner, now);
    }
    boolean found;
    if (status == null) {
      found = job.scheduler().ping(key, now);
    } else {
      found = job.scheduler().progress(key, status.getProgress(), now);
      if (found) {
        synchronized (counters) {
          counters.put(key, status.getCounters());
        }
      }
    }
    if (!found && runner != null) {
      // The task will exit its runner JVM (System.exit(66)): expected, replace it freely.
      job.runners().expectExit(runner);
    }
    AMFeedback feedback = new AMFeedback();
    feedback.setTaskFound(found);
    return feedback;
  }

  @Override
  public void commitPending(TaskAttemptID taskId, TaskStatus status) throws IOException {
    statusUpdate(taskId, status);
  }

  @Override
  public boolean canCommit(TaskAttemptID taskId) throws IOException {
    return job.scheduler().canCommit(key(taskId));
  }

  @Override
  public void done(TaskAttemptID taskId) throws IOException {
    AttemptKey key = key(taskId);
    job.scheduler().succeeded(key, System.currentTimeMillis());
    LOG.info("Attempt {} succeeded", taskId);
    job.attemptEnded(key, org.apache.hadoop.mapreduce.TaskCompletionEvent.Status.SUCCEEDED);
  }

  private void failed(TaskAttemptID taskId, String message) throws IOException {
    AttemptKey key = key(taskId);
    if (!key.isMap()) {
      List<AttemptKey> badMaps = new ArrayList<>();
      for (String id : BadMapOutput.parse(message)) {
        TaskAttemptID map = TaskAttemptID.forName(id);
        if (map.getJobID().toString().equals(job.id.toString())) {
          badMaps.add(HamJob.keyOf(map));
        }
      }
      if (!badMaps.isEmpty()) {
        job.addDiagnostic(key, message);
        job.mapOutputLost(key, badMaps, message);
        return;
      }
    }
    job.addDiagnostic(key, message);
    job.scheduler().failed(key, message, System.currentTimeMillis());
    LOG.warn("Attempt {} failed: {}", taskId, message);
    job.attemptEnded(key, org.apache.hadoop.mapreduce.TaskCompletionEvent.Status.FAILED);
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
    job.addDiagnostic(key(taskId), trace);
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
    job.scheduler().killed(key, "preempted", System.currentTimeMillis());
    job.attemptEnded(key, org.apache.hadoop.mapreduce.TaskCompletionEvent.Status.KILLED);
  }

  @Override
  public TaskCheckpointID getCheckpointID(org.apache.hadoop.mapred.TaskID taskId) {
    return null;
  }

  @Override
  public void setCheckpointID(TaskID taskId, TaskCheckpointID cid) {
    // Checkpointing is not supported.
  }

  /** Task counters of the successful (and running) attempts, plus the job counters. */
  Counters counters() {
    Counters total = new Counters();
    TaskScheduler s = job.scheduler();
    if (s == null) {
      return total;
    }
    long[] millis = new long[2];
    long now = System.currentTimeMillis();
    synchronized (counters) {
      for (AttemptInfo.Snapshot a : s.attempts()) {
        Counters c = counters.get(a.key());
        if (c != null && (a.state() == AttemptState.SUCCEEDED
            || a.state() == AttemptState.RUNNING)) {
          total.incrAllCounters(c);
        }
        long end = a.finish() == 0 ? now : a.finish();
        millis[a.key().isMap() ? 0 : 1] += Math.max(0, end - a.start());
      }
    }
    TaskScheduler.Counts m = s.counts(true);
    TaskScheduler.Counts r = s.counts(false);
    total.incrCounter(JobCounter.TOTAL_LAUNCHED_MAPS, m.launched());
    if (r.launched() > 0) {
      total.incrCounter(JobCounter.TOTAL_LAUNCHED_REDUCES, r.launched());
    }
    if (m.failedAttempts() > 0) {
      total.incrCounter(JobCounter.NUM_FAILED_MAPS, m.failedAttempts());
    }
    if (r.failedAttempts() > 0) {
      total.incrCounter(JobCounter.NUM_FAILED_REDUCES, r.failedAttempts());
    }
    if (m.killedAttempts() > 0) {
      total.incrCounter(JobCounter.NUM_KILLED_MAPS, m.killedAttempts());
    }
    if (r.killedAttempts() > 0) {
      total.incrCounter(JobCounter.NUM_KILLED_REDUCES, r.killedAttempts());
    }
    total.incrCounter(JobCounter.MILLIS_MAPS, millis[0]);
    if (r.launched() > 0) {
      total.incrCounter(JobCounter.MILLIS_REDUCES, millis[1]);
    }
    return total;
  }

  static TaskType type(AttemptKey key) {
    return key.isMap() ? TaskType.MAP : TaskType.REDUCE;
  }
}
