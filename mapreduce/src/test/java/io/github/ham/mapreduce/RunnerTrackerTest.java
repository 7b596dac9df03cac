package io.github.ham.mapreduce;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

import io.github.ham.mapreduce.RunnerTracker.Decision;
import io.github.ham.mapreduce.RunnerTracker.Exit;
import io.github.ham.mapreduce.RunnerTracker.Lost;
import io.github.ham.mapreduce.RunnerTracker.NodeHealth;

class RunnerTrackerTest {
  @Test
  void runnerIdsNameNodeAndSlot() {
    assertEquals("g0-p3", RunnerTracker.slotOf("node2/g0-p3/1234"));
    assertEquals("node2", RunnerTracker.nodeOf("node2/g0-p3/1234"));
    assertEquals("g2-p0", RunnerTracker.slotName(2, 0));
  }

  @Test
  void processExitMakesTheRunnerLostOnce() {
    RunnerTracker t = new RunnerTracker();
    t.started("g0-p1", null, 0);
    assertTrue(t.contact("node2/g0-p1/99", 10));
    Lost lost = t.exited(new Exit("g0-p1", "node2", "Killed"));
    assertNotNull(lost);
    assertEquals("node2/g0-p1/99", lost.runnerId());
    assertEquals("node2", lost.node());
    assertTrue(lost.reason().contains("Killed"));
    assertNull(t.exited(new Exit("g0-p1", "node2", "Killed")), "reported once");
    assertFalse(t.contact("node2/g0-p1/99", 20), "a lost runner is told to exit");
    assertTrue(t.isLost("node2/g0-p1/99"));
  }

  @Test
  void exitBeforeFirstContactIsLostWithoutRunnerId() {
    RunnerTracker t = new RunnerTracker();
    t.started("g1-p0", "node3", 0);
    Lost lost = t.exited(new Exit("g1-p0", null, "exit status 1"));
    assertNull(lost.runnerId());
    assertEquals("node3", lost.node());
  }

  @Test
  void silentRunnerIsLostAfterTheHeartbeatTimeout() {
    RunnerTracker t = new RunnerTracker();
    t.contact("node1/g0-p0/1", 0);
    t.contact("node2/g0-p1/2", 0);
    t.contact("node2/g0-p1/2", 4000);
    assertTrue(t.expire(5000, 5000).isEmpty());
    List<Lost> lost = t.expire(5001, 5000);
    assertEquals(1, lost.size());
    assertEquals("node1/g0-p0/1", lost.get(0).runnerId());
    assertEquals("node1", lost.get(0).node());
    assertTrue(t.expire(20000, 5000).stream().allMatch(l -> l.slot().equals("g0-p1")));
    assertTrue(t.expire(30000, 5000).isEmpty(), "each runner is lost once");
    assertEquals(0, t.live());
  }

  @Test
  void runnersThatNeverCalledAreNotExpired() {
    RunnerTracker t = new RunnerTracker();
    t.started("g0-p0", null, 0);
    assertTrue(t.expire(100_000, 5000).isEmpty());
    assertTrue(t.expire(100_000, 0).isEmpty());
  }

  @Test
  void allLostStopsSingleReplacements() {
    RunnerTracker t = new RunnerTracker();
    t.contact("node1/g0-p0/1", 0);
    t.allLost();
    assertNull(t.exited(new Exit("g0-p0", "node1", "Killed")));
    assertTrue(t.expire(100_000, 10).isEmpty());
  }

  @Test
  void decision() {
    assertEquals(Decision.REPLACE,
        RunnerTracker.decide(false, "node2", 0, 3, NodeHealth.HEALTHY, false));
    assertEquals(Decision.REPLACE,
        RunnerTracker.decide(false, "node2", 2, 3, NodeHealth.HEALTHY, false));
    assertEquals(Decision.BUDGET_EXHAUSTED,
        RunnerTracker.decide(false, "node2", 3, 3, NodeHealth.HEALTHY, false));
    assertEquals(Decision.BUDGET_EXHAUSTED,
        RunnerTracker.decide(false, "node2", 0, 0, NodeHealth.HEALTHY, false));
    assertEquals(Decision.NODE_UNHEALTHY,
        RunnerTracker.decide(false, "node2", 0, 3, NodeHealth.UNHEALTHY, false));
    assertEquals(Decision.NODE_UNKNOWN,
        RunnerTracker.decide(false, "node2", 0, 3, NodeHealth.UNKNOWN, false));
    assertEquals(Decision.JOB_FINISHED,
        RunnerTracker.decide(true, "node2", 0, 3, NodeHealth.HEALTHY, false));
    assertEquals(Decision.NO_NODE,
        RunnerTracker.decide(false, null, 0, 3, NodeHealth.HEALTHY, false));
  }

