package io.github.ham.mapreduce.driver.schedule;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import io.github.ham.mapreduce.common.ids.AttemptKey;
import io.github.ham.mapreduce.common.ids.AttemptState;
import io.github.ham.mapreduce.common.ids.RunnerId;
import io.github.ham.mapreduce.common.ids.TaskKey;
import io.github.ham.mapreduce.driver.schedule.RunnerKind;

/**
 * The driver's decisions, free of Hadoop I/O: which task a runner gets next (maps first;
 * reduces once every map is done, as the direct-read shuffle needs the full map set; then
 * speculative attempts for stragglers), whether a failed attempt is retried or fails its task,
 * whether a failed task fails the job, which attempt may commit, and which attempts have timed
 * out. As on YARN, an attempt lost with its runner or node ends KILLED and does not use up the
 * task's attempts; one that fails, times out or whose output is unreadable ends FAILED.
 * Thread-safe.
 *
 * <p>Long on purpose: every transition of a task and its attempts happens under this one
 * monitor, so the state machine stays in one class rather than in several sharing a lock.
 *
 * <p>Its cost per call does not grow with the job: the running attempts are kept apart (in
 * start order), and the counts the status, the record and the counters read are kept as the
 * attempts change, so that a runner's call costs the same with 100 or 100,000 tasks (only the
 * whole-job views, {@link #attempts}, {@link #tasks} and {@link #succeededMaps}, are linear).
 */
public final class TaskScheduler {
  private enum TaskState { PENDING, RUNNING, SUCCEEDED, FAILED }

  private static final class TaskEntry {
    final TaskKey key;
    TaskState state = TaskState.PENDING;
    final List<AttemptInfo> attempts = new ArrayList<>();
    final List<AttemptInfo> running = new ArrayList<>(1);
    int failedAttempts;
    boolean speculated;
    AttemptInfo succeeded;
    /** The number the task's next attempt gets. */
    int nextAttempt;

    TaskEntry(TaskKey key) {
      this.key = key;
    }
  }

  private final SchedulingPolicy policy;
  private final TaskEntry[] maps;
  private final TaskEntry[] reduces;
  private final Deque<TaskEntry> pendingMaps = new ArrayDeque<>();
  private final Deque<TaskEntry> pendingReduces = new ArrayDeque<>();
  private final Map<AttemptKey, AttemptInfo> attempts = new HashMap<>();
  /** The running attempts of maps [0] and reduces [1], in the order they started. */
  @SuppressWarnings("unchecked")
  private final LinkedHashSet<AttemptInfo>[] runningAttempts =
      new LinkedHashSet[] {new LinkedHashSet<>(), new LinkedHashSet<>()};
  /** Per type: attempts launched, failed and killed; tasks failed; time of ended attempts. */
  private final int[] launched = new int[2];
  private final int[] failedAttempts = new int[2];
  private final int[] killedAttempts = new int[2];
  private final int[] failedTasks = new int[2];
  private final long[] endedMillis = new long[2];
  /** Attempts ended other than SUCCEEDED (or whose success was taken back), in order. */
  private final List<AttemptKey> unsuccessful = new ArrayList<>();
  private final List<AttemptInfo> attemptOrder = new ArrayList<>();
  private final CommitArbiter arbiter = new CommitArbiter();
  private final NodeBlacklist blacklist;
  /** Attempts the scheduler ended itself (superseded, or of a failed task): for the events. */
  private final List<AttemptKey> endedByScheduler = new ArrayList<>();
  private final int[] succeeded = new int[2];
  /** Tasks that failed within mapreduce.{map,reduce}.failures.maxpercent. */
  private final int[] failedAllowed = new int[2];
  private final long[] succeededMillis = new long[2];
  private String failure;
  private boolean stopped;
  private Function<TaskKey, String> taskNames = TaskKey::toString;
  /** Told whenever an attempt ends or the job stops (must not block: it runs under the lock). */
  private Runnable changed = () -> { };

  public TaskScheduler(int numMaps, int numReduces, SchedulingPolicy policy) {
    this(numMaps, numReduces, policy, 0);
  }

