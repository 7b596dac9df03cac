package io.github.ham.mapreduce.driver.schedule;

import io.github.ham.mapreduce.common.ids.AttemptKey;
import io.github.ham.mapreduce.common.ids.AttemptState;

/** What the driver knows about one attempt; mutable, guarded by the {@link TaskScheduler}. */
public final class AttemptInfo {
  final AttemptKey key;
  final String runner;
  final long start;
  /** A second attempt started for a straggling task. */
  final boolean speculative;
  AttemptState state = AttemptState.RUNNING;
  long finish;
  long lastProgress;
  long lastContact;
  float progress;
  String error;

  AttemptInfo(AttemptKey key, String runner, long now, boolean speculative) {
    this.key = key;
    this.runner = runner;
    this.start = now;
    this.speculative = speculative;
    this.lastProgress = now;
    this.lastContact = now;
  }

  /** An immutable copy for readers outside the scheduler's lock. */
  public record Snapshot(AttemptKey key, String runner, AttemptState state, long start,
      long finish, float progress, String error, boolean speculative) {
  }

  Snapshot snapshot() {
    return new Snapshot(key, runner, state, start, finish, progress, error, speculative);
  }
}
