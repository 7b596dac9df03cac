package io.github.ham.mapreduce.driver.slurm;

import java.util.Map;

import io.github.ham.mapreduce.common.HamConfig;

import org.apache.hadoop.conf.Configuration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Slurm allocation the job runs in, as a YARN cluster of that size: its nodes, and the
 * CPUs and memory the job has on each (the allocation's own memory if it asked for some, else
 * the nodes' RealMemory from {@code scontrol}). The runners are fitted to it as a
 * NodeManager fits containers; with the local launcher it is this machine.
 */
public record Allocation(int nodes, int cpus, long memoryMb) {
  private static final Logger LOG = LoggerFactory.getLogger(Allocation.class);

  public static Allocation current(Configuration conf) {
    Map<String, String> env = System.getenv();
    if (HamConfig.LAUNCHER_LOCAL.equals(conf.getTrimmed(HamConfig.LAUNCHER,
        HamConfig.DEFAULT_LAUNCHER))) {
      return new Allocation(1, Runtime.getRuntime().availableProcessors(), 0);
    }
    long memory = RunnerCount.jobMemoryMb(env);
    String nodeList = env.get("SLURM_JOB_NODELIST");
    if (memory <= 0 && nodeList != null) {
      memory = RunnerCount.realMemoryMb(NodeState.showNodes(
          conf.getTrimmed(HamConfig.SCONTROL, HamConfig.DEFAULT_SCONTROL), nodeList));
    }
    return new Allocation(RunnerCount.nodes(env), RunnerCount.cpus(env), memory);
  }

  private static final java.util.regex.Pattern JOB_STATE =
      java.util.regex.Pattern.compile("(?:^|\\s)JobState=(\\S+)");

  /**
   * Whether this allocation is over (scancel, its time limit, its nodes lost): Slurm says its
   * state is no longer RUNNING, or no longer knows it. False when that cannot be told (no
   * allocation, the local launcher, scontrol failing or slow).
   */
  public static boolean ended(Configuration conf) {
    String job = System.getenv("SLURM_JOB_ID");
    if (job == null || HamConfig.LAUNCHER_LOCAL.equals(conf.getTrimmed(HamConfig.LAUNCHER,
        HamConfig.DEFAULT_LAUNCHER))) {
      return false;
    }
    Scontrol.Answer a = Scontrol.show(conf.getTrimmed(HamConfig.SCONTROL,
        HamConfig.DEFAULT_SCONTROL), "job", "-o", job);
    if (a == null) {
      return false;
    }
    if (!a.ok()) {
      return a.text().contains("Invalid job id");
    }
    java.util.regex.Matcher m = JOB_STATE.matcher(a.text());
    return m.find() && !m.group(1).equals("RUNNING") && !m.group(1).equals("SUSPENDED");
  }

  /**
   * Sets the allocation's comment (squeue's %k, sacct's Comment where the site stores it) to
   * {@code comment}, e.g. "ham job_1764_0003 word count", so that HAM's jobs are recognisable
   * among Slurm's; on a daemon thread (the job does not wait for the controller), and only
   * logged if Slurm refuses. Nothing outside an allocation or with the local launcher.
   */
  public static void describe(Configuration conf, String comment) {
    String job = System.getenv("SLURM_JOB_ID");
    if (job == null || HamConfig.LAUNCHER_LOCAL.equals(conf.getTrimmed(HamConfig.LAUNCHER,
        HamConfig.DEFAULT_LAUNCHER))) {
      return;
    }
    String scontrol = conf.getTrimmed(HamConfig.SCONTROL, HamConfig.DEFAULT_SCONTROL);
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
  public static java.util.List<String> nodeNames(Configuration conf) {
    String nodeList = System.getenv("SLURM_JOB_NODELIST");
    if (nodeList == null) {
      return java.util.List.of();
    }
    try {
      Process p = new ProcessBuilder(conf.getTrimmed(HamConfig.SCONTROL,
          HamConfig.DEFAULT_SCONTROL), "show", "hostnames", nodeList).start();
      p.getOutputStream().close();
      String out = new String(p.getInputStream().readAllBytes(),
          java.nio.charset.StandardCharsets.UTF_8);
      return p.waitFor() == 0 ? java.util.List.of(out.trim().split("\\s+"))
          : java.util.List.of();
    } catch (java.io.IOException e) {
      return java.util.List.of();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return java.util.List.of();
    }
  }
}