  /**
   * A scheduler whose attempts are numbered from {@code firstAttempt}: a resumed run (the
   * job's run r numbers them from (r - 1) x 1000, as the MRAppMaster's attempt r does, so that
   * no attempt of this run shares an id, an output or a work directory with an earlier one).
   */
  public TaskScheduler(int numMaps, int numReduces, SchedulingPolicy policy, int firstAttempt) {
    this.policy = policy;
    this.blacklist = new NodeBlacklist(policy.maxTaskFailuresPerNode(),
        policy.blacklistIgnorePercent());
    maps = new TaskEntry[numMaps];
    reduces = new TaskEntry[numReduces];
    for (int i = 0; i < numMaps; i++) {
      maps[i] = new TaskEntry(new TaskKey(true, i));
      maps[i].nextAttempt = firstAttempt;
      pendingMaps.add(maps[i]);
    }
    for (int i = 0; i < numReduces; i++) {
      reduces[i] = new TaskEntry(new TaskKey(false, i));
      reduces[i].nextAttempt = firstAttempt;
      pendingReduces.add(reduces[i]);
    }
  }

  /**
   * A task an earlier run of the job finished with {@code attempt} (its output is intact, or
   * committed and recovered): done, without running again.
   */
  public synchronized void recovered(AttemptKey attempt, String runner, long start,
      long finish) {
    TaskEntry task = entry(attempt.task());
    if (task.state != TaskState.PENDING) {
      return;
    }
    (attempt.isMap() ? pendingMaps : pendingReduces).remove(task);
    AttemptInfo info = new AttemptInfo(attempt, runner, start, false);
    info.state = AttemptState.SUCCEEDED;
    info.finish = finish;
    info.progress = 1.0f;
    task.attempts.add(info);
    task.state = TaskState.SUCCEEDED;
    task.succeeded = info;
    attempts.put(attempt, info);
    attemptOrder.add(info);
    succeeded[index(attempt.isMap())]++;
    succeededMillis[index(attempt.isMap())] += finish - start;
    launched[index(attempt.isMap())]++;
    endedMillis[index(attempt.isMap())] += Math.max(0, finish - start);
  }

  private static int index(boolean isMap) {
    return isMap ? 0 : 1;
  }

  /**
   * {@code listener} is run whenever an attempt ends or the job stops: what a runner waiting
   * for a task waits for. It runs under the scheduler's lock, so it must only signal.
   */
  public synchronized void onChange(Runnable listener) {
    this.changed = listener;
  }

  /** How tasks are named in failure messages (the driver uses Hadoop's task ids). */
  public synchronized void setTaskNames(Function<TaskKey, String> names) {
    this.taskNames = names;
  }

  /** The next attempt for a runner that takes any task. */
  public synchronized AttemptKey assign(String runner, long now) {
    return assign(runner, RunnerKind.ANY, now);
  }

  /**
   * The next attempt for {@code runner} (of {@code kind}), or null when nothing can run on it
   * now (ask again later, or stop when {@link #hasWork}).
   */
  public synchronized AttemptKey assign(String runner, RunnerKind kind, long now) {
    String node = RunnerId.nodeOf(runner);
    blacklist.seen(node);
    if (isFinished() || blacklist.excludes(node)) {
      return null;
    }
    TaskEntry task = kind.runs(true) && belowLimit(true) ? pendingMaps.poll() : null;
    if (task == null && kind.runs(false) && mapsDone() && belowLimit(false)) {
      task = pendingReduces.poll();
    }
    boolean speculative = false;
    if (task == null) {
      task = speculationFor(runner, kind, now);
      speculative = task != null;
    }
    if (task == null) {
      return null;
    }
    AttemptKey key = new AttemptKey(task.key, task.nextAttempt++);
    AttemptInfo info = new AttemptInfo(key, runner, now, speculative);
    task.attempts.add(info);
    task.running.add(info);
    task.state = TaskState.RUNNING;
    task.speculated |= speculative;
    attempts.put(key, info);
    attemptOrder.add(info);
    runningAttempts[index(key.isMap())].add(info);
    launched[index(key.isMap())]++;
    return key;
  }

  private boolean belowLimit(boolean isMap) {
    int limit = policy.runningLimit(isMap);
    if (limit <= 0) {
      return true;
    }
    return runningAttempts[index(isMap)].size() < limit;
  }

