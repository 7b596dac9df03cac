package io.github.ham.mapreduce.driver;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.github.ham.mapreduce.common.AttemptKey;
import io.github.ham.mapreduce.common.AttemptState;
import io.github.ham.mapreduce.common.TaskKey;

/**
 * The driver's decisions, free of Hadoop I/O: which task a runner gets next, whether a failed
 * attempt is retried or fails the job, which attempt may commit, and which attempts have
 * timed out. Maps run first; reduces become eligible once every map has succeeded (the
 * direct-read shuffle needs the full map set). Thread-safe.
 *
 * <p>Long on purpose: every transition of a task and its attempts happens under this one
 * monitor, so the state machine stays in one class rather than in several sharing a lock.
 */
public final class TaskScheduler {
  /** Limits the scheduler enforces. */
  public record Limits(int maxMapAttempts, int maxReduceAttempts, long taskTimeoutMs,
      long heartbeatTimeoutMs) {
  }

  private enum TaskState { PENDING, RUNNING, SUCCEEDED, FAILED }

  private static final class TaskEntry {
    final TaskKey key;
    TaskState state = TaskState.PENDING;
    final List<AttemptInfo> attempts = new ArrayList<>();
    int failedAttempts;
    AttemptInfo running;
    AttemptInfo succeeded;

    TaskEntry(TaskKey key) {
      this.key = key;
    }
  }

  private final Limits limits;
  private final TaskEntry[] maps;
  private final TaskEntry[] reduces;
  private final Deque<TaskEntry> pendingMaps = new ArrayDeque<>();
  private final Deque<TaskEntry> pendingReduces = new ArrayDeque<>();
  private final Map<AttemptKey, AttemptInfo> attempts = new HashMap<>();
  private final List<AttemptInfo> attemptOrder = new ArrayList<>();
  private final CommitArbiter arbiter = new CommitArbiter();
  private int succeededMaps;
  private int succeededReduces;
  private String failure;
  private boolean stopped;
  private java.util.function.Function<TaskKey, String> taskNames = TaskKey::toString;

  public TaskScheduler(int numMaps, int numReduces, Limits limits) {
    this.limits = limits;
    maps = new TaskEntry[numMaps];
    reduces = new TaskEntry[numReduces];
    for (int i = 0; i < numMaps; i++) {
      maps[i] = new TaskEntry(new TaskKey(true, i));
      pendingMaps.add(maps[i]);
    }
    for (int i = 0; i < numReduces; i++) {
      reduces[i] = new TaskEntry(new TaskKey(false, i));
      pendingReduces.add(reduces[i]);
    }
  }

  /** How tasks are named in failure messages (the driver uses Hadoop's task ids). */
  public synchronized void setTaskNames(java.util.function.Function<TaskKey, String> names) {
    this.taskNames = names;
  }

  /**
   * The next attempt for {@code runner}, or null when nothing can run now (ask again later,
   * or stop when {@link #isFinished()}).
   */
  public synchronized AttemptKey assign(String runner, long now) {
    if (isFinished()) {
      return null;
    }
    TaskEntry task = pendingMaps.poll();
    if (task == null && succeededMaps == maps.length) {
      task = pendingReduces.poll();
    }
    if (task == null) {
      return null;
    }
    AttemptKey key = new AttemptKey(task.key, task.attempts.size());
    AttemptInfo info = new AttemptInfo(key, runner, now);
    task.attempts.add(info);
    task.running = info;
    task.state = TaskState.RUNNING;
    attempts.put(key, info);
    attemptOrder.add(info);
    return key;
  }

  /** True while the attempt is the running attempt of its task (the runner should go on). */
  public synchronized boolean isActive(AttemptKey key) {
    AttemptInfo info = attempts.get(key);
    return info != null && info.state == AttemptState.RUNNING && !stopped;
  }

  /** A status report: counts as progress for mapreduce.task.timeout. */
  public synchronized boolean progress(AttemptKey key, float progress, long now) {
    AttemptInfo info = attempts.get(key);
    if (info == null || info.state != AttemptState.RUNNING) {
      return false;
    }
    info.lastProgress = now;
    info.progress = progress;
    info.lastContact = now;
    return true;
  }

  /** A ping without a status: the attempt is alive but not necessarily progressing. */
  public synchronized boolean ping(AttemptKey key, long now) {
    AttemptInfo info = attempts.get(key);
    if (info == null || info.state != AttemptState.RUNNING) {
      return false;
    }
    info.lastContact = now;
    return true;
  }

  /** Commit arbitration: exactly one attempt of a task may commit. */
  public synchronized boolean canCommit(AttemptKey key) {
    AttemptInfo info = attempts.get(key);
    if (info == null || info.state != AttemptState.RUNNING || stopped) {
      return false;
    }
    return arbiter.canCommit(key.task(), key.attempt());
  }

