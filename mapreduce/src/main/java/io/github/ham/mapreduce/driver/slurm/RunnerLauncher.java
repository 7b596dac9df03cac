package io.github.ham.mapreduce.driver.slurm;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.github.ham.mapreduce.common.HamConfig;
import io.github.ham.mapreduce.common.JobDirs;
import io.github.ham.mapreduce.runner.TaskRunner;

import org.apache.hadoop.conf.Configuration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starts the task runner JVMs: a generation of runners is one {@code srun} step over the
 * allocation (or N local processes with ham.launcher=local) with its own JVM options and
 * environment; a single replacement runner on a node is a step of its own
 * ({@code srun --overlap -N1 -n1 -w NODE}). Reports which runners exited (srun's "task N: ..."
 * messages, or the process itself for single-runner steps), and stops them.
 */
public final class RunnerLauncher {
  private static final Logger LOG = LoggerFactory.getLogger(RunnerLauncher.class);
  /** The runners' log4j configuration, a resource of the HAM jar. */
  static final String RUNNER_LOG4J = "ham-runner-log4j.properties";
  /**
   * Runs in each srun task: a private working directory per runner, then the JVM, with
   * JVM_PID its own pid (exec keeps the shell's), as YARN's container script exports it: the
   * tasks' process tree (Task.initialize) and so their CPU_MILLISECONDS, PHYSICAL_MEMORY_BYTES
   * and VIRTUAL_MEMORY_BYTES counters come from it, counted per task from the task's start.
   */
  static final String RUNNER_SHELL =
      "d=\"$HAM_WORK_ROOT/g${HAM_GEN}-p${SLURM_PROCID:-0}\"; "
      + "mkdir -p \"$d\" && cd \"$d\" && export JVM_PID=$$ && exec \"$@\"";

  private final Configuration conf;
  private final JobDirs dirs;
  private final String java;
  /** What follows the JVM options: class path, main class and its arguments. */
  private final List<String> runnerMain;
  private final Map<String, String> env;
  private final boolean local;
  private final int nodes;
  private final List<Process> processes = new ArrayList<>();
  private final List<File> outputs = new ArrayList<>();
  /** Every process started, with what it runs, to report runner exits. */
  private final List<Step> steps = new ArrayList<>();
  /** How each generation's runners were started: replacements start the same way. */
  private final Map<Integer, Runners> generations = new HashMap<>();
  private int generation = -1;
  private int runnersStarted;