  private TaskEntry speculationFor(String runner, RunnerKind kind, long now) {
    for (boolean isMap : new boolean[] {true, false}) {
      if (!kind.runs(isMap) || !policy.speculative(isMap) || (!isMap && !mapsDone())
          || !belowLimit(isMap)) {
        continue;
      }
      int finished = succeeded[index(isMap)];
      long mean = finished == 0 ? 0 : succeededMillis[index(isMap)] / finished;
      // Nothing has run long enough to be speculated (the oldest running attempt first): the
      // usual answer, at once, however many tasks the job has.
      LinkedHashSet<AttemptInfo> running = runningAttempts[index(isMap)];
      if (finished == 0 || running.isEmpty() || now - running.iterator().next().start
          < Math.max(policy.speculativeMinMs(), 2 * mean)) {
        continue;
      }
      List<TaskEntry> inRunning = new ArrayList<>();
      for (AttemptInfo a : running) {
        TaskEntry t = entry(a.key.task());
        if (t.state == TaskState.RUNNING && t.running.get(0) == a) {
          inRunning.add(t);
        }
      }
      inRunning.sort((x, y) -> Integer.compare(x.key.index(), y.key.index()));
      List<Speculator.Running> candidates = new ArrayList<>();
      int runningTasks = 0;
      int speculating = 0;
      for (TaskEntry t : inRunning) {
        runningTasks++;
        if (t.running.size() > 1) {
          speculating++;
        } else if (t.running.size() == 1 && !t.speculated) {
          AttemptInfo a = t.running.get(0);
          candidates.add(new Speculator.Running(t, a.runner, a.start, a.progress));
        }
      }
      Object pick = Speculator.pick(candidates, runner, mean, finished, speculating,
          runningTasks, policy.speculativeCap(), policy.speculativeMinMs(), now);
      if (pick != null) {
        return (TaskEntry) pick;
      }
    }
    return null;
  }

  private boolean mapsDone() {
    return succeeded[0] + failedAllowed[0] == maps.length;
  }

  /** Whether every map has been given to a runner (none waits for one). */
  public synchronized boolean mapsAssigned() {
    return pendingMaps.isEmpty();
  }

  /** Whether any attempt is running. */
  public synchronized boolean anyRunning() {
    return !runningAttempts[0].isEmpty() || !runningAttempts[1].isEmpty();
  }

  /** Whether tasks a runner of {@code kind} could run are still pending or running. */
  public synchronized boolean hasWork(RunnerKind kind) {
    if (isFinished()) {
      return false;
    }
    return (kind.runs(true) && !mapsDone()) || (kind.runs(false)
        && succeeded[1] + failedAllowed[1] < reduces.length);
  }

  /** True while the attempt is running and the job goes on (the runner should go on). */
  public synchronized boolean isActive(AttemptKey key) {
    AttemptInfo info = attempts.get(key);
    return info != null && info.state == AttemptState.RUNNING && !stopped;
  }

  /** A status report: counts as progress for mapreduce.task.timeout. */
  public synchronized boolean progress(AttemptKey key, float progress, long now) {
    AttemptInfo info = running(key);
    if (info == null) {
      return false;
    }
    info.lastProgress = now;
    info.progress = progress;
    info.lastContact = now;
    return true;
  }

  /** A ping without a status: the attempt is alive but not necessarily progressing. */
  public synchronized boolean ping(AttemptKey key, long now) {
    AttemptInfo info = running(key);
    if (info == null) {
      return false;
    }
    info.lastContact = now;
    return true;
  }

  private AttemptInfo running(AttemptKey key) {
    AttemptInfo info = attempts.get(key);
    return info != null && info.state == AttemptState.RUNNING ? info : null;
  }

  /** Commit arbitration: exactly one attempt of a task may commit (a speculative race too). */
  public synchronized boolean canCommit(AttemptKey key) {
    return running(key) != null && !stopped && arbiter.canCommit(key.task(), key.attempt());
  }