  @Test
  void driverCausedExitIsReplacedBeyondTheBudget() {
    RunnerTracker t = new RunnerTracker();
    t.contact("node1/g0-p0/1", 0);
    t.contact("node2/g0-p1/2", 0);
    t.expectExit("node1/g0-p0/1");
    Lost expected = t.exited(new Exit("g0-p0", "node1", "Exited with exit code 66"));
    assertTrue(expected.expected());
    assertFalse(t.exited(new Exit("g0-p1", "node2", "Killed")).expected());
    assertEquals(Decision.REPLACE,
        RunnerTracker.decide(false, "node1", 3, 3, NodeHealth.HEALTHY, true));
    assertEquals(Decision.NODE_UNHEALTHY,
        RunnerTracker.decide(false, "node1", 3, 3, NodeHealth.UNHEALTHY, true));
    assertEquals(Decision.JOB_FINISHED,
        RunnerTracker.decide(true, "node1", 0, 3, NodeHealth.HEALTHY, true));
  }

  @Test
  void nodeStateFromScontrol() {
    String line = "NodeName=node2 Arch=x86_64 CoresPerSocket=1 CPUAlloc=2 State=%s "
        + "ThreadsPerCore=1 Partitions=debug";
    assertEquals(NodeHealth.HEALTHY, RunnerTracker.parseNodeState(line.formatted("IDLE")));
    assertEquals(NodeHealth.HEALTHY, RunnerTracker.parseNodeState(line.formatted("ALLOCATED")));
    assertEquals(NodeHealth.HEALTHY, RunnerTracker.parseNodeState(line.formatted("MIXED")));
    assertEquals(NodeHealth.HEALTHY,
        RunnerTracker.parseNodeState(line.formatted("ALLOCATED+COMPLETING")));
    assertEquals(NodeHealth.UNHEALTHY, RunnerTracker.parseNodeState(line.formatted("DOWN")));
    assertEquals(NodeHealth.UNHEALTHY, RunnerTracker.parseNodeState(line.formatted("DOWN*")));
    assertEquals(NodeHealth.UNHEALTHY,
        RunnerTracker.parseNodeState(line.formatted("ALLOCATED+DRAIN")));
    assertEquals(NodeHealth.UNHEALTHY,
        RunnerTracker.parseNodeState(line.formatted("MIXED+DRAINING")));
    assertEquals(NodeHealth.UNHEALTHY, RunnerTracker.parseNodeState(line.formatted("FAIL")));
    assertEquals(NodeHealth.UNHEALTHY,
        RunnerTracker.parseNodeState(line.formatted("ALLOCATED*")));
    assertEquals(NodeHealth.UNKNOWN, RunnerTracker.parseNodeState("Node node9 not found"));
    assertEquals(NodeHealth.UNKNOWN, RunnerTracker.parseNodeState(null));
  }

  @Test
  void srunErrorLines() {
    List<Exit> one = RunnerTracker.parseSrunLine("srun: error: node3: task 2: Killed", 0);
    assertEquals(List.of(new Exit("g0-p2", "node3", "Killed")), one);
    List<Exit> many = RunnerTracker.parseSrunLine(
        "srun: error: node1: tasks 0-1,4: Exited with exit code 3", 2);
    assertEquals(3, many.size());
    assertEquals("g2-p0", many.get(0).slot());
    assertEquals("g2-p1", many.get(1).slot());
    assertEquals("g2-p4", many.get(2).slot());
    assertEquals("Exited with exit code 3", many.get(2).reason());
    assertTrue(RunnerTracker.parseSrunLine("srun: Force Terminated StepId=47.0", 0).isEmpty());
    assertTrue(RunnerTracker.parseSrunLine("2026-01-01 INFO task runner started", 0).isEmpty());
  }

  @Test
  void badMapOutputReports() {
    String report = BadMapOutput.describe(java.util.Map.of(
        "attempt_1_0001_m_000001_0", "java.io.EOFException\nmore"))
        + "org.apache.hadoop.mapreduce.task.reduce.Shuffle$ShuffleError: ...\n"
        + BadMapOutput.MARKER + "attempt_1_0001_m_000001_0 (again)\n"
        + BadMapOutput.MARKER + "attempt_1_0001_m_000002_3 (checksum)\n";
    assertEquals(List.of("attempt_1_0001_m_000001_0", "attempt_1_0001_m_000002_3"),
        BadMapOutput.parse(report));
    assertTrue(BadMapOutput.parse("java.io.IOException: boom").isEmpty());
    assertTrue(BadMapOutput.parse(null).isEmpty());
  }
}
