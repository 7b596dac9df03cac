package io.github.ham.mapreduce.driver.launch;

import java.io.File;
import java.io.IOException;
import java.util.List;

import io.github.ham.mapreduce.common.jobfiles.JobDirs;

import org.apache.hadoop.conf.Configuration;

/**
 * Where and how task runners start: a Slurm allocation (srun steps, scontrol) or this machine
 * (local processes, for development). Picked once from a configuration's ham.launcher (see
 * {@code driver.RunnerPlatforms}); nothing else asks which one is in use. The
 * {@link RunnerLauncher} keeps the processes a platform starts.
 */
public interface RunnerPlatform {

  /** One process to start: a step of several runners, or a single runner ({@code slot}). */
  record Start(List<String> argv, File cwd, File output, String slot, String node) {
  }

  /** Whether runners can start here (an allocation to start them in, or this machine). */
  boolean available();

  /**
   * The name under which runners make node-local working directories (ham.runner.local.dir):
   * the allocation's, whose end removes them; null when this platform's runners work in the
   * job's directory, which is what the local launcher does (its runners share the driver's
   * machine and file systems, and it starts them in their directories itself).
   */
  default String localWorkScope() {
    return null;
  }

  /** The nodes, CPUs and memory the runners are fitted to. */
  Allocation allocation();

  /** Runners per node the job's {@code conf} asks for; 0: as many as the allocation holds. */
  int configuredPerNode(Configuration conf);

  /**
   * The processes that start generation {@code gen}: {@code perNode} runners on every node,
   * each running {@code runner} (java, its options, class path, main class and arguments).
   */
  List<Start> generation(JobDirs dirs, int gen, int perNode, List<String> runner)
      throws IOException;

  /** The process that starts one runner of generation {@code gen} on {@code node}. */
  Start replacement(JobDirs dirs, int gen, String node, List<String> runner) throws IOException;

  /** A line of a runner process's output: what it says to the user, the platform passes on. */
  default void note(String line) {
  }

  /** Runners of a multi-runner process of {@code gen} that its output's {@code line} says ended. */
  List<RunnerExit> exits(String line, int gen);

  /** The health of {@code node}, where a runner went silent. */
  NodeState nodeState(String node);

  /** Whether the allocation is over (scancel, time limit); false when that cannot be told. */
  boolean ended();

  /**
   * The command that shows what the runners run in ({@code ham status 12} for Slurm job 12), for
   * the client's tracking line; empty where there is none.
   */
  String statusCommand();

  /** Names the Hadoop job where the platform's own tools show it (squeue, sacct). */
  void describe(String comment);

  /** The names of the nodes runners may run on; empty if unknown. */
  List<String> nodeNames();

  /** Asks a started process to stop (SIGTERM), and what it leaves to the platform with it. */
  void terminate(Process process);
}