  /**
   * The attempt succeeded; any other attempt of its task is ended (KILLED, superseded). False
   * if it was no longer running (ended meanwhile, or its done said twice): nothing changed.
   */
  public synchronized boolean succeeded(AttemptKey key, long now) {
    AttemptInfo info = running(key);
    if (info == null) {
      return false;
    }
    TaskEntry task = entry(key.task());
    finish(info, AttemptState.SUCCEEDED, null, now);
    info.progress = 1.0f;
    task.state = TaskState.SUCCEEDED;
    task.succeeded = info;
    succeeded[index(key.isMap())]++;
    succeededMillis[index(key.isMap())] += now - info.start;
    for (AttemptInfo other : List.copyOf(task.running)) {
      finish(other, AttemptState.KILLED, "Speculation: " + attemptName(key) + " succeeded first",
          now);
      endedByScheduler.add(other.key);
    }
    return true;
  }

  /**
   * The attempt failed (its own report, a timeout, unreadable output): counted against the
   * task's attempts. Returns true if the task will run again.
   */
  public synchronized boolean failed(AttemptKey key, String error, long now) {
    AttemptInfo info = running(key);
    if (info == null) {
      return false;
    }
    TaskEntry task = entry(key.task());
    finish(info, AttemptState.FAILED, error, now);
    blacklist.failed(RunnerId.nodeOf(info.runner));
    task.failedAttempts++;
    return afterAttemptEnded(task, error, now);
  }

  /**
   * The attempt was lost without a failure of its own (its runner or node is gone, it was
   * killed on request): not counted. Returns true if the task will run again.
   */
  public synchronized boolean killed(AttemptKey key, String error, long now) {
    AttemptInfo info = running(key);
    if (info == null) {
      return false;
    }
    finish(info, AttemptState.KILLED, error, now);
    return afterAttemptEnded(entry(key.task()), error, now);
  }

  private void finish(AttemptInfo info, AttemptState state, String error, long now) {
    info.state = state;
    info.finish = now;
    info.error = error;
    int i = index(info.key.isMap());
    if (state != AttemptState.SUCCEEDED) {
      arbiter.release(info.key.task(), info.key.attempt());
      unsuccessful.add(info.key);
      if (state == AttemptState.FAILED) {
        failedAttempts[i]++;
      } else {
        killedAttempts[i]++;
      }
    }
    endedMillis[i] += Math.max(0, now - info.start);
    runningAttempts[i].remove(info);
    entry(info.key.task()).running.remove(info);
    changed.run();
  }

  /** After an attempt ended unsuccessfully: retry the task, fail it, or let the other run. */
  private boolean afterAttemptEnded(TaskEntry task, String error, long now) {
    if (task.state != TaskState.RUNNING) {
      return false;
    }
    if (task.failedAttempts >= policy.maxAttempts(task.key.isMap())) {
      failTask(task, "Task " + taskNames.apply(task.key) + " failed " + task.failedAttempts
          + " times; last error: " + error, now);
      return false;
    }
    if (task.running.isEmpty()) {
      task.state = TaskState.PENDING;
      (task.key.isMap() ? pendingMaps : pendingReduces).addFirst(task);
      return true;
    }
    return false;
  }

  /**
   * The task has used up its attempts. Its other attempts end; the job fails unless
   * mapreduce.{map,reduce}.failures.maxpercent allows this many failed tasks.
   */
  private void failTask(TaskEntry task, String message, long now) {
    task.state = TaskState.FAILED;
    for (AttemptInfo other : List.copyOf(task.running)) {
      finish(other, AttemptState.KILLED, "Its task failed: " + message, now);
      endedByScheduler.add(other.key);
    }
    boolean isMap = task.key.isMap();
    failedTasks[index(isMap)]++;
    int total = isMap ? maps.length : reduces.length;
    if ((failedAllowed[index(isMap)] + 1) * 100L <= (long) policy.failuresMaxPercent(isMap)
        * total) {
      failedAllowed[index(isMap)]++;
    } else if (failure == null) {
      failure = message;
    }
  }

  /** Attempts the scheduler ended on its own since the last call (superseded or orphaned). */
  public synchronized List<AttemptKey> takeEnded() {
    List<AttemptKey> out = List.copyOf(endedByScheduler);
    endedByScheduler.clear();
    return out;
  }

