package io.github.ham.mapreduce.driver.slurm;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.github.ham.mapreduce.common.HamConfig;
import io.github.ham.mapreduce.common.JobDirs;
import io.github.ham.mapreduce.runner.TaskRunner;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.mapreduce.MRJobConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starts the task runner JVMs: one {@code srun} step over the allocation (or N local
 * processes with ham.launcher=local), relaunches them when all are gone, starts a single
 * replacement runner on a node ({@code srun --overlap -N1 -n1 -w NODE}) when one is lost,
 * reports which runners exited (srun's "task N: ..." messages, or the process itself for
 * single-runner steps), and stops them.
 */
public final class RunnerLauncher {
  private static final Logger LOG = LoggerFactory.getLogger(RunnerLauncher.class);
  /** The runners' log4j configuration, a resource of the HAM jar. */
  static final String RUNNER_LOG4J = "ham-runner-log4j.properties";
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
  /** Every process started, with what it runs, to report runner exits. */
  private final List<Step> steps = new ArrayList<>();
  private int generation = -1;
  private int runnersStarted;

  /**
   * One started process: a multi-runner srun step (exits come from its output) or a single
   * runner (a local process or a one-task step: its exit is the runner's).
   */
  private static final class Step {
    final int generation;
    final Process process;
    final File output;
    final String singleSlot;
    final String node;
    long offset;
    boolean exitReported;

    Step(int generation, Process process, File output, String singleSlot, String node) {
      this.generation = generation;
      this.process = process;
      this.output = output;
      this.singleSlot = singleSlot;
      this.node = node;
    }
  }

