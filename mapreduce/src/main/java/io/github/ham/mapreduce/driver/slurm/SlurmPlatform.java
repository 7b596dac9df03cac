package io.github.ham.mapreduce.driver.slurm;

import java.io.File;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.github.ham.mapreduce.common.HamConfig;
import io.github.ham.mapreduce.common.jobfiles.JobDirs;
import io.github.ham.mapreduce.driver.launch.Allocation;
import io.github.ham.mapreduce.driver.launch.NodeState;
import io.github.ham.mapreduce.driver.launch.RunnerExit;
import io.github.ham.mapreduce.driver.launch.RunnerPlatform;

import org.apache.hadoop.conf.Configuration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runners in the Slurm allocation this JVM runs in: a generation is one srun step over every
 * node, a replacement a one-task step on a node ({@code srun --overlap -N1 -n1 -w NODE});
 * srun's messages say which runners exited; scontrol says how big the allocation is, how a
 * node is, whether the allocation ended, and takes the job's comment.
 */
public final class SlurmPlatform implements RunnerPlatform {
  private static final Logger LOG = LoggerFactory.getLogger(SlurmPlatform.class);
  /** HAM's notices to the user: the job's console as well as driver.log. */
  private static final Logger NOTICE = LoggerFactory.getLogger("ham");
  /** How the runner shell's line starts when a runner cannot use its node-local directory. */
  static final String WORK_WARNING = "ham-runner: WARN: ";
  private static final Pattern JOB_STATE = Pattern.compile("(?:^|\\s)JobState=(\\S+)");
  /**
   * Runs in each srun task: a private working directory per runner, then the JVM, with
   * JVM_PID its own pid (exec keeps the shell's), as YARN's container script exports it: the
   * tasks' process tree (Task.initialize) and so their CPU_MILLISECONDS, PHYSICAL_MEMORY_BYTES
   * and VIRTUAL_MEMORY_BYTES counters come from it, counted per task from the task's start.
   * A node-local directory (HAM_WORK_TOP set, RunnerWorkDirs) is under the user's top one,
   * made 0700 here and used only if it is a directory of the user's: in /tmp anyone could have
   * made that name first (and only its owner can remove it there), so a runner that cannot use
   * it says why in a WARN line (the driver repeats it) and works in HAM_WORK_SHARED, on the
   * shared file system, rather than fail the job. mkdir is tried twice: a runner of the node
   * leaving at that moment removes the job's directory when it finds it empty.
   */
  static final String RUNNER_SHELL =
      "n=${SLURMD_NODENAME:-$(hostname)}; g=\"g${HAM_GEN}-p${SLURM_PROCID:-0}\"; "
      + "d=\"$HAM_WORK_ROOT/$g\"; "
      + "if [ -n \"$HAM_WORK_TOP\" ]; then t=\"$HAM_WORK_TOP\"; w=; "
      + "mkdir -m 700 \"$t\" 2>/dev/null; "
      + "if [ -L \"$t\" ] || { [ -e \"$t\" ] && { [ ! -d \"$t\" ] || [ ! -O \"$t\" ]; }; }; "
      + "then w=\"$t is not a directory of this user's\"; "
      + "elif [ ! -d \"$t\" ]; then w=\"cannot make $t\"; "
      + "elif ! chmod 700 \"$t\" || ! { mkdir -p \"$d\" 2>/dev/null || mkdir -p \"$d\" 2>/dev/null; }; "
      + "then w=\"cannot make $d\"; fi; "
      + "if [ -n \"$w\" ]; then printf '" + WORK_WARNING + "%s on %s; this runner works in the "
      + "job directory on the shared file system instead (setting runner_local_dir, "
      + "ham.runner.local.dir)\\n' \"$w\" \"$n\" >&2; "
      + "d=\"${HAM_WORK_SHARED:?}/$g\"; unset HAM_WORK_TOP; fi; fi; "
      + "{ mkdir -p \"$d\" || mkdir -p \"$d\"; } || { printf 'ham-runner: cannot make its "
      + "working directory %s on %s\\n' \"$d\" \"$n\" >&2; exit 1; }; "
      + "cd \"$d\" && export JVM_PID=$$ && exec \"$@\"";

  private final Map<String, String> env = System.getenv();
  private final String srun;
  private final String scontrol;
  private final String job = env.get("SLURM_JOB_ID");
  private volatile Allocation allocation;

  public SlurmPlatform(Configuration conf) {
    this.srun = conf.getTrimmed(HamConfig.SRUN, HamConfig.DEFAULT_SRUN);
    this.scontrol = conf.getTrimmed(HamConfig.SCONTROL, HamConfig.DEFAULT_SCONTROL);
  }

  @Override
  public boolean available() {
    return job != null;
  }

  /** The Slurm job: the SPANK plugin's epilog removes {@code <dir>/ham-<user>/<job>}. */
  @Override
  public String localWorkScope() {
    return job;
  }

  /**
   * The allocation's nodes and CPUs per node from Slurm's environment; its memory per node
   * its own if it asked for some, else the nodes' RealMemory from {@code scontrol} (asked
   * once).
   */
  @Override
  public Allocation allocation() {
    Allocation a = allocation;
    if (a == null) {
      long memory = SlurmEnv.jobMemoryMb(env);
      String nodeList = env.get("SLURM_JOB_NODELIST");
      if (memory <= 0 && nodeList != null) {
        memory = SlurmEnv.realMemoryMb(SlurmNodes.showNodes(scontrol, nodeList));
      }
      a = new Allocation(SlurmEnv.nodes(env), SlurmEnv.cpus(env), memory);
      allocation = a;
    }
    return a;
  }