  /**
   * A reduce attempt could not read the output of {@code badMaps}: the reduce attempt ends as
   * KILLED (the fault is the maps'), and each named map attempt that is still its task's
   * successful attempt is marked FAILED (counted) and its task runs again; reduces wait until
   * every map has succeeded again. Returns the map attempts invalidated by this call.
   */
  public synchronized List<AttemptKey> mapOutputLost(AttemptKey reduce, List<AttemptKey> badMaps,
      String error, long now) {
    List<AttemptKey> invalidated = new ArrayList<>();
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
      failedAttempts[0]++;
      unsuccessful.add(m);
      arbiter.release(m.task(), m.attempt());
      task.succeeded = null;
      task.state = TaskState.RUNNING;
      succeeded[0]--;
      succeededMillis[0] -= info.finish - info.start;
      task.failedAttempts++;
      invalidated.add(m);
      afterAttemptEnded(task, info.error, now);
    }
    AttemptInfo r = running(reduce);
    if (r != null && !reduce.isMap()) {
      finish(r, AttemptState.KILLED, error, now);
      afterAttemptEnded(entry(reduce.task()), error, now);
    }
    return invalidated;
  }

  /** The runner an attempt was given to, or null. */
  public synchronized String runnerOf(AttemptKey key) {
    AttemptInfo info = attempts.get(key);
    return info == null ? null : info.runner;
  }

  /**
   * Ends the attempts that made no progress for mapreduce.task.timeout (FAILED, as YARN) or
   * whose runner stopped talking for the heartbeat timeout (KILLED: lost with their runner).
   * Returns the attempts ended by this call.
   */
  public synchronized List<AttemptKey> expire(long now) {
    List<AttemptKey> expired = new ArrayList<>();
    for (AttemptInfo info : running()) {
      if (info.state != AttemptState.RUNNING) {
        continue;  // ended by this loop (its task failed)
      }
      long timeout = policy.taskTimeoutMs();
      if (timeout > 0 && now - info.lastProgress > timeout) {
        failed(info.key, "AttemptID:" + attemptName(info.key) + " Timed out after "
            + timeout / 1000 + " secs", now);
        expired.add(info.key);
      } else if (policy.heartbeatTimeoutMs() > 0
          && now - info.lastContact > policy.heartbeatTimeoutMs()) {
        killed(info.key, "Lost contact with the attempt on " + info.runner + " for "
            + (now - info.lastContact) / 1000 + " secs", now);
        expired.add(info.key);
      }
    }
    return expired;
  }

  /** Kills every running attempt of a runner that is known to be gone (KILLED, not counted). */
  public synchronized List<AttemptKey> runnerLost(String runner, String why, long now) {
    List<AttemptKey> lost = new ArrayList<>();
    for (AttemptInfo info : running()) {
      if (info.state == AttemptState.RUNNING && (runner == null || info.runner.equals(runner))) {
        killed(info.key, why, now);
        lost.add(info.key);
      }
    }
    return lost;
  }

  /** A copy of the running attempts, maps then reduces (callers end some as they go). */
  private List<AttemptInfo> running() {
    List<AttemptInfo> out = new ArrayList<>(runningAttempts[0].size()
        + runningAttempts[1].size());
    out.addAll(runningAttempts[0]);
    out.addAll(runningAttempts[1]);
    return out;
  }

  /** Kills every running attempt (all runners are gone, or the job ended without them). */
  public synchronized List<AttemptKey> killRunning(String why, long now) {
    return runnerLost(null, why, now);
  }

  /** Stops the job (kill or fatal error): nothing is assigned any more. */
  public synchronized void stop(String reason) {
    stopped = true;
    if (failure == null && reason != null) {
      failure = reason;
    }
    changed.run();
  }

  /** Whether the runner's node takes no more tasks (too many failed attempts there). */
  public synchronized boolean excludes(String runner) {
    return blacklist.excludes(RunnerId.nodeOf(runner));
  }

  public synchronized boolean isSucceeded() {
    return failure == null && mapsDone() && succeeded[1] + failedAllowed[1] == reduces.length;
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

  /**
   * {@code node} is down or cut off: none of its runners gets another task (unless it is the
   * last node). Returns true if it was not known lost before.
   */
  public synchronized boolean nodeLost(String node) {
    return blacklist.lost(node);
  }

  /** The nodes blacklisted: too many failed attempts there, or lost. */
  public synchronized java.util.Set<String> blacklistedNodes() {
    return blacklist.blacklisted();
  }

  /** The attempt that succeeded for each map, in map order (null where none). */
  public synchronized AttemptKey[] succeededMaps() {
    AttemptKey[] out = new AttemptKey[maps.length];
    for (int i = 0; i < maps.length; i++) {
      out[i] = maps[i].succeeded == null ? null : maps[i].succeeded.key;
    }
    return out;
  }

  /**
   * Counts for the status record and the counters: tasks (total, completed, failed for good,
   * running) and attempts (launched, failed, killed), and the progress of the phase.
   */
  public record Counts(int total, int completed, int failedAttempts, int running,
      int launched, int killedAttempts, float progress, int failedTasks) {
  }

  public synchronized Counts counts(boolean isMap) {
    int i = index(isMap);
    int total = isMap ? maps.length : reduces.length;
    int running = 0;
    // Succeeded and failed tasks count whole, running ones by their best attempt's progress.
    float progress = succeeded[i] + failedTasks[i];
    for (AttemptInfo a : runningAttempts[i]) {
      TaskEntry t = entry(a.key.task());
      if (t.running.get(0) != a) {
        continue;  // the task's other attempt counted it
      }
      running++;
      float best = 0;
      for (AttemptInfo r : t.running) {
        best = Math.max(best, r.progress);
      }
      progress += best;
    }
    float fraction;
    if (total > 0) {
      fraction = progress / total;
    } else {
      fraction = isMap || mapsDone() ? 1.0f : 0.0f;
    }
    return new Counts(total, succeeded[i], failedAttempts[i], running, launched[i],
        killedAttempts[i], fraction, failedTasks[i]);
  }

  /**
   * Milliseconds spent by the ended attempts of maps [0] and reduces [1], and how many ended
   * [2], [3]: the job counters add an attempt's time when it ends, as YARN's TaskAttemptImpl.
   */
  public synchronized long[] endedAttemptMillis() {
    return new long[] {endedMillis[0], endedMillis[1],
        launched[0] - runningAttempts[0].size(), launched[1] - runningAttempts[1].size()};
  }

  /**
   * The attempts that ended other than SUCCEEDED (or whose success was taken back: their map
   * output was lost), from the {@code from}-th on, in the order they did.
   */
  public synchronized List<AttemptKey> unsuccessfulSince(int from) {
    return from >= unsuccessful.size() ? List.of()
        : List.copyOf(unsuccessful.subList(from, unsuccessful.size()));
  }

  /** A task as a task report shows it. */
  public record TaskSnapshot(TaskKey key, String state, float progress, long start,
      long finish, AttemptKey successful, List<AttemptKey> running, List<String> errors) {
  }

  public synchronized List<TaskSnapshot> tasks(boolean isMap) {
    List<TaskSnapshot> out = new ArrayList<>();
    for (TaskEntry t : isMap ? maps : reduces) {
      out.add(snapshot(t));
    }
    return out;
  }

  public synchronized TaskSnapshot task(TaskKey key) {
    return snapshot(entry(key));
  }

  private TaskSnapshot snapshot(TaskEntry t) {
    long start = t.attempts.isEmpty() ? 0 : t.attempts.get(0).start;
    long finish = 0;
    float progress = t.state == TaskState.SUCCEEDED ? 1.0f : 0f;
    List<AttemptKey> running = new ArrayList<>();
    List<String> errors = new ArrayList<>();
    for (AttemptInfo a : t.attempts) {
      if (a.state == AttemptState.RUNNING) {
        running.add(a.key);
        progress = Math.max(progress, a.progress);
      } else {
        finish = Math.max(finish, a.finish);
      }
      if (a.error != null) {
        errors.add(a.error);
      }
    }
    boolean done = t.state == TaskState.SUCCEEDED || t.state == TaskState.FAILED;
    return new TaskSnapshot(t.key, t.state.name(), progress, start, done ? finish : 0,
        t.succeeded == null ? null : t.succeeded.key, running, errors);
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
