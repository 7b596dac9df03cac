package io.github.ham.mapreduce.driver.slurm;

import java.util.Map;

/** How many runner JVMs to start: per node, and how many nodes. Pure functions. */
public final class RunnerCount {
  private RunnerCount() {
  }

  /**
   * Runners per node: {@code configured} when > 0, else the node's CPUs (SLURM_CPUS_ON_NODE,
   * else the first number of SLURM_JOB_CPUS_PER_NODE such as "4(x3)") divided by the larger of
   * the map and reduce vcores; at least 1.
   */
  public static int perNode(int configured, int mapVcores, int reduceVcores,
      Map<String, String> env) {
    if (configured > 0) {
      return configured;
    }
    int cpus = parseLeadingInt(env.get("SLURM_CPUS_ON_NODE"));
    if (cpus <= 0) {
      cpus = parseLeadingInt(env.get("SLURM_JOB_CPUS_PER_NODE"));
    }
    if (cpus <= 0) {
      cpus = 1;
    }
    int vcores = Math.max(1, Math.max(mapVcores, reduceVcores));
    return Math.max(1, cpus / vcores);
  }

  /** Nodes of the allocation: SLURM_JOB_NUM_NODES, else SLURM_NNODES, else 1. */
  public static int nodes(Map<String, String> env) {
    int n = parseLeadingInt(env.get("SLURM_JOB_NUM_NODES"));
    if (n <= 0) {
      n = parseLeadingInt(env.get("SLURM_NNODES"));
    }
    return Math.max(1, n);
  }

  public static int parseLeadingInt(String s) {
    if (s == null) {
      return -1;
    }
    int i = 0;
    while (i < s.length() && Character.isDigit(s.charAt(i))) {
      i++;
    }
    if (i == 0) {
      return -1;
    }
    try {
      return Integer.parseInt(s.substring(0, i));
    } catch (NumberFormatException e) {
      return -1;
    }
  }
}
