package io.github.ham.mapreduce.driver.launch;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;

import io.github.ham.mapreduce.common.HamConfig;
import io.github.ham.mapreduce.common.jobfiles.JobDirs;

import org.apache.hadoop.conf.Configuration;

/**
 * Runners as processes of this machine, each its own (ham.launcher=local: development, and the
 * scale bench's simulated runners): one node with this JVM's CPUs, always healthy, no
 * allocation to end or describe.
 */
public final class LocalPlatform implements RunnerPlatform {
  private final Allocation allocation =
      new Allocation(1, Runtime.getRuntime().availableProcessors(), 0);

  @Override
  public boolean available() {
    return true;
  }

  @Override
  public Allocation allocation() {
    return allocation;
  }

  /** ham.local.runners when set (> 0), else ham.runners.per.node: one node, one number. */
  @Override
  public int configuredPerNode(Configuration conf) {
    int local = conf.getInt(HamConfig.LOCAL_RUNNERS, HamConfig.DEFAULT_LOCAL_RUNNERS);
    return local > 0 ? local
        : conf.getInt(HamConfig.RUNNERS_PER_NODE, HamConfig.DEFAULT_RUNNERS_PER_NODE);
  }

  @Override
  public List<Start> generation(JobDirs dirs, int gen, int perNode, List<String> runner)
      throws IOException {
    List<Start> out = new ArrayList<>();
    for (int i = 0; i < perNode; i++) {
      out.add(runner(dirs, RunnerExit.slotName(gen, i), null, runner));
    }
    return out;
  }

  @Override
  public Start replacement(JobDirs dirs, int gen, String node, List<String> runner)
      throws IOException {
    return runner(dirs, RunnerExit.slotName(gen, 0), node, runner);
  }

  /** A runner in its own working directory (srun's runner shell makes it on a node). */
  private static Start runner(JobDirs dirs, String slot, String node, List<String> runner)
      throws IOException {
    File work = dirs.runnerWork(slot);
    Files.createDirectories(work.toPath());
    return new Start(runner, work, new File(dirs.logs(), "runner." + slot + ".log"), slot, node);
  }

  @Override
  public List<RunnerExit> exits(String line, int gen) {
    return List.of();  // every local runner is a process of its own: its exit says it
  }

  @Override
  public NodeState nodeState(String node) {
    return NodeState.HEALTHY;
  }

  @Override
  public boolean ended() {
    return false;
  }

  @Override
  public String statusCommand() {
    return "";
  }

  @Override
  public void describe(String comment) {
  }

  @Override
  public List<String> nodeNames() {
    return List.of();
  }

  /** The runner and the processes its tasks started (streaming's), which nobody else stops. */
  @Override
  public void terminate(Process process) {
    process.descendants().forEach(ProcessHandle::destroy);
    process.destroy();
  }
}
