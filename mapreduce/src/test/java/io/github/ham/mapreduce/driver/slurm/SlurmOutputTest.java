package io.github.ham.mapreduce.driver.slurm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import io.github.ham.mapreduce.driver.launch.NodeState;
import io.github.ham.mapreduce.driver.launch.RunnerExit;

import org.junit.jupiter.api.Test;

/** What the driver reads from Slurm: node states and srun's messages about its tasks. */
class SlurmOutputTest {
  @Test
  void nodeStateFromScontrol() {
    String line = "NodeName=node2 Arch=x86_64 CoresPerSocket=1 CPUAlloc=2 State=%s "
        + "ThreadsPerCore=1 Partitions=debug";
    assertEquals(NodeState.HEALTHY, SlurmNodes.parse(line.formatted("IDLE")));
    assertEquals(NodeState.HEALTHY, SlurmNodes.parse(line.formatted("ALLOCATED")));
    assertEquals(NodeState.HEALTHY, SlurmNodes.parse(line.formatted("MIXED")));
    assertEquals(NodeState.HEALTHY,
        SlurmNodes.parse(line.formatted("ALLOCATED+COMPLETING")));
    assertEquals(NodeState.UNREACHABLE, SlurmNodes.parse(line.formatted("DOWN")));
    assertEquals(NodeState.UNREACHABLE, SlurmNodes.parse(line.formatted("DOWN*")));
    assertEquals(NodeState.UNREACHABLE, SlurmNodes.parse(line.formatted("IDLE+NOT_RESPONDING")));
    assertEquals(NodeState.UNHEALTHY,
        SlurmNodes.parse(line.formatted("ALLOCATED+DRAIN")));
    assertEquals(NodeState.UNHEALTHY,
        SlurmNodes.parse(line.formatted("MIXED+DRAINING")));
    assertEquals(NodeState.UNHEALTHY, SlurmNodes.parse(line.formatted("FAIL")));
    assertEquals(NodeState.UNREACHABLE,
        SlurmNodes.parse(line.formatted("ALLOCATED*")));
    assertEquals(NodeState.UNKNOWN, SlurmNodes.parse("Node node9 not found"));
    assertEquals(NodeState.UNKNOWN, SlurmNodes.parse(null));
  }


  @Test
  void aNodeAnswersWhenItsPortAcceptsAConnection() throws java.io.IOException {
    try (java.net.ServerSocket open = new java.net.ServerSocket(0, 1,
        java.net.InetAddress.getLoopbackAddress())) {
      assertTrue(SlurmNodes.answers("127.0.0.1", open.getLocalPort(), 2000));
      int port = open.getLocalPort();
      open.close();
      assertFalse(SlurmNodes.answers("127.0.0.1", port, 2000), "refused: nothing listens");
    }
  }

  @Test
  void srunErrorLines() {
    List<RunnerExit> one = SrunMessages.exits("srun: error: node3: task 2: Killed", 0);
    assertEquals(List.of(new RunnerExit("g0-p2", "node3", "Killed")), one);
    List<RunnerExit> many = SrunMessages.exits(
        "srun: error: node1: tasks 0-1,4: Exited with exit code 3", 2);
    assertEquals(3, many.size());
    assertEquals("g2-p0", many.get(0).slot());
    assertEquals("g2-p1", many.get(1).slot());
    assertEquals("g2-p4", many.get(2).slot());
    assertEquals("Exited with exit code 3", many.get(2).reason());
    assertTrue(SrunMessages.exits("srun: Force Terminated StepId=47.0", 0).isEmpty());
    assertTrue(SrunMessages.exits("2026-01-01 INFO task runner started", 0).isEmpty());
  }

  @Test
  void exitStatusOfARunnerFromSrunOrTheLauncher() {
    assertEquals(78, SrunMessages.exits(
        "srun: error: node2: tasks 0-1: Exited with exit code 78", 0).get(1).exitStatus());
    assertEquals(78, new RunnerExit("g1-p0", "node2", "exit status 78").exitStatus());
    assertEquals(-1, SrunMessages.exits("srun: error: node3: task 2: Killed", 0).get(0)
        .exitStatus());
  }

  @Test
  void slotNamesAreTheRunnersWorkingDirectories() {
    assertEquals("g2-p0", RunnerExit.slotName(2, 0));
  }
}
