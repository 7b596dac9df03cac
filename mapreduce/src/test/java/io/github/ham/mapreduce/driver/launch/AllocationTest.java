package io.github.ham.mapreduce.driver.launch;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class AllocationTest {
  @Test
  void configuredWins() {
    assertEquals(3, new Allocation(1, 16, 4096).runnersPerNode(3, 1, 1024));
  }

  @Test
  void cpusAndMemoryBothLimitAsANodeManagerWould() {
    assertEquals(8, new Allocation(1, 16, 0).runnersPerNode(0, 2, 1024),
        "memory unknown: CPUs only");
    assertEquals(4, new Allocation(1, 16, 4096).runnersPerNode(0, 1, 1024),
        "4 GB hold four 1 GB tasks");
    assertEquals(2, new Allocation(1, 2, 3072).runnersPerNode(0, 1, 1024));
    assertEquals(1, new Allocation(1, 2, 3072).runnersPerNode(0, 1, 2048));
    assertEquals(1, new Allocation(1, 2, 0).runnersPerNode(0, 4, 1024), "at least one");
    assertEquals(1, new Allocation(1, 2, 3072).runnersPerNode(0, 1, 8192), "at least one");
  }
}
