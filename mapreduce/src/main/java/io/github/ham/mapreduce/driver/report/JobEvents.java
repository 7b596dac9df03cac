package io.github.ham.mapreduce.driver.report;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.github.ham.mapreduce.common.ids.AttemptKey;
import io.github.ham.mapreduce.common.ids.AttemptState;
import io.github.ham.mapreduce.common.ids.RunnerId;
import io.github.ham.mapreduce.driver.commit.Recovery;
import io.github.ham.mapreduce.driver.schedule.AttemptIds;
import io.github.ham.mapreduce.driver.schedule.AttemptInfo;
import io.github.ham.mapreduce.driver.schedule.TaskScheduler;
import io.github.ham.mapreduce.history.IndexedCounters;
import io.github.ham.mapreduce.history.JobHistoryLog;
import io.github.ham.mapreduce.history.JobTotals;

import org.apache.hadoop.mapreduce.TaskAttemptID;
import org.apache.hadoop.mapreduce.TaskCompletionEvent;

/**
 * What the client reads about attempts that ended: task completion events (the client prints
 * failed attempts from them) and each attempt's diagnostics. Thread-safe.
 */
public final class JobEvents {
  private final TaskScheduler scheduler;
  private final AttemptIds ids;
  private final Wakeup wakeup;
  private final JobCounters counters;
  private final JobHistoryLog history;
  private final List<TaskCompletionEvent> events = new ArrayList<>();
  private final Map<AttemptKey, List<String>> diagnostics = new HashMap<>();

  public JobEvents(TaskScheduler scheduler, AttemptIds ids, Wakeup wakeup, JobCounters counters,
      JobHistoryLog history) {
    this.scheduler = scheduler;
    this.ids = ids;
    this.wakeup = wakeup;
    this.counters = counters;
    this.history = history;
  }

  /** A task an earlier run finished, taken over: its counters and its history again. */
  public void recovered(Recovery.Done d) {
    counters.update(d.attempt(), new org.apache.hadoop.mapred.Counters(d.counters()));
    history.recovered(d.id(), d.node(), d.container(), d.taskStart(), d.start(), d.finish(),
        d.counters());
  }

  /** The job stopped before it finished: its history so far is kept for a resume. */
  public void stopped() {
    history.stopped();
  }

  /** A runner took an attempt. */
  public void started(AttemptKey key) {
    AttemptInfo.Snapshot a = scheduler.attempt(key);
    history.attemptStarted(ids.attempt(key), a.runner(), a.start(), a.speculative());
  }

  /**
   * Records the completion event of an attempt that just ended, with the state the scheduler
   * gave it (SUCCEEDED, FAILED or KILLED) and its error if any.
   */
  public void ended(AttemptKey key) {
    AttemptInfo.Snapshot a = scheduler.attempt(key);
    if (a == null || a.state() == AttemptState.RUNNING) {
      return;
    }
    if (a.error() != null) {
      addDiagnostic(key, a.error());
    }
    TaskCompletionEvent.Status status = switch (a.state()) {
      case SUCCEEDED -> TaskCompletionEvent.Status.SUCCEEDED;
      case FAILED -> TaskCompletionEvent.Status.FAILED;
      default -> TaskCompletionEvent.Status.KILLED;
    };
    synchronized (events) {
      events.add(new TaskCompletionEvent(events.size(), ids.attempt(key), key.task().index(),
          key.isMap(), status, ""));
    }
    // Read in the history's thread (the attempt has ended: its counters no longer change),
    // once for the attempt's and the task's events.
    java.util.function.Supplier<IndexedCounters> c = () -> counters.indexed(key);
    history.attemptEnded(ids.attempt(key), a.state().name(), RunnerId.nodeOf(a.runner()),
        a.start(), a.finish(), a.error(), c);
    TaskScheduler.TaskSnapshot task = scheduler.task(key.task());
    if (task.state().equals("SUCCEEDED") && key.equals(task.successful())
        || task.state().equals("FAILED")) {
      history.taskEnded(ids.task(key.task()), task.state(), ids.attempt(key), a.finish(),
          a.error(), c);
    }
    wakeup.signal();
  }

  public void ended(List<AttemptKey> keys) {
    for (AttemptKey key : keys) {
      ended(key);
    }
  }

  /**
   * The job ended in {@code state}: the history gets its last events, with the task counts and
   * counters the job-end events carry (tasks, not attempts, as JobHistoryEventHandler counts),
   * written in the history's thread ({@link #historyWritten} waits for them).
   */
  public void jobEnded(String state, long finishTime, String failureInfo) {
    int[] succeeded = new int[2];
    int[] failed = new int[2];
    int[] killed = new int[2];
    List<org.apache.hadoop.mapreduce.TaskID> unfinished = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      for (TaskScheduler.TaskSnapshot t : scheduler.tasks(i == 0)) {
        switch (t.state()) {
          case "SUCCEEDED" -> succeeded[i]++;
          case "FAILED" -> failed[i]++;
          default -> {
            killed[i]++;
            unfinished.add(ids.task(t.key()));
          }
        }
      }
    }
    history.jobEnded(state, finishTime, new JobTotals(succeeded, failed, killed,
        new org.apache.hadoop.mapreduce.Counters(counters.succeededTasks(true)),
        new org.apache.hadoop.mapreduce.Counters(counters.succeededTasks(false)),
        new org.apache.hadoop.mapreduce.Counters(counters.total())),
        failureInfo == null ? List.of() : List.of(failureInfo), unfinished);
  }

  /** Waits until the history's end ({@link #jobEnded}) is written. */
  public void historyWritten() {
    history.written();
  }

  public void addDiagnostic(AttemptKey key, String text) {
    synchronized (diagnostics) {
      List<String> list = diagnostics.computeIfAbsent(key, k -> new ArrayList<>());
      if (!list.contains(text)) {
        list.add(text);
      }
    }
  }

  public String[] diagnostics(TaskAttemptID attempt) {
    AttemptKey key = ids.keyOf(attempt);
    synchronized (diagnostics) {
      List<String> list = key == null ? null : diagnostics.get(key);
      return list == null ? new String[0] : list.toArray(new String[0]);
    }
  }

  public TaskCompletionEvent[] events(int from, int max) {
    synchronized (events) {
      int end = Math.min(events.size(), from + max);
      if (from >= end) {
        return new TaskCompletionEvent[0];
      }
      return events.subList(from, end).toArray(new TaskCompletionEvent[0]);
    }
  }
}