  public synchronized void succeeded(AttemptKey key, long now) {
    AttemptInfo info = attempts.get(key);
    if (info == null || info.state != AttemptState.RUNNING) {
      return;
    }
    TaskEntry task = entry(key.task());
    info.state = AttemptState.SUCCEEDED;
    info.finish = now;
    info.progress = 1.0f;
    if (task.state == TaskState.SUCCEEDED) {
      return;
    }
    task.state = TaskState.SUCCEEDED;
    task.running = null;
    task.succeeded = info;
    if (key.isMap()) {
      succeededMaps++;
    } else {
      succeededReduces++;
    }
  }

  /**
   * The attempt failed: the task is retried, or fails the job once it used up its attempts.
   * Returns true if the task will be retried.
   */
  public synchronized boolean failed(AttemptKey key, String error, long now) {
    return end(key, AttemptState.FAILED, error, now);
  }

  /** The attempt was lost without its own failure report (e.g. its runner died). */
  public synchronized boolean killed(AttemptKey key, String error, long now) {
    return end(key, AttemptState.KILLED, error, now);
  }

  /**
   * A reduce attempt could not read the output of {@code badMaps}: the reduce attempt ends as
   * KILLED without counting against the reduce's attempts (the fault is the maps'), and each
   * named map attempt that is still its task's successful attempt is marked FAILED (counting
   * against the map's attempts) and its task runs again; reduces wait until every map has
   * succeeded again. Returns the map attempts whose output was declared bad by this call.
   */
  public synchronized List<AttemptKey> mapOutputLost(AttemptKey reduce, List<AttemptKey> badMaps,
      String error, long now) {
    List<AttemptKey> invalidated = new ArrayList<>();
    AttemptInfo r = attempts.get(reduce);
    if (r != null && r.state == AttemptState.RUNNING && !reduce.isMap()) {
      r.state = AttemptState.KILLED;
      r.finish = now;
      r.error = error;
      arbiter.release(reduce.task(), reduce.attempt());
      TaskEntry task = entry(reduce.task());
      if (task.running == r) {
        task.running = null;
      }
      if (task.state == TaskState.RUNNING) {
        task.state = TaskState.PENDING;
        pendingReduces.addFirst(task);
      }
    }
    for (AttemptKey m : badMaps) {
      if (!m.isMap() || m.task().index() < 0 || m.task().index() >= maps.length) {
        continue;
      }
      TaskEntry task = maps[m.task().index()];
      AttemptInfo info = task.succeeded;
      if (info == null || !info.key.equals(m) || task.state != TaskState.SUCCEEDED) {
        continue;
      }
      info.state = AttemptState.FAILED;
      info.error = "Map output unreadable by " + attemptName(reduce) + ": " + error;
      arbiter.release(m.task(), m.attempt());
      task.succeeded = null;
      succeededMaps--;
      task.failedAttempts++;
      invalidated.add(m);
      if (task.failedAttempts >= Math.max(1, limits.maxMapAttempts())) {
        task.state = TaskState.FAILED;
        if (failure == null) {
          failure = "Task " + taskNames.apply(m.task()) + " failed " + task.failedAttempts
              + " times; last error: " + info.error;
        }
      } else {
        task.state = TaskState.PENDING;
        pendingMaps.addFirst(task);
      }
    }
    return invalidated;
  }

  /** The runner an attempt was given to, or null. */
  public synchronized String runnerOf(AttemptKey key) {
    AttemptInfo info = attempts.get(key);
    return info == null ? null : info.runner;
  }

  private boolean end(AttemptKey key, AttemptState state, String error, long now) {
    AttemptInfo info = attempts.get(key);
    if (info == null || info.state != AttemptState.RUNNING) {
      return false;
    }
    info.state = state;
    info.finish = now;
    info.error = error;
    arbiter.release(key.task(), key.attempt());
    TaskEntry task = entry(key.task());
    if (task.running == info) {
      task.running = null;
    }
    if (task.state != TaskState.RUNNING) {
      return false;
    }
    task.failedAttempts++;
    int max = key.isMap() ? limits.maxMapAttempts() : limits.maxReduceAttempts();
    if (task.failedAttempts >= Math.max(1, max)) {
      task.state = TaskState.FAILED;
      if (failure == null) {
        failure = "Task " + taskNames.apply(key.task()) + " failed " + task.failedAttempts + " times; last error: "
            + error;
      }
      return false;
    }
    task.state = TaskState.PENDING;
    (key.isMap() ? pendingMaps : pendingReduces).addFirst(task);
    return true;
  }

