package io.github.ham.mapreduce.driver.launch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

import io.github.ham.mapreduce.common.protocol.FreshJvm;
import io.github.ham.mapreduce.driver.launch.NodeState;
import io.github.ham.mapreduce.driver.launch.RunnerExit;
import io.github.ham.mapreduce.driver.launch.RunnerTracker.Decision;
import io.github.ham.mapreduce.driver.launch.RunnerTracker.Lost;
import io.github.ham.mapreduce.driver.schedule.RunnerKind;

class RunnerTrackerTest {
  @Test
  void processExitMakesTheRunnerLostOnce() {
    RunnerTracker t = new RunnerTracker();
    t.started("g0-p1", null, RunnerKind.ANY, 0);
    assertTrue(t.contact("node2/g0-p1/99", 10));
    Lost lost = t.exited(new RunnerExit("g0-p1", "node2", "Killed"));
    assertNotNull(lost);
    assertEquals("node2/g0-p1/99", lost.runnerId());
    assertEquals("node2", lost.node());
    assertTrue(lost.reason().contains("Killed"));
    assertNull(t.exited(new RunnerExit("g0-p1", "node2", "Killed")), "reported once");
    assertFalse(t.contact("node2/g0-p1/99", 20), "a lost runner is told to exit");
    assertTrue(t.isLost("node2/g0-p1/99"));
  }

  @Test
  void exitBeforeFirstContactIsLostWithoutRunnerId() {
    RunnerTracker t = new RunnerTracker();
    t.started("g1-p0", "node3", RunnerKind.ANY, 0);
    Lost lost = t.exited(new RunnerExit("g1-p0", null, "exit status 1"));
    assertNull(lost.runnerId());
    assertEquals("node3", lost.node());
  }

  @Test
  void silentRunnerIsLostAfterTheHeartbeatTimeout() {
    RunnerTracker t = new RunnerTracker();
    t.contact("node1/g0-p0/1", 0);
    t.contact("node2/g0-p1/2", 0);
    t.contact("node2/g0-p1/2", 4000);
    assertTrue(t.expire(5000, 5000, 0).isEmpty());
    List<Lost> lost = t.expire(5001, 5000, 0);
    assertEquals(1, lost.size());
    assertEquals("node1/g0-p0/1", lost.get(0).runnerId());
    assertEquals("node1", lost.get(0).node());
    assertTrue(t.expire(20000, 5000, 0).stream().allMatch(l -> l.slot().equals("g0-p1")));
    assertTrue(t.expire(30000, 5000, 0).isEmpty(), "each runner is lost once");
    assertFalse(t.anyLive(RunnerKind.ANY));
  }

  @Test
  void runnersThatNeverCalledAreExpiredOnlyAfterTheStartTimeout() {
    RunnerTracker t = new RunnerTracker();
    t.started("g0-p0", null, RunnerKind.ANY, 0);
    t.started("g0-p1", "node2", RunnerKind.ANY, 0);
    t.contact("node2/g0-p1/2", 90_000);
    assertTrue(t.expire(100_000, 50_000, 120_000).isEmpty(), "the heartbeat timeout is not it");
    assertTrue(t.expire(200_000, 0, 0).isEmpty(), "0: no limit");
    List<Lost> lost = t.expire(120_001, 0, 120_000);
    assertEquals(1, lost.size());
    assertEquals("g0-p0", lost.get(0).slot());
    assertNull(lost.get(0).runnerId());
    assertTrue(lost.get(0).reason().contains("did not reach the driver"), lost.get(0).reason());
  }

  @Test
  void allLostStopsSingleReplacements() {
    RunnerTracker t = new RunnerTracker();
    t.contact("node1/g0-p0/1", 0);
    t.allLost(RunnerKind.ANY);
    assertNull(t.exited(new RunnerExit("g0-p0", "node1", "Killed")));
    assertTrue(t.expire(100_000, 10, 0).isEmpty());
  }

  @Test
  void retiredRunnersAreNeitherLiveNorLost() {
    RunnerTracker t = new RunnerTracker();
    t.started("g0-p0", null, RunnerKind.MAP, 0);
    t.started("g1-p0", null, RunnerKind.REDUCE, 0);
    t.contact("node1/g0-p0/1", 0);
    assertEquals(RunnerKind.MAP, t.kindOf("node1/g0-p0/1"));
    assertFalse(t.anyRetired(RunnerKind.MAP));
    t.retire("node1/g0-p0/1");
    assertTrue(t.anyRetired(RunnerKind.MAP));
    assertFalse(t.anyLive(RunnerKind.MAP));
    assertTrue(t.anyLive(RunnerKind.REDUCE));
    assertNull(t.exited(new RunnerExit("g0-p0", "node1", "exit status 0")), "its exit is no loss");
    assertTrue(t.expire(100_000, 10, 0).stream().noneMatch(l -> l.slot().equals("g0-p0")));
    assertFalse(t.contact("node1/g0-p0/1", 5), "a retired runner is told to exit again");
  }

