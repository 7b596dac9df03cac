package io.github.ham.mapreduce.driver.slurm;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Map;

import org.junit.jupiter.api.Test;

class RunnerCountTest {
  @Test
  void configuredWins() {
    assertEquals(3, RunnerCount.perNode(3, 1, 1, Map.of("SLURM_CPUS_ON_NODE", "16")));
  }

  @Test
  void cpusDividedByLargestVcores() {
    assertEquals(8, RunnerCount.perNode(0, 1, 2, Map.of("SLURM_CPUS_ON_NODE", "16")));
    assertEquals(4, RunnerCount.perNode(0, 1, 1, Map.of("SLURM_JOB_CPUS_PER_NODE", "4(x3)")));
    assertEquals(1, RunnerCount.perNode(0, 4, 1, Map.of("SLURM_CPUS_ON_NODE", "2")));
    assertEquals(1, RunnerCount.perNode(0, 1, 1, Map.of()));
  }

  @Test
  void nodes() {
    assertEquals(3, RunnerCount.nodes(Map.of("SLURM_JOB_NUM_NODES", "3")));
    assertEquals(2, RunnerCount.nodes(Map.of("SLURM_NNODES", "2")));
    assertEquals(1, RunnerCount.nodes(Map.of()));
  }
}
