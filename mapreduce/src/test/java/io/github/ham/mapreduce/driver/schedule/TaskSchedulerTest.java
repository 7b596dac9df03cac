package io.github.ham.mapreduce.driver.schedule;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

import io.github.ham.mapreduce.common.ids.AttemptKey;
import io.github.ham.mapreduce.common.ids.AttemptState;
import io.github.ham.mapreduce.common.ids.TaskKey;
import io.github.ham.mapreduce.driver.schedule.RunnerKind;

class TaskSchedulerTest {
  private static TaskScheduler scheduler(int maps, int reduces) {
    return new TaskScheduler(maps, reduces, SchedulingPolicy.basic(2, 1000, 5000));
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
    TaskScheduler s = new TaskScheduler(1, 0, SchedulingPolicy.basic(1, 0, 100));
    AttemptKey a = s.assign("a", 0);
    assertEquals(List.of(a), s.expire(500));
    assertEquals(AttemptState.KILLED, s.attempt(a).state(), "lost with its runner, as YARN");
    assertNotNull(s.assign("b", 500), "retried, although one attempt is all the task has");
  }

  @Test
  void runnerLostKillsItsAttemptsOnlyAndTheyDoNotCount() {
    TaskScheduler s = scheduler(2, 0);
    AttemptKey a = s.assign("node1/r0", 0);
    AttemptKey b = s.assign("node2/r0", 0);
    assertEquals(List.of(a), s.runnerLost("node1/r0", "gone", 1));
    assertTrue(s.isActive(b));
    assertEquals("gone", s.attempt(a).error());
    assertEquals(AttemptState.KILLED, s.attempt(a).state());
    // Lost again and again (2 attempts allowed): the task is still retried.
    AttemptKey a1 = s.assign("node3/r0", 2);
    s.runnerLost("node3/r0", "gone", 3);
    AttemptKey a2 = s.assign("node3/r1", 4);
    assertEquals(a.task(), a2.task());
    assertEquals(2, a2.attempt());
    assertEquals(AttemptState.KILLED, s.attempt(a1).state());
    assertEquals(0, s.counts(true).failedAttempts());
    assertEquals(2, s.counts(true).killedAttempts());
  }

  @Test
  void failuresWithinMaxPercentLetTheJobSucceed() {
    SchedulingPolicy p = new SchedulingPolicy(1, 1, 0, 0, 25, 0, 0, 100, false, false, 0.1, 0, 0, 0);
    TaskScheduler s = new TaskScheduler(4, 1, p);
    AttemptKey[] m = new AttemptKey[4];
    for (int i = 0; i < 4; i++) {
      m[i] = s.assign("r" + i, 0);
    }
    assertFalse(s.failed(m[0], "bad record", 1));
    assertFalse(s.isFailed(), "one map of four is within 25%");
    for (int i = 1; i < 4; i++) {
      s.succeeded(m[i], 2);
    }
    AttemptKey r = s.assign("r0", 3);
    assertNotNull(r, "the reduce runs without the failed map");
    assertNull(s.succeededMaps()[0]);
    s.succeeded(r, 4);
    assertTrue(s.isSucceeded());
    assertEquals(1, s.counts(true).failedTasks());
  }

  @Test
  void failuresBeyondMaxPercentFailTheJob() {
    SchedulingPolicy p = new SchedulingPolicy(1, 1, 0, 0, 25, 0, 0, 100, false, false, 0.1, 0, 0, 0);
    TaskScheduler s = new TaskScheduler(4, 0, p);
    AttemptKey a = s.assign("r0", 0);
    AttemptKey b = s.assign("r1", 0);
    s.failed(a, "one", 1);
    s.failed(b, "two", 1);
    assertTrue(s.isFailed());
    assertTrue(s.failure().contains("two"));
  }

  @Test
  void aNodeWithTooManyFailuresGetsNoMoreTasks() {
    SchedulingPolicy p = new SchedulingPolicy(9, 9, 0, 0, 0, 0, 2, 50, false, false, 0.1, 0, 0, 0);
    TaskScheduler s = new TaskScheduler(3, 0, p);
    s.assign("node2/g0-p0/2", 0);
    s.assign("node3/g0-p0/3", 0);
    s.failed(s.assign("node1/g0-p0/1", 0), "x", 1);
    s.failed(s.assign("node1/g0-p0/1", 1), "x", 2);
    assertEquals(java.util.Set.of("node1"), s.blacklistedNodes());
    assertNull(s.assign("node1/g0-p1/9", 3), "node1 is blacklisted (1 of 3 nodes <= 50%)");
    assertNotNull(new TaskScheduler(1, 0, p).assign("node1/g0-p0/1", 0));
  }

  @Test
  void blacklistingIsIgnoredWhenItWouldExcludeTooManyNodes() {
    SchedulingPolicy p = new SchedulingPolicy(9, 9, 0, 0, 0, 0, 1, 33, false, false, 0.1, 0, 0, 0);
    TaskScheduler s = new TaskScheduler(2, 0, p);
    s.assign("node2/g0-p0/2", 0);
    s.failed(s.assign("node1/g0-p0/1", 0), "x", 1);
    assertEquals(java.util.Set.of("node1"), s.blacklistedNodes());
    assertNotNull(s.assign("node1/g0-p0/1", 2), "1 of 2 nodes is over 33%: ignored, as YARN");
  }

