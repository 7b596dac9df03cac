package io.github.ham.mapreduce.driver.launch;

/**
 * Where a job's runners run, as a YARN cluster of that size: its nodes, and the CPUs and
 * memory the job has on each (0: memory unknown). The runners are fitted to it as a
 * NodeManager fits containers.
 */
public record Allocation(int nodes, int cpus, long memoryMb) {

  /**
   * Runners per node: {@code configured} when > 0, else the fewer of the node's CPUs divided by
   * the tasks' vcores and its memory divided by the tasks' memory (memory unknown: CPUs only);
   * at least 1.
   */
  public int runnersPerNode(int configured, int vcores, int taskMemoryMb) {
    if (configured > 0) {
      return configured;
    }
    int byCpu = Math.max(1, cpus) / Math.max(1, vcores);
    long byMemory = memoryMb > 0 && taskMemoryMb > 0 ? memoryMb / taskMemoryMb : Long.MAX_VALUE;
    return (int) Math.max(1, Math.min(byCpu, byMemory));
  }
}
