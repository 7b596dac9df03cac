package io.github.ham.mapreduce.driver.slurm;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Map;

import org.junit.jupiter.api.Test;

class RunnerCountTest {
  @Test
  void configuredWins() {
    assertEquals(3, RunnerCount.perNode(3, 1, 1024, 16, 4096));
  }

  @Test
  void cpusAndMemoryBothLimitAsANodeManagerWould() {
    assertEquals(8, RunnerCount.perNode(0, 2, 1024, 16, 0), "memory unknown: CPUs only");
    assertEquals(4, RunnerCount.perNode(0, 1, 1024, 16, 4096), "4 GB hold four 1 GB tasks");
    assertEquals(2, RunnerCount.perNode(0, 1, 1024, 2, 3072));
    assertEquals(1, RunnerCount.perNode(0, 1, 2048, 2, 3072));
    assertEquals(1, RunnerCount.perNode(0, 4, 1024, 2, 0), "at least one");
    assertEquals(1, RunnerCount.perNode(0, 1, 8192, 2, 3072), "at least one");
  }

  @Test
  void allocationFromSlurm() {
    assertEquals(16, RunnerCount.cpus(Map.of("SLURM_CPUS_ON_NODE", "16")));
    assertEquals(4, RunnerCount.cpus(Map.of("SLURM_JOB_CPUS_PER_NODE", "4(x3)")));
    assertEquals(1, RunnerCount.cpus(Map.of()));
    assertEquals(2048, RunnerCount.jobMemoryMb(Map.of("SLURM_MEM_PER_NODE", "2048")));
    assertEquals(1024, RunnerCount.jobMemoryMb(Map.of("SLURM_MEM_PER_CPU", "512",
        "SLURM_CPUS_ON_NODE", "2")));
    assertEquals(0, RunnerCount.jobMemoryMb(Map.of()));
    assertEquals(3072, RunnerCount.realMemoryMb("NodeName=node1 CPUTot=2 RealMemory=3072 "
        + "State=IDLE\nNodeName=node2 RealMemory=4096 State=IDLE\n"));
    assertEquals(0, RunnerCount.realMemoryMb("Node node9 not found"));
  }

  @Test
  void nodes() {
    assertEquals(3, RunnerCount.nodes(Map.of("SLURM_JOB_NUM_NODES", "3")));
    assertEquals(2, RunnerCount.nodes(Map.of("SLURM_NNODES", "2")));
    assertEquals(1, RunnerCount.nodes(Map.of()));
  }
}
