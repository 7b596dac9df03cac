package io.github.ham.mapreduce;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.mapreduce.MRJobConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starts the task runner JVMs: one {@code srun} step over the allocation (or N local
 * processes with ham.launcher=local), relaunches them when all are gone, and stops them.
 */
final class RunnerLauncher {
  private static final Logger LOG = LoggerFactory.getLogger(RunnerLauncher.class);
  /** Runs in each srun task: a private working directory per runner, then the JVM. */
  static final String RUNNER_SHELL =
      "d=\"$HAM_WORK_ROOT/g${HAM_GEN}-p${SLURM_PROCID:-0}\"; "
      + "mkdir -p \"$d\" && cd \"$d\" && exec \"$@\"";

  private final Configuration conf;
  private final JobDirs dirs;
  private final List<String> runnerCommand;
  private final Map<String, String> env;
  private final boolean local;
  private final int nodes;
  private final int perNode;
  private final List<Process> processes = new ArrayList<>();
  private final List<File> outputs = new ArrayList<>();
  private int generation = -1;

  RunnerLauncher(Configuration conf, JobDirs dirs, String driverHost, int port, String jobId,
      Map<String, String> env) {
    this.conf = conf;
    this.dirs = dirs;
    this.env = env;
    this.local = HamConfig.LAUNCHER_LOCAL.equals(
        conf.getTrimmed(HamConfig.LAUNCHER, HamConfig.LAUNCHER_SRUN));
    Map<String, String> slurmEnv = System.getenv();
    this.nodes = local ? 1 : RunnerCount.nodes(slurmEnv);
    int configured = local ? conf.getInt(HamConfig.LOCAL_RUNNERS, 0) : 0;
    if (configured <= 0) {
      configured = conf.getInt(HamConfig.RUNNERS_PER_NODE, 0);
    }
    this.perNode = RunnerCount.perNode(configured,
        conf.getInt(MRJobConfig.MAP_CPU_VCORES, 1), conf.getInt(MRJobConfig.REDUCE_CPU_VCORES, 1),
        slurmEnv);
    List<String> cmd = new ArrayList<>();
    cmd.add(conf.getTrimmed(HamConfig.RUNNER_JAVA,
        System.getProperty("java.home") + File.separator + "bin" + File.separator + "java"));
    for (String opt : conf.get(HamConfig.RUNNER_JAVA_OPTS, HamConfig.DEFAULT_RUNNER_JAVA_OPTS)
        .trim().split("\\s+")) {
      if (!opt.isEmpty()) {
        cmd.add(opt);
      }
    }
    cmd.add("-cp");
    cmd.add(conf.getTrimmed(HamConfig.RUNNER_CLASSPATH, System.getProperty("java.class.path")));
    cmd.add(TaskRunner.class.getName());
    cmd.add(driverHost);
    cmd.add(Integer.toString(port));
    cmd.add(jobId);
    this.runnerCommand = cmd;
  }

  int totalRunners() {
    return nodes * perNode;
  }

  synchronized int launches() {
    return generation + 1;
  }

  /** Starts a new generation of runners. */
  synchronized void launch() throws IOException {
    generation++;
    Files.createDirectories(dirs.work().toPath());
    Files.createDirectories(dirs.logs().toPath());
    if (local) {
      for (int i = 0; i < perNode; i++) {
        File work = dirs.runnerWork("g" + generation + "-p" + i);
        Files.createDirectories(work.toPath());
        File out = new File(dirs.logs(), "runner.g" + generation + "-p" + i + ".log");
        start(runnerCommand, work, out);
      }
    } else {
      List<String> cmd = new ArrayList<>(Arrays.asList(
          conf.getTrimmed(HamConfig.SRUN, HamConfig.DEFAULT_SRUN),
          "-N", Integer.toString(nodes),
          "--ntasks-per-node=" + perNode,
          "--kill-on-bad-exit=0",
          "/bin/sh", "-c", RUNNER_SHELL, "ham-runner"));
      cmd.addAll(runnerCommand);
      start(cmd, new File(System.getProperty("user.dir")),
          new File(dirs.logs(), "runners.g" + generation + ".log"));
    }
  }

  private void start(List<String> cmd, File cwd, File output) throws IOException {
    ProcessBuilder pb = new ProcessBuilder(cmd).directory(cwd).redirectErrorStream(true)
        .redirectOutput(output);
    pb.environment().putAll(env);
    pb.environment().put("HAM_WORK_ROOT", dirs.work().getAbsolutePath());
    pb.environment().put("HAM_GEN", Integer.toString(generation));
    LOG.info("Starting task runner(s) ({} in all): {}", totalRunners(), String.join(" ", cmd));
    processes.add(pb.start());
    outputs.add(output);
  }

  synchronized boolean anyAlive() {
    for (Process p : processes) {
      if (p.isAlive()) {
        return true;
      }
    }
    return false;
  }

  /** The last lines the runners printed, to explain a failed launch. */
  synchronized String outputTail() {
    if (outputs.isEmpty()) {
      return "";
    }
    File last = outputs.get(outputs.size() - 1);
    try {
      List<String> lines = Files.readAllLines(last.toPath(), StandardCharsets.UTF_8);
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 10), lines.size()));
    } catch (IOException e) {
      return "(cannot read " + last + ": " + e.getMessage() + ")";
    }
  }

  /** Waits up to {@code waitMs} for the runners to exit, then SIGTERM, then SIGKILL. */
  synchronized void stop(long waitMs) {
    long deadline = System.currentTimeMillis() + waitMs;
    for (Process p : processes) {
      try {
        long left = deadline - System.currentTimeMillis();
        if (left > 0) {
          p.waitFor(left, TimeUnit.MILLISECONDS);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    kill();
  }

  /** SIGTERM, a short grace period, then SIGKILL; safe to call from a shutdown hook. */
  synchronized void kill() {
    for (Process p : processes) {
      if (p.isAlive()) {
        if (local) {
          p.descendants().forEach(ProcessHandle::destroy);
        }
        p.destroy();
      }
    }
    for (Process p : processes) {
      try {
        if (!p.waitFor(3, TimeUnit.SECONDS)) {
          p.descendants().forEach(ProcessHandle::destroyForcibly);
          p.destroyForcibly();
        }
      } catch (InterruptedException e) {
        p.destroyForcibly();
      }
    }
  }
}
