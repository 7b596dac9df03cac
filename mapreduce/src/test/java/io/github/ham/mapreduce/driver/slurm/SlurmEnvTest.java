package io.github.ham.mapreduce.driver.slurm;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Map;

import org.junit.jupiter.api.Test;

class SlurmEnvTest {
  @Test
  void allocationFromSlurm() {
    assertEquals(16, SlurmEnv.cpus(Map.of("SLURM_CPUS_ON_NODE", "16")));
    assertEquals(4, SlurmEnv.cpus(Map.of("SLURM_JOB_CPUS_PER_NODE", "4(x3)")));
    assertEquals(1, SlurmEnv.cpus(Map.of()));
    assertEquals(2048, SlurmEnv.jobMemoryMb(Map.of("SLURM_MEM_PER_NODE", "2048")));
    assertEquals(1024, SlurmEnv.jobMemoryMb(Map.of("SLURM_MEM_PER_CPU", "512",
        "SLURM_CPUS_ON_NODE", "2")));
    assertEquals(0, SlurmEnv.jobMemoryMb(Map.of()));
    assertEquals(3072, SlurmEnv.realMemoryMb("NodeName=node1 CPUTot=2 RealMemory=3072 "
        + "State=IDLE\nNodeName=node2 RealMemory=4096 State=IDLE\n"));
    assertEquals(0, SlurmEnv.realMemoryMb("Node node9 not found"));
  }

  @Test
  void nodes() {
    assertEquals(3, SlurmEnv.nodes(Map.of("SLURM_JOB_NUM_NODES", "3")));
    assertEquals(2, SlurmEnv.nodes(Map.of("SLURM_NNODES", "2")));
    assertEquals(1, SlurmEnv.nodes(Map.of()));
  }
}
