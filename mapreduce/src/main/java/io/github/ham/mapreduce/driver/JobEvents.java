package io.github.ham.mapreduce.driver;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.github.ham.mapreduce.common.AttemptKey;
import io.github.ham.mapreduce.common.AttemptState;

import org.apache.hadoop.mapreduce.TaskAttemptID;
import org.apache.hadoop.mapreduce.TaskCompletionEvent;

/**
 * What the client reads about attempts that ended: task completion events (the client prints
 * failed attempts from them) and each attempt's diagnostics. Thread-safe.
 */
final class JobEvents {
  private final TaskScheduler scheduler;
  private final AttemptIds ids;
  private final Wakeup wakeup;
  private final List<TaskCompletionEvent> events = new ArrayList<>();
  private final Map<AttemptKey, List<String>> diagnostics = new HashMap<>();

  JobEvents(TaskScheduler scheduler, AttemptIds ids, Wakeup wakeup) {
    this.scheduler = scheduler;
    this.ids = ids;
    this.wakeup = wakeup;
  }

  /**
   * Records the completion event of an attempt that just ended, with the state the scheduler
   * gave it (SUCCEEDED, FAILED or KILLED) and its error if any.
   */
  void ended(AttemptKey key) {
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
    wakeup.signal();
  }

  void ended(List<AttemptKey> keys) {
    for (AttemptKey key : keys) {
      ended(key);
    }
  }

  void addDiagnostic(AttemptKey key, String text) {
    synchronized (diagnostics) {
      List<String> list = diagnostics.computeIfAbsent(key, k -> new ArrayList<>());
      if (!list.contains(text)) {
        list.add(text);
      }
    }
  }

  String[] diagnostics(TaskAttemptID attempt) {
    AttemptKey key = ids.keyOf(attempt);
    synchronized (diagnostics) {
      List<String> list = key == null ? null : diagnostics.get(key);
      return list == null ? new String[0] : list.toArray(new String[0]);
    }
  }

  TaskCompletionEvent[] events(int from, int max) {
    synchronized (events) {
      int end = Math.min(events.size(), from + max);
      if (from >= end) {
        return new TaskCompletionEvent[0];
      }
      return events.subList(from, end).toArray(new TaskCompletionEvent[0]);
    }
  }
}