  @Test
  void reachedCountsRunnersThatMayParkRetiredOnesUntilTheyExit() {
    RunnerTracker t = new RunnerTracker();
    for (String slot : new String[] {"g0-p0", "g0-p1", "g0-p2", "g0-p3"}) {
      t.started(slot, "node1", RunnerKind.ANY, 0);
    }
    t.contact("node1/g0-p0/1", 0);
    t.contact("node1/g0-p1/2", 0);
    t.contact("node1/g0-p2/3", 0);
    assertEquals(3, t.reached(), "g0-p3 never reached the driver");
    t.retire("node1/g0-p0/1");
    assertEquals(3, t.reached(), "a retired runner parks");
    t.exited(new RunnerExit("g0-p0", "node1", "exit status 0"));
    assertEquals(2, t.reached(), "an exited one does not");
    t.exited(new RunnerExit("g0-p1", "node1", "Killed"));
    assertEquals(1, t.reached(), "nor a lost one");
  }

  @Test
  void decision() {
    assertEquals(Decision.REPLACE,
        RunnerTracker.decide(false, "node2", 0, 3, NodeState.HEALTHY, false));
    assertEquals(Decision.REPLACE,
        RunnerTracker.decide(false, "node2", 2, 3, NodeState.HEALTHY, false));
    assertEquals(Decision.BUDGET_EXHAUSTED,
        RunnerTracker.decide(false, "node2", 3, 3, NodeState.HEALTHY, false));
    assertEquals(Decision.BUDGET_EXHAUSTED,
        RunnerTracker.decide(false, "node2", 0, 0, NodeState.HEALTHY, false));
    assertEquals(Decision.NODE_UNHEALTHY,
        RunnerTracker.decide(false, "node2", 0, 3, NodeState.UNHEALTHY, false));
    assertEquals(Decision.NODE_UNKNOWN,
        RunnerTracker.decide(false, "node2", 0, 3, NodeState.UNKNOWN, false));
    assertEquals(Decision.NODE_UNREACHABLE,
        RunnerTracker.decide(false, "node2", 0, 3, NodeState.UNREACHABLE, false));
    assertEquals(Decision.NODE_UNREACHABLE,
        RunnerTracker.decide(false, "node2", 3, 3, NodeState.UNREACHABLE, false),
        "a lost node is blacklisted whatever the relaunch budget");
    assertEquals(Decision.JOB_FINISHED,
        RunnerTracker.decide(true, "node2", 0, 3, NodeState.HEALTHY, false));
    assertEquals(Decision.NO_NODE,
        RunnerTracker.decide(false, null, 0, 3, NodeState.UNKNOWN, false));
    assertEquals(Decision.BUDGET_EXHAUSTED,
        RunnerTracker.decide(false, null, 3, 3, NodeState.UNKNOWN, false),
        "no relaunch left is the reason, whether or not the node is known");
  }

  @Test
  void driverCausedExitIsReplacedBeyondTheBudget() {
    RunnerTracker t = new RunnerTracker();
    t.contact("node1/g0-p0/1", 0);
    t.contact("node2/g0-p1/2", 0);
    t.expectExit("node1/g0-p0/1");
    Lost expected = t.exited(new RunnerExit("g0-p0", "node1", "Exited with exit code 66"));
    assertTrue(expected.expected());
    assertFalse(t.exited(new RunnerExit("g0-p1", "node2", "Killed")).expected());
    assertEquals(Decision.REPLACE,
        RunnerTracker.decide(false, "node1", 3, 3, NodeState.HEALTHY, true));
    assertEquals(Decision.NODE_UNHEALTHY,
        RunnerTracker.decide(false, "node1", 3, 3, NodeState.UNHEALTHY, true));
    assertEquals(Decision.JOB_FINISHED,
        RunnerTracker.decide(true, "node1", 0, 3, NodeState.HEALTHY, true));
  }

  @Test
  void aRunnerAskingForAFreshJvmSaysSoAndCountsAsAnyLostRunner() {
    RunnerTracker t = new RunnerTracker();
    t.contact("node1/g0-p0/1", 0);
    t.contact("node2/g0-p1/2", 0);
    Lost fresh = t.exited(new RunnerExit("g0-p0", "node1",
        "Exited with exit code " + FreshJvm.EXIT_STATUS));
    assertFalse(fresh.expected(), "counted: a class failing in every JVM must not loop");
    assertTrue(fresh.reason().contains("asked for a fresh JVM"), fresh.reason());
    assertEquals("node1", fresh.node());
    Lost other = t.exited(new RunnerExit("g0-p1", "node2", "Exited with exit code 1"));
    assertFalse(other.reason().contains("fresh JVM"), other.reason());
  }
}
