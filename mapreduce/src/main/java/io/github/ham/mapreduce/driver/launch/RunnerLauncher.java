package io.github.ham.mapreduce.driver.launch;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.github.ham.mapreduce.common.HamConfig;
import io.github.ham.mapreduce.common.jobfiles.JobDirs;
import io.github.ham.mapreduce.common.jobfiles.RunnerWorkDirs;
import io.github.ham.mapreduce.common.protocol.WarmClaims;
import io.github.ham.mapreduce.driver.launch.RunnerPlatform.Start;
import io.github.ham.mapreduce.runner.TaskRunner;

import org.apache.hadoop.conf.Configuration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starts the task runner JVMs as its {@link RunnerPlatform} says and keeps their processes: a
 * generation of runners is started from a {@link RunnerSpec} (its own JVM options and
 * environment; an srun step over the allocation, or local processes); a single replacement
 * runner on a node is a generation of its own. Reports which runners exited (what a
 * multi-runner process prints, as the platform reads it, or the process itself for a single
 * runner), and stops them.
 */
public final class RunnerLauncher {
  private static final Logger LOG = LoggerFactory.getLogger(RunnerLauncher.class);
  /** The runners' log4j configuration, a resource of the HAM jar. */
  static final String RUNNER_LOG4J = "ham-runner-log4j.properties";
  private final RunnerPlatform platform;
  private final JobDirs dirs;
  private final String java;
  /** What follows the JVM options: class path, main class and its arguments. */
  private final List<String> runnerMain;
  private final Map<String, String> env;
  private final int nodes;
  /** The session's warm runners (ham.runner.warm.idle.ms), or null. */
  private final WarmRunners warm;
  /** Where the runners' working directories go, and whether they park at the job's end. */
  private final WorkRoot work;
  private final String driverHost;
  private final int port;
  private final String jobId;
  private final List<Process> processes = new ArrayList<>();
  private final List<File> outputs = new ArrayList<>();
  /** Every process started, with what it runs, to report runner exits. */
  private final List<Step> steps = new ArrayList<>();
  /** How each generation's runners were started: replacements start the same way. */
  private final Map<Integer, RunnerSpec> generations = new HashMap<>();
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

