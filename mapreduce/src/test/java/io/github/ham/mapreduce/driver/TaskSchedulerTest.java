package io.github.ham.mapreduce.driver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

import io.github.ham.mapreduce.common.AttemptKey;
import io.github.ham.mapreduce.common.AttemptState;
import io.github.ham.mapreduce.common.TaskKey;

class TaskSchedulerTest {
  private static TaskScheduler scheduler(int maps, int reduces) {
    return new TaskScheduler(maps, reduces, new TaskScheduler.Limits(2, 2, 1000, 5000));
  }

  @Test
  void mapsFirstThenReducesAfterAllMapsSucceeded() {
    TaskScheduler s = scheduler(2, 1);
    AttemptKey m0 = s.assign("a", 0);
    AttemptKey m1 = s.assign("b", 0);
    assertTrue(m0.isMap() && m1.isMap());
    assertNull(s.assign("c", 0), "reduce must wait for all maps");
    s.succeeded(m0, 1);
    assertNull(s.assign("c", 1));
    s.succeeded(m1, 2);
    AttemptKey r0 = s.assign("c", 2);
    assertNotNull(r0);
    assertFalse(r0.isMap());
    assertFalse(s.isFinished());
    s.succeeded(r0, 3);
    assertTrue(s.isSucceeded());
    assertTrue(s.isFinished());
    assertNull(s.assign("a", 4));
  }

  @Test
  void failedAttemptIsRetriedThenFailsTheJob() {
    TaskScheduler s = scheduler(1, 0);
    AttemptKey a0 = s.assign("a", 0);
    assertTrue(s.failed(a0, "boom", 1));
    AttemptKey a1 = s.assign("a", 1);
    assertEquals(1, a1.attempt());
    assertEquals(a0.task(), a1.task());
    assertFalse(s.failed(a1, "boom again", 2));
    assertTrue(s.isFailed());
    assertTrue(s.failure().contains("boom again"));
    assertNull(s.assign("a", 3));
    assertEquals(2, s.counts(true).failedAttempts());
  }

  @Test
  void exactlyOneAttemptMayCommit() {
    TaskScheduler s = scheduler(1, 0);
    AttemptKey a0 = s.assign("a", 0);
    assertTrue(s.canCommit(a0));
    assertTrue(s.canCommit(a0), "the winner may ask again");
    AttemptKey other = new AttemptKey(a0.task(), 7);
    assertFalse(s.canCommit(other), "unknown attempt");
    s.failed(a0, "lost", 1);
    assertFalse(s.canCommit(a0), "a failed attempt may not commit");
    AttemptKey a1 = s.assign("b", 2);
    assertTrue(s.canCommit(a1), "the right is released when the winner fails");
  }

  @Test
  void commitArbiterFirstAskerWins() {
    CommitArbiter arbiter = new CommitArbiter();
    TaskKey t = new TaskKey(false, 3);
    assertTrue(arbiter.canCommit(t, 1));
    assertFalse(arbiter.canCommit(t, 2));
    arbiter.release(t, 2);
    assertFalse(arbiter.canCommit(t, 2), "only the winner can release");
    arbiter.release(t, 1);
    assertTrue(arbiter.canCommit(t, 2));
  }

  @Test
  void noProgressTimesOutAndNoContactIsLost() {
    TaskScheduler s = scheduler(2, 0);
    AttemptKey a = s.assign("a", 0);
    AttemptKey b = s.assign("b", 0);
    s.progress(a, 0.5f, 900);
    s.ping(b, 900);
    List<AttemptKey> expired = s.expire(1500);
    assertEquals(List.of(b), expired, "b pinged but made no progress for the task timeout");
    s.progress(a, 0.6f, 1800);
    assertTrue(s.expire(2000).isEmpty());
    assertTrue(s.isActive(a));
    assertFalse(s.isActive(b));
  }