  @Test
  void aLostNodeGetsNoMoreTasksWhateverTheThresholdUnlessItIsTheLast() {
    // Blacklisting for failures off (0) and a 33% threshold: a lost node is excluded anyway.
    SchedulingPolicy p = new SchedulingPolicy(9, 9, 0, 0, 0, 0, 0, 33, false, false, 0.1, 0, 0, 0);
    TaskScheduler s = new TaskScheduler(6, 0, p);
    s.assign("node1/g0-p0/1", 0);
    s.assign("node2/g0-p0/2", 0);
    assertTrue(s.nodeLost("node3"));
    assertFalse(s.nodeLost("node3"), "told once");
    assertNull(s.assign("node3/g1-p0/3", 1), "node3 is lost");
    assertEquals(java.util.Set.of("node3"), s.blacklistedNodes());
    assertNotNull(s.assign("node1/g0-p0/1", 1));
    TaskScheduler alone = new TaskScheduler(2, 0, p);
    alone.nodeLost("node1");
    assertNotNull(alone.assign("node1/g0-p0/1", 1), "the only node seen: not starved");
  }

  @Test
  void aStragglerGetsASpeculativeAttemptAndTheFirstToFinishWins() {
    SchedulingPolicy p = new SchedulingPolicy(4, 4, 0, 0, 0, 0, 0, 33, true, true, 0.1, 1000, 0, 0);
    TaskScheduler s = new TaskScheduler(3, 0, p);
    AttemptKey slow = s.assign("node1/a", 0);
    AttemptKey m1 = s.assign("node2/b", 0);
    AttemptKey m2 = s.assign("node3/c", 0);
    s.succeeded(m1, 500);
    s.succeeded(m2, 700);
    assertNull(s.assign("node2/b", 800), "too early: under the 1 s floor");
    s.progress(slow, 0.05f, 1200);
    AttemptKey spec = s.assign("node2/b", 1500);
    assertNotNull(spec, "5% done after 1.5 s, where others took 0.6 s: speculate");
    assertEquals(slow.task(), spec.task());
    assertTrue(s.attempt(spec).speculative());
    assertNull(s.assign("node3/c", 1600), "one speculative attempt per task");
    assertTrue(s.canCommit(spec));
    assertFalse(s.canCommit(slow), "the first to ask commits");
    s.succeeded(spec, 2000);
    assertEquals(List.of(slow), s.takeEnded());
    assertEquals(AttemptState.KILLED, s.attempt(slow).state());
    assertTrue(s.attempt(slow).error().startsWith("Speculation: "));
    assertTrue(s.isSucceeded());
    assertEquals(0, s.counts(true).failedAttempts());
  }

  @Test
  void runnerKindsTakeTheirTasksOnly() {
    TaskScheduler s = scheduler(1, 1);
    assertNull(s.assign("r", RunnerKind.REDUCE, 0), "reduces wait for the maps");
    AttemptKey m = s.assign("m", RunnerKind.MAP, 0);
    assertTrue(m.isMap());
    assertTrue(s.hasWork(RunnerKind.MAP));
    s.succeeded(m, 1);
    assertFalse(s.hasWork(RunnerKind.MAP), "map runners may go");
    assertNull(s.assign("m", RunnerKind.MAP, 2));
    assertTrue(s.hasWork(RunnerKind.REDUCE));
    assertFalse(s.assign("r", RunnerKind.REDUCE, 2).isMap());
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

  @Test
  void runningLimitsCapConcurrentTasks() {
    SchedulingPolicy p = new SchedulingPolicy(4, 4, 0, 0, 0, 0, 0, 33, false, false, 0.1, 0, 2,
        0);
    TaskScheduler s = new TaskScheduler(3, 0, p);
    AttemptKey a = s.assign("r1", 0);
    assertNotNull(s.assign("r2", 0));
    assertNull(s.assign("r3", 0), "mapreduce.job.running.map.limit=2");
    s.succeeded(a, 1);
    assertNotNull(s.assign("r3", 1));
  }

  @Test
  void resumedRunKeepsRecoveredTasksAndNumbersItsAttemptsFromTheRun() {
    TaskScheduler s = new TaskScheduler(2, 1, SchedulingPolicy.basic(2, 1000, 5000), 1000);
    AttemptKey earlier = new AttemptKey(new TaskKey(true, 0), 3);
    s.recovered(earlier, "node1", 10, 20);
    AttemptKey m1 = s.assign("a", 100);
    assertEquals(new TaskKey(true, 1), m1.task(), "the recovered map does not run again");
    assertEquals(1000, m1.attempt());
    assertNull(s.assign("b", 100), "the reduce waits for the map that is not done");
    s.succeeded(m1, 200);
    AttemptKey r0 = s.assign("b", 200);
    assertEquals(1000, r0.attempt());
    s.succeeded(r0, 300);
    assertTrue(s.isSucceeded());
    assertEquals(2, s.counts(true).completed());
    assertEquals(earlier, s.task(earlier.task()).successful());
  }
}