  /** How a generation's runners start: how many per node, JVM options, extra environment. */
  public record Runners(int perNode, List<String> jvmOptions, Map<String, String> env) {
  }

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
    this.nodes = local ? 1 : RunnerCount.nodes(System.getenv());
    this.java = conf.getTrimmed(HamConfig.RUNNER_JAVA,
        System.getProperty("java.home") + File.separator + "bin" + File.separator + "java");
    this.runnerMain = List.of(
        // The runners' own logging, not the client's log4j.properties from the job's conf dir.
        "-Dlog4j.configuration=" + RUNNER_LOG4J,
        "-cp", conf.getTrimmed(HamConfig.RUNNER_CLASSPATH, System.getProperty("java.class.path")),
        TaskRunner.class.getName(), driverHost, Integer.toString(port), jobId);
  }

  /** The nodes runners start on (1 with the local launcher). */
  public int nodes() {
    return nodes;
  }

  /** Runners started so far: every generation and replacement. */
  public synchronized int runnersStarted() {
    return runnersStarted;
  }

  /** The slots of the runners of {@code gen} (a launch, or a single replacement). */
  public synchronized List<String> slots(int gen) {
    List<String> out = new ArrayList<>();
    for (Step s : steps) {
      if (s.generation == gen && s.singleSlot != null) {
        out.add(s.singleSlot);
      }
    }
    if (out.isEmpty()) {
      for (int i = 0; i < nodes * generations.get(gen).perNode(); i++) {
        out.add(RunnerExit.slotName(gen, i));
      }
    }
    return out;
  }

  public synchronized int launches() {
    return generation + 1;
  }

  private List<String> command(Runners runners) {
    List<String> cmd = new ArrayList<>();
    cmd.add(java);
    cmd.addAll(runners.jvmOptions());
    cmd.addAll(runnerMain);
    return cmd;
  }

  /**
   * Starts a new generation of runners, {@code runners.perNode()} on every node, as one srun
   * step (--overlap: it may share the CPUs of earlier steps, whose runners are on their way
   * out); returns the generation.
   */
  public synchronized int launch(Runners runners) throws IOException {
    generation++;
    generations.put(generation, runners);
    Files.createDirectories(dirs.work().toPath());
    Files.createDirectories(dirs.logs().toPath());
    if (local) {
      int n = conf.getInt(HamConfig.LOCAL_RUNNERS, HamConfig.DEFAULT_LOCAL_RUNNERS);
      n = n > 0 ? n : runners.perNode();
      for (int i = 0; i < n; i++) {
        String slot = RunnerExit.slotName(generation, i);
        File work = dirs.runnerWork(slot);
        Files.createDirectories(work.toPath());
        start(command(runners), runners.env(), work,
            new File(dirs.logs(), "runner." + slot + ".log"), slot, null);
      }
      runnersStarted += n;
    } else {
      List<String> cmd = new ArrayList<>(Arrays.asList(
          conf.getTrimmed(HamConfig.SRUN, HamConfig.DEFAULT_SRUN),
          "-N", Integer.toString(nodes),
          "--ntasks-per-node=" + runners.perNode(),
          "--overlap",
          "--kill-on-bad-exit=0",
          // A failed node must not end the step: the runners on the other nodes go on.
          "--no-kill",
          "/bin/sh", "-c", RUNNER_SHELL, "ham-runner"));
      cmd.addAll(command(runners));
      start(cmd, runners.env(), new File(System.getProperty("user.dir")),
          new File(dirs.logs(), "runners.g" + generation + ".log"), null, null);
      runnersStarted += nodes * runners.perNode();
    }
    return generation;
  }

  /**
   * Starts one runner in place of a lost one of generation {@code like}, on {@code node}, the
   * same way: a new generation with a single runner, as its own step sharing the first step's
   * resources ({@code --overlap}: a dead runner does not free the CPUs of the step it belonged
   * to). Returns its generation.
   */
  public synchronized int replace(String node, int like) throws IOException {
    Runners runners = generations.get(like);
    generation++;
    generations.put(generation, runners);
    Files.createDirectories(dirs.work().toPath());
    Files.createDirectories(dirs.logs().toPath());
    String slot = RunnerExit.slotName(generation, 0);
    if (local) {
      File work = dirs.runnerWork(slot);
      Files.createDirectories(work.toPath());
      start(command(runners), runners.env(), work,
          new File(dirs.logs(), "runner." + slot + ".log"), slot, node);
    } else {
      List<String> cmd = new ArrayList<>(Arrays.asList(
          conf.getTrimmed(HamConfig.SRUN, HamConfig.DEFAULT_SRUN),
          "--overlap", "-N1", "-n1", "-w", node,
          "--kill-on-bad-exit=0",
          "/bin/sh", "-c", RUNNER_SHELL, "ham-runner"));
      cmd.addAll(command(runners));
      start(cmd, runners.env(), new File(System.getProperty("user.dir")),
          new File(dirs.logs(), "runners.g" + generation + ".log"), slot, node);
    }
    runnersStarted++;
    return generation;
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

  private void start(List<String> cmd, Map<String, String> extraEnv, File cwd, File output,
      String singleSlot, String node) throws IOException {
    ProcessBuilder pb = new ProcessBuilder(cmd).directory(cwd).redirectErrorStream(true)
        .redirectOutput(output);
    pb.environment().putAll(extraEnv);
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

  /** Whether a process of generation {@code gen} is still running. */
  public synchronized boolean alive(int gen) {
    for (Step s : steps) {
      if (s.generation == gen && s.process.isAlive()) {
        return true;
      }
    }
    return false;
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

  /** Stops the processes of generations {@code gens}, as {@link #kill()} does. */
  public synchronized void kill(java.util.Collection<Integer> gens) {
    List<Process> chosen = new ArrayList<>();
    for (Step s : steps) {
      if (gens.contains(s.generation)) {
        chosen.add(s.process);
      }
    }
    kill(chosen);
  }

  /** SIGTERM, a short grace period, then SIGKILL; safe to call from a shutdown hook. */
  public synchronized void kill() {
    kill(processes);
  }

  private void kill(List<Process> victims) {
    for (Process p : victims) {
      if (p.isAlive()) {
        if (local) {
          p.descendants().forEach(ProcessHandle::destroy);
        }
        p.destroy();
      }
    }
    for (Process p : victims) {
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