  @Test
  void heartbeatLossFailsAttempt() {
    TaskScheduler s = new TaskScheduler(1, 0, new TaskScheduler.Limits(4, 4, 0, 100));
    AttemptKey a = s.assign("a", 0);
    assertEquals(List.of(a), s.expire(500));
    assertNotNull(s.assign("b", 500), "retried on another runner");
  }

  @Test
  void runnerLostFailsItsAttemptsOnly() {
    TaskScheduler s = scheduler(2, 0);
    AttemptKey a = s.assign("node1/r0", 0);
    AttemptKey b = s.assign("node2/r0", 0);
    assertEquals(List.of(a), s.runnerLost("node1/r0", "gone", 1));
    assertTrue(s.isActive(b));
    assertEquals("gone", s.attempt(a).error());
  }

  @Test
  void zeroMapsAndReducesSucceedsAtOnce() {
    TaskScheduler s = scheduler(0, 0);
    assertTrue(s.isSucceeded());
    assertEquals(1.0f, s.counts(true).progress());
    assertEquals(1.0f, s.counts(false).progress());
  }

  @Test
  void zeroMapsStillRunsReduces() {
    TaskScheduler s = scheduler(0, 1);
    AttemptKey r = s.assign("a", 0);
    assertNotNull(r);
    assertFalse(r.isMap());
  }

  @Test
  void stopEndsAssignments() {
    TaskScheduler s = scheduler(3, 0);
    s.stop("killed");
    assertTrue(s.isFinished());
    assertNull(s.assign("a", 0));
    assertEquals("killed", s.failure());
  }

  @Test
  void badMapOutputRerunsTheMapThenTheReduce() {
    TaskScheduler s = scheduler(2, 1);
    AttemptKey m0 = s.assign("a", 0);
    AttemptKey m1 = s.assign("b", 0);
    s.succeeded(m0, 1);
    s.succeeded(m1, 1);
    AttemptKey r0 = s.assign("c", 2);
    assertNotNull(r0);
    List<AttemptKey> bad = s.mapOutputLost(r0, List.of(m1), "truncated", 3);
    assertEquals(List.of(m1), bad);
    assertEquals(AttemptState.KILLED, s.attempt(r0).state());
    assertEquals(AttemptState.FAILED, s.attempt(m1).state());
    assertTrue(s.attempt(m1).error().contains("truncated"));
    assertFalse(s.isFinished());
    AttemptKey m1b = s.assign("c", 4);
    assertEquals(m1.task(), m1b.task());
    assertEquals(1, m1b.attempt());
    assertNull(s.assign("a", 4), "the reduce waits for the re-run map");
    // A stale report naming the old attempt again changes nothing for the map.
    s.succeeded(m1b, 5);
    AttemptKey r1 = s.assign("a", 6);
    assertEquals(r0.task(), r1.task());
    assertTrue(s.mapOutputLost(r1, List.of(m1), "stale", 7).isEmpty());
    AttemptKey r2 = s.assign("a", 8);
    assertEquals(2, r2.attempt());
    s.succeeded(r2, 9);
    assertTrue(s.isSucceeded());
    assertEquals(0, s.counts(false).failedAttempts(), "killed reduce attempts do not count");
    assertEquals(2, s.counts(false).killedAttempts());
  }

  @Test
  void mapWhoseOutputIsBadTooOftenFailsTheJob() {
    TaskScheduler s = scheduler(1, 1);
    AttemptKey m = s.assign("a", 0);
    s.succeeded(m, 1);
    AttemptKey r = s.assign("a", 2);
    s.mapOutputLost(r, List.of(m), "bad", 3);
    AttemptKey m2 = s.assign("a", 4);
    s.succeeded(m2, 5);
    AttemptKey r2 = s.assign("a", 6);
    s.mapOutputLost(r2, List.of(m2), "bad again", 7);
    assertTrue(s.isFailed());
    assertTrue(s.failure().contains("bad again"));
  }
}