  public RunnerLauncher(RunnerPlatform platform, Configuration conf, JobDirs dirs,
      String driverHost, int port, String jobId, Map<String, String> env) throws IOException {
    this.platform = platform;
    this.dirs = dirs;
    this.env = env;
    this.nodes = platform.allocation().nodes();
    this.warm = WarmRunners.of(conf);
    this.driverHost = driverHost;
    this.port = port;
    this.jobId = jobId;
    this.work = WorkRoot.of(platform, conf, dirs, warm, jobId);
    this.java = conf.getTrimmed(HamConfig.RUNNER_JAVA,
        System.getProperty("java.home") + File.separator + "bin" + File.separator + "java");
    this.runnerMain = List.of(
        // The runners' own logging, not the client's log4j.properties from the job's conf dir.
        "-Dlog4j.configuration=" + RUNNER_LOG4J,
        "-cp", conf.getTrimmed(HamConfig.RUNNER_CLASSPATH, System.getProperty("java.class.path")),
        TaskRunner.class.getName(), driverHost, Integer.toString(port), jobId);
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

  private List<String> command(RunnerSpec spec) {
    List<String> cmd = new ArrayList<>();
    cmd.add(java);
    cmd.addAll(spec.jvmOptions());
    cmd.addAll(runnerMain);
    return cmd;
  }

  /**
   * Starts a new generation of runners, {@code spec.perNode()} on every node, or claims as many
   * parked ones that were started the same way (warm runners); returns it.
   */
  public synchronized int launch(RunnerSpec spec) throws IOException {
    generation++;
    generations.put(generation, spec);
    createDirs();
    if (warm() && env.containsKey(HamConfig.ENV_JOB_TOKEN)) {
      int claimed = warm.claim(warmKey(spec), nodes, spec.perNode(), generation,
          new WarmClaims.Claim(driverHost, port, jobId, "", dirs.root().getAbsolutePath(),
              env.get(HamConfig.ENV_JOB_TOKEN), 0));
      if (claimed > 0) {
        runnersStarted += claimed;
        return generation;
      }
    }
    for (Start s : platform.generation(dirs, generation, spec.perNode(), command(spec))) {
      start(s, spec);
      runnersStarted += s.slot() != null ? 1 : nodes * spec.perNode();
    }
    return generation;
  }

  /**
   * Starts one runner in place of a lost one of generation {@code like}, on {@code node}, the
   * same way: a new generation with a single runner. Returns its generation.
   */
  public synchronized int replace(String node, int like) throws IOException {
    RunnerSpec spec = generations.get(like);
    generation++;
    generations.put(generation, spec);
    createDirs();
    start(platform.replacement(dirs, generation, node, command(spec)), spec);
    runnersStarted++;
    return generation;
  }

  /** Whether this job's runners park at its end and it claims parked ones. */
  private boolean warm() {
    return work.parks();
  }

  /** The launch key of {@code spec}'s runners: what a parked runner must match. */
  private String warmKey(RunnerSpec spec) {
    List<String> argv = command(spec);
    Map<String, String> all = new HashMap<>(spec.env());
    all.putAll(env);
    // Where the runners work: a job that wants them on the shared file system does not take
    // runners working on their nodes, nor the other way round.
    all.put(RunnerWorkDirs.ENV_TOP, work.top() == null ? "" : work.top().getAbsolutePath());
    // The driver's address, port and job id (the last arguments) come with the claim.
    return WarmRunners.key(argv.subList(0, argv.size() - 3), all);
  }

  private void createDirs() throws IOException {
    if (work.top() == null) {
      Files.createDirectories(work.root().toPath());  // node-local ones: each runner's shell
    }
    Files.createDirectories(dirs.logs().toPath());
  }

  /** Whether the allocation the runners run in is over (they cannot come back). */
  public boolean allocationEnded() {
    return platform.ended();
  }

  /** The node's health, as the platform sees it. */
  public NodeState nodeState(String node) {
    return platform.nodeState(node);
  }

  /**
   * Runners that exited since the last call: those a multi-runner process's output reports
   * (srun's per-task error lines), and the exit of single-runner processes.
   */
  public synchronized List<RunnerExit> pollExits() {
    List<RunnerExit> out = new ArrayList<>();
    if (warm != null) {
      out.addAll(warm.exits());
    }
    for (Step s : steps) {
      if (s.singleSlot != null) {
        newLines(s).forEach(platform::note);  // its exit is its process's
        if (!s.exitReported && !s.process.isAlive()) {
          s.exitReported = true;
          out.add(new RunnerExit(s.singleSlot, s.node,
              "exit status " + s.process.exitValue()));
        }
        continue;
      }
      for (String line : newLines(s)) {
        platform.note(line);
        out.addAll(platform.exits(line, s.generation));
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
      lines.addAll(List.of(new String(buf, 0, end, StandardCharsets.UTF_8).split("\n")));
    } catch (IOException e) {
      LOG.debug("Cannot read {}", s.output, e);
    }
    return lines;
  }

  private void start(Start s, RunnerSpec spec) throws IOException {
    ProcessBuilder pb = new ProcessBuilder(s.argv()).directory(s.cwd())
        .redirectErrorStream(true).redirectOutput(s.output());
    pb.environment().putAll(spec.env());
    pb.environment().putAll(env);
    if (warm()) {
      pb.environment().putAll(warm.stepEnv(warmKey(spec)));
    }
    work.export(pb.environment());
    pb.environment().put("HAM_GEN", Integer.toString(generation));
    LOG.info("Starting task runner(s) (generation {}): {}", generation,
        String.join(" ", s.argv()));
    Process process = pb.start();
    processes.add(process);
    outputs.add(s.output());
    steps.add(new Step(generation, process, s.output(), s.slot(), s.node()));
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
    if (warm != null && warm.alive(gen)) {
      return true;
    }
    for (Step s : steps) {
      if (s.generation == gen && s.process.isAlive()) {
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

  /**
   * Waits up to {@code waitMs} for the runners to exit, then SIGTERM, then SIGKILL; with warm
   * runners, leaves them to park (their step outlives this JVM; they exit after the idle time,
   * and `ham run`'s end stops them), and waits (as long, at most 5 s) until {@code parking} of
   * them have: a next job of the session started as soon as this one ends finds them.
   */
  public synchronized void stop(long waitMs, boolean mayPark, int parking) {
    if (warm() && mayPark) {
      warm.release();
      int parked = warm.awaitParked(dirs.root().getAbsolutePath(), parking,
          Math.min(waitMs, 5000));
      LOG.info("Left the job's runners to park for a next job of the session (warm runners): "
          + "{} of {} parked", parked, parking);
      return;
    }
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
    if (warm != null) {
      warm.kill(gens);
    }
    kill(chosen);
  }

  /** SIGTERM, a short grace period, then SIGKILL; safe to call from a shutdown hook. */
  public synchronized void kill() {
    if (warm != null) {
      warm.kill(null);
    }
    kill(processes);
  }

  private void kill(List<Process> victims) {
    for (Process p : victims) {
      if (p.isAlive()) {
        platform.terminate(p);
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
