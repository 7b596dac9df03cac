package io.github.ham.mapreduce.driver.slurm;

import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The allocation's size as Slurm's environment and {@code scontrol show node} give it: nodes,
 * CPUs and memory per node. Pure functions.
 */
public final class SlurmEnv {
  private static final Pattern REAL_MEMORY = Pattern.compile("(?:^|\\s)RealMemory=(\\d+)");

  private SlurmEnv() {
  }

  /** The job's CPUs per node: SLURM_CPUS_ON_NODE, else the first of SLURM_JOB_CPUS_PER_NODE. */
  public static int cpus(Map<String, String> env) {
    int cpus = parseLeadingInt(env.get("SLURM_CPUS_ON_NODE"));
    if (cpus <= 0) {
      cpus = parseLeadingInt(env.get("SLURM_JOB_CPUS_PER_NODE"));
    }
    return Math.max(1, cpus);
  }

  /**
   * The job's memory per node in MB, from the allocation (SLURM_MEM_PER_NODE, or
   * SLURM_MEM_PER_CPU times the CPUs), else 0 (then the nodes' own memory applies).
   */
  public static long jobMemoryMb(Map<String, String> env) {
    long perNode = parseLeadingInt(env.get("SLURM_MEM_PER_NODE"));
    if (perNode > 0) {
      return perNode;
    }
    long perCpu = parseLeadingInt(env.get("SLURM_MEM_PER_CPU"));
    return perCpu > 0 ? perCpu * cpus(env) : 0;
  }

  /** The smallest RealMemory in {@code scontrol show node -o} output (one line per node), or 0. */
  public static long realMemoryMb(String scontrolOutput) {
    long min = 0;
    if (scontrolOutput != null) {
      Matcher m = REAL_MEMORY.matcher(scontrolOutput);
      while (m.find()) {
        long mb = Long.parseLong(m.group(1));
        min = min == 0 ? mb : Math.min(min, mb);
      }
    }
    return min;
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