  @Override
  public int configuredPerNode(Configuration conf) {
    return conf.getInt(HamConfig.RUNNERS_PER_NODE, HamConfig.DEFAULT_RUNNERS_PER_NODE);
  }

  /**
   * One srun step of {@code perNode} runners on every node (--overlap: it may share the CPUs
   * of earlier steps, whose runners are on their way out).
   */
  @Override
  public List<Start> generation(JobDirs dirs, int gen, int perNode, List<String> runner) {
    List<String> cmd = new ArrayList<>(List.of(srun,
        "-N", Integer.toString(allocation().nodes()),
        "--ntasks-per-node=" + perNode,
        "--overlap",
        "--kill-on-bad-exit=0",
        // A failed node must not end the step: the runners on the other nodes go on.
        "--no-kill",
        "/bin/sh", "-c", RUNNER_SHELL, "ham-runner"));
    cmd.addAll(runner);
    return List.of(new Start(cmd, new File(System.getProperty("user.dir")), stepLog(dirs, gen),
        null, null));
  }

  /**
   * A step of its own sharing the first step's resources ({@code --overlap}: a dead runner
   * does not free the CPUs of the step it belonged to).
   */
  @Override
  public Start replacement(JobDirs dirs, int gen, String node, List<String> runner) {
    List<String> cmd = new ArrayList<>(List.of(srun,
        "--overlap", "-N1", "-n1", "-w", node,
        "--kill-on-bad-exit=0",
        "/bin/sh", "-c", RUNNER_SHELL, "ham-runner"));
    cmd.addAll(runner);
    return new Start(cmd, new File(System.getProperty("user.dir")), stepLog(dirs, gen),
        RunnerExit.slotName(gen, 0), node);
  }

  private static File stepLog(JobDirs dirs, int gen) {
    return new File(dirs.logs(), "runners.g" + gen + ".log");
  }

  /** srun's per-task error lines (a runner that exits 0 is not reported: the job is over). */
  @Override
  public List<RunnerExit> exits(String line, int gen) {
    return line.contains("srun: error:") ? SrunMessages.exits(line, gen) : List.of();
  }

  /**
   * The runner shell's warning (it cannot work in its node-local directory) on the job's
   * console and in driver.log; found anywhere in the line (srun --label, SLURM_LABELIO).
   */
  @Override
  public void note(String line) {
    int at = line.indexOf(WORK_WARNING);
    if (at >= 0) {
      NOTICE.warn("{}", line.substring(at + WORK_WARNING.length()));
    }
  }

  @Override
  public NodeState nodeState(String node) {
    return SlurmNodes.query(scontrol, node);
  }

  /**
   * Whether this allocation is over (scancel, its time limit, its nodes lost): Slurm says its
   * state is no longer RUNNING, or no longer knows it. False when that cannot be told (no
   * allocation, scontrol failing or slow).
   */
  @Override
  public boolean ended() {
    if (job == null) {
      return false;
    }
    Scontrol.Answer a = Scontrol.show(scontrol, "job", "-o", job);
    if (a == null) {
      return false;
    }
    if (!a.ok()) {
      return a.text().contains("Invalid job id");
    }
    Matcher m = JOB_STATE.matcher(a.text());
    return m.find() && !m.group(1).equals("RUNNING") && !m.group(1).equals("SUSPENDED");
  }

  /**
   * Sets the allocation's comment (squeue's %k, sacct's Comment where the site stores it) to
   * {@code comment}, e.g. "ham job_1764_0003 word count", so that HAM's jobs are recognisable
   * among Slurm's; on a daemon thread (the job does not wait for the controller), and only
   * logged if Slurm refuses. Nothing outside an allocation.
   */
  @Override
  public String statusCommand() {
    return job == null ? "" : "ham status " + job;
  }

  @Override
  public void describe(String comment) {
    if (job == null) {
      return;
    }
    // scontrol takes the value up to the end of its argument; no newline in a comment.
    String text = comment.replaceAll("\\s+", " ").trim();
    Thread t = new Thread(() -> {
      Scontrol.Answer a = Scontrol.update(scontrol, "JobId=" + job,
          "Comment=" + (text.length() > 200 ? text.substring(0, 200) : text));
      if (a != null && !a.ok()) {
        LOG.info("Slurm job {}'s comment not set: {}", job, a.text().trim());
      }
    }, "ham-job-comment");
    t.setDaemon(true);
    t.start();
  }

  /** The names of the allocation's nodes ({@code scontrol show hostnames}); empty if unknown. */
  @Override
  public List<String> nodeNames() {
    String nodeList = env.get("SLURM_JOB_NODELIST");
    Scontrol.Answer a = nodeList == null ? null : Scontrol.show(scontrol, "hostnames", nodeList);
    return a == null || !a.ok() ? List.of() : List.of(a.text().trim().split("\\s+"));
  }

  /** srun passes the signal on to the step's tasks. */
  @Override
  public void terminate(Process process) {
    process.destroy();
  }
}