  public RunnerLauncher(Configuration conf, JobDirs dirs, String driverHost, int port, String jobId,
      Map<String, String> env) {
    this.conf = conf;
    this.dirs = dirs;
    this.env = env;
    this.local = HamConfig.LAUNCHER_LOCAL.equals(
        conf.getTrimmed(HamConfig.LAUNCHER, HamConfig.DEFAULT_LAUNCHER));
    Map<String, String> slurmEnv = System.getenv();
    this.nodes = local ? 1 : RunnerCount.nodes(slurmEnv);
    int configured = local ? conf.getInt(HamConfig.LOCAL_RUNNERS,
        HamConfig.DEFAULT_LOCAL_RUNNERS) : 0;
    if (configured <= 0) {
      configured = conf.getInt(HamConfig.RUNNERS_PER_NODE, HamConfig.DEFAULT_RUNNERS_PER_NODE);
    }
    this.perNode = RunnerCount.perNode(configured,
        conf.getInt(MRJobConfig.MAP_CPU_VCORES, 1), conf.getInt(MRJobConfig.REDUCE_CPU_VCORES, 1),
        slurmEnv);
    List<String> cmd = new ArrayList<>();
    cmd.add(conf.getTrimmed(HamConfig.RUNNER_JAVA,
        System.getProperty("java.home") + File.separator + "bin" + File.separator + "java"));
    // The runners' own logging, not the client's log4j.properties from the job's conf dir.
    cmd.add("-Dlog4j.configuration=" + RUNNER_LOG4J);
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

  public int totalRunners() {
    return nodes * perNode;
  }

  /** Runners started so far: every generation and replacement. */
  public synchronized int runnersStarted() {
    return runnersStarted;
  }

  /** The slots of the runners the last {@link #launch()} started (with their node if known). */
  public synchronized List<String> lastGenerationSlots() {
    List<String> out = new ArrayList<>();
    int n = local ? perNode : nodes * perNode;
    for (int i = 0; i < n; i++) {
      out.add(RunnerExit.slotName(generation, i));
    }
    return out;
  }

  public synchronized int launches() {
    return generation + 1;
  }

  /** Starts a new generation of runners. */
  public synchronized void launch() throws IOException {
    generation++;
    Files.createDirectories(dirs.work().toPath());
    Files.createDirectories(dirs.logs().toPath());
    if (local) {
      for (int i = 0; i < perNode; i++) {
        File work = dirs.runnerWork("g" + generation + "-p" + i);
        Files.createDirectories(work.toPath());
        File out = new File(dirs.logs(), "runner.g" + generation + "-p" + i + ".log");
        start(runnerCommand, work, out, RunnerExit.slotName(generation, i), null);
      }
      runnersStarted += perNode;
    } else {
      List<String> cmd = new ArrayList<>(Arrays.asList(
          conf.getTrimmed(HamConfig.SRUN, HamConfig.DEFAULT_SRUN),
          "-N", Integer.toString(nodes),
          "--ntasks-per-node=" + perNode,
          "--kill-on-bad-exit=0",
          // A failed node must not end the step: the runners on the other nodes go on.
          "--no-kill",
          "/bin/sh", "-c", RUNNER_SHELL, "ham-runner"));
      cmd.addAll(runnerCommand);
      start(cmd, new File(System.getProperty("user.dir")),
          new File(dirs.logs(), "runners.g" + generation + ".log"), null, null);
      runnersStarted += nodes * perNode;
    }
  }

  /**
   * Starts one runner in place of a lost one, on {@code node}: a new generation with a single
   * runner, as its own step sharing the first step's resources ({@code --overlap}: a dead
   * runner does not free the CPUs of the step it belonged to). Returns its slot.
   */
  public synchronized String replace(String node) throws IOException {
    generation++;
    Files.createDirectories(dirs.work().toPath());
    Files.createDirectories(dirs.logs().toPath());
    String slot = RunnerExit.slotName(generation, 0);
    if (local) {
      File work = dirs.runnerWork(slot);
      Files.createDirectories(work.toPath());
      start(runnerCommand, work, new File(dirs.logs(), "runner." + slot + ".log"), slot, node);
    } else {
      List<String> cmd = new ArrayList<>(Arrays.asList(
          conf.getTrimmed(HamConfig.SRUN, HamConfig.DEFAULT_SRUN),
          "--overlap", "-N1", "-n1", "-w", node,
          "--kill-on-bad-exit=0",
          "/bin/sh", "-c", RUNNER_SHELL, "ham-runner"));
      cmd.addAll(runnerCommand);
      start(cmd, new File(System.getProperty("user.dir")),
          new File(dirs.logs(), "runners.g" + generation + ".log"), slot, node);
    }
    runnersStarted++;
    return slot;
  }

  /** The node's health (always HEALTHY with the local launcher). */
  public NodeState nodeState(String node) {
    return local ? NodeState.HEALTHY : NodeState.query(
        conf.getTrimmed(HamConfig.SCONTROL, HamConfig.DEFAULT_SCONTROL), node);
  }

  /**
   * Runners that exited since the last call: srun's per-task error lines of multi-runner
   * steps (a runner that exits with status 0 is not reported: it only does so when the job is
   * over), and the exit of single-runner processes.
   */
  public synchronized List<RunnerExit> pollExits() {
    List<RunnerExit> out = new ArrayList<>();
    for (Step s : steps) {
      if (s.singleSlot != null) {
        if (!s.exitReported && !s.process.isAlive()) {
          s.exitReported = true;
          out.add(new RunnerExit(s.singleSlot, s.node,
              "exit status " + s.process.exitValue()));
        }
        continue;
      }
      if (local) {
        continue;
      }
      for (String line : newLines(s)) {
        out.addAll(SrunMessages.exits(line, s.generation));
      }
    }
    return out;
  }

  /** Complete lines appended to a step's output since the last call. */
  private static List<String> newLines(Step s) {
    List<String> lines = new ArrayList<>();
    try (java.io.RandomAccessFile f = new java.io.RandomAccessFile(s.output, "r")) {
      long length = f.length();
      if (length <= s.offset) {
        return lines;
      }
      byte[] buf = new byte[(int) Math.min(length - s.offset, 16 << 20)];
      f.seek(s.offset);
      f.readFully(buf);
      int end = buf.length;
      while (end > 0 && buf[end - 1] != '\n') {
        end--;
      }
      if (end == 0 && buf.length < (16 << 20)) {
        return lines;
      }
      if (end == 0) {
        end = buf.length;
      }
      s.offset += end;
      for (String line : new String(buf, 0, end, StandardCharsets.UTF_8).split("\n")) {
        if (line.contains("srun: error:")) {
          lines.add(line);
        }
      }
    } catch (IOException e) {
      LOG.debug("Cannot read {}", s.output, e);
    }
    return lines;
  }

  private void start(List<String> cmd, File cwd, File output, String singleSlot, String node)
      throws IOException {
    ProcessBuilder pb = new ProcessBuilder(cmd).directory(cwd).redirectErrorStream(true)
        .redirectOutput(output);
    pb.environment().putAll(env);
    pb.environment().put("HAM_WORK_ROOT", dirs.work().getAbsolutePath());
    pb.environment().put("HAM_GEN", Integer.toString(generation));
    LOG.info("Starting task runner(s) (generation {}): {}", generation, String.join(" ", cmd));
    Process process = pb.start();
    processes.add(process);
    outputs.add(output);
    steps.add(new Step(generation, process, output, singleSlot, node));
  }

  /** The pids of the launcher's processes still running (srun, or local runners). */
  public synchronized List<Long> pids() {
    List<Long> out = new ArrayList<>();
    for (Process p : processes) {
      if (p.isAlive()) {
        out.add(p.pid());
      }
    }
    return out;
  }

  public synchronized boolean anyAlive() {
    for (Process p : processes) {
      if (p.isAlive()) {
        return true;
      }
    }
    return false;
  }

  /** The last lines the runners printed, to explain a failed launch. */
  public synchronized String outputTail() {
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
  public synchronized void stop(long waitMs) {
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
  public synchronized void kill() {
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