  /**
   * Fails the attempts that made no progress for mapreduce.task.timeout or whose runner
   * stopped talking for the heartbeat timeout. Returns the attempts failed by this call.
   */
  public synchronized List<AttemptKey> expire(long now) {
    List<AttemptKey> expired = new ArrayList<>();
    for (AttemptInfo info : new ArrayList<>(attempts.values())) {
      if (info.state != AttemptState.RUNNING) {
        continue;
      }
      long timeout = limits.taskTimeoutMs();
      if (timeout > 0 && now - info.lastProgress > timeout) {
        failed(info.key, "AttemptID:" + attemptName(info.key) + " Timed out after " + timeout / 1000
            + " secs", now);
        expired.add(info.key);
      } else if (limits.heartbeatTimeoutMs() > 0
          && now - info.lastContact > limits.heartbeatTimeoutMs()) {
        failed(info.key, "Lost contact with the attempt on " + info.runner + " for "
            + (now - info.lastContact) / 1000 + " secs", now);
        expired.add(info.key);
      }
    }
    return expired;
  }

  /** Fails every running attempt of a runner that is known to be gone. */
  public synchronized List<AttemptKey> runnerLost(String runner, String why, long now) {
    List<AttemptKey> lost = new ArrayList<>();
    for (AttemptInfo info : new ArrayList<>(attempts.values())) {
      if (info.state == AttemptState.RUNNING && info.runner.equals(runner)) {
        failed(info.key, why, now);
        lost.add(info.key);
      }
    }
    return lost;
  }

  /** Fails every running attempt (all runners are gone). */
  public synchronized List<AttemptKey> runnerLostAll(String why, long now) {
    List<AttemptKey> lost = new ArrayList<>();
    for (AttemptInfo info : new ArrayList<>(attempts.values())) {
      if (info.state == AttemptState.RUNNING) {
        failed(info.key, why, now);
        lost.add(info.key);
      }
    }
    return lost;
  }

  /** Stops the job (kill or fatal error): nothing is assigned any more. */
  public synchronized void stop(String reason) {
    stopped = true;
    if (failure == null && reason != null) {
      failure = reason;
    }
  }

  public synchronized boolean isSucceeded() {
    return succeededMaps == maps.length && succeededReduces == reduces.length;
  }

  public synchronized boolean isFailed() {
    return failure != null;
  }

  /** Succeeded, failed or stopped: no more assignments. */
  public synchronized boolean isFinished() {
    return stopped || isFailed() || isSucceeded();
  }

  public synchronized String failure() {
    return failure;
  }

  public synchronized int runningAttempts() {
    int n = 0;
    for (AttemptInfo info : attempts.values()) {
      if (info.state == AttemptState.RUNNING) {
        n++;
      }
    }
    return n;
  }

  /** The attempt that succeeded for each map, in map order (null where none yet). */
  public synchronized AttemptKey[] succeededMaps() {
    AttemptKey[] out = new AttemptKey[maps.length];
    for (int i = 0; i < maps.length; i++) {
      out[i] = maps[i].succeeded == null ? null : maps[i].succeeded.key;
    }
    return out;
  }

  /** Task counts for the status record: total, completed, failed (attempts), running. */
  public record Counts(int total, int completed, int failedAttempts, int running,
      int launched, int killedAttempts, float progress) {
  }

  public synchronized Counts counts(boolean isMap) {
    TaskEntry[] tasks = isMap ? maps : reduces;
    int completed = 0;
    int running = 0;
    int failed = 0;
    int killed = 0;
    int launched = 0;
    float progress = 0;
    for (TaskEntry t : tasks) {
      if (t.state == TaskState.SUCCEEDED) {
        completed++;
        progress += 1.0f;
      } else if (t.running != null) {
        running++;
        progress += t.running.progress;
      }
      for (AttemptInfo a : t.attempts) {
        launched++;
        if (a.state == AttemptState.FAILED) {
          failed++;
        } else if (a.state == AttemptState.KILLED) {
          killed++;
        }
      }
    }
    float fraction = tasks.length == 0 ? (isSucceeded() || isMap ? 1.0f : 0.0f)
        : progress / tasks.length;
    if (tasks.length == 0 && !isMap) {
      fraction = succeededMaps == maps.length ? 1.0f : 0.0f;
    }
    return new Counts(tasks.length, completed, failed, running, launched, killed, fraction);
  }

  public synchronized List<AttemptInfo.Snapshot> attempts() {
    List<AttemptInfo.Snapshot> out = new ArrayList<>(attemptOrder.size());
    for (AttemptInfo info : attemptOrder) {
      out.add(info.snapshot());
    }
    return out;
  }

  public synchronized AttemptInfo.Snapshot attempt(AttemptKey key) {
    AttemptInfo info = attempts.get(key);
    return info == null ? null : info.snapshot();
  }

  private String attemptName(AttemptKey key) {
    String task = taskNames.apply(key.task());
    return (task.startsWith("task_") ? "attempt_" + task.substring(5) : task) + "_"
        + key.attempt();
  }

  private TaskEntry entry(TaskKey key) {
    return key.isMap() ? maps[key.index()] : reduces[key.index()];
  }
}
