package io.github.ham.mapreduce.driver.slurm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import io.github.ham.mapreduce.common.HamConfig;
import io.github.ham.mapreduce.common.jobfiles.JobDirs;
import io.github.ham.mapreduce.driver.launch.RunnerPlatform.Start;

import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The srun command lines of the Slurm platform. */
class SlurmPlatformTest {
  @Test
  void aGenerationIsOneStepAndAReplacementAOneTaskStepOnItsNode(@TempDir Path tmp) {
    Configuration conf = new Configuration(false);
    conf.set(HamConfig.SRUN, "/opt/srun");
    SlurmPlatform slurm = new SlurmPlatform(conf);
    JobDirs dirs = JobDirs.of(tmp.toString(), "job_1_0001");
    List<String> runner = List.of("java", "-Xmx1g", "Main");

    List<Start> gen = slurm.generation(dirs, 2, 3, runner);
    assertEquals(1, gen.size());
    String nodes = Integer.toString(SlurmEnv.nodes(System.getenv()));  // 1 outside a job
    List<String> argv = new ArrayList<>(List.of("/opt/srun", "-N", nodes, "--ntasks-per-node=3",
        "--overlap", "--kill-on-bad-exit=0", "--no-kill", "/bin/sh", "-c",
        SlurmPlatform.RUNNER_SHELL, "ham-runner"));
    argv.addAll(runner);
    assertEquals(argv, gen.get(0).argv());
    assertNull(gen.get(0).slot(), "its exits come from srun's messages");
    assertEquals("runners.g2.log", gen.get(0).output().getName());

    Start one = slurm.replacement(dirs, 3, "node2", runner);
    argv = new ArrayList<>(List.of("/opt/srun", "--overlap", "-N1", "-n1", "-w", "node2",
        "--kill-on-bad-exit=0", "/bin/sh", "-c", SlurmPlatform.RUNNER_SHELL, "ham-runner"));
    argv.addAll(runner);
    assertEquals(argv, one.argv());
    assertEquals("g3-p0", one.slot());
    assertEquals("node2", one.node());
  }

  @Test
  void srunsTaskExitLinesOnly() {
    SlurmPlatform slurm = new SlurmPlatform(new Configuration(false));
    assertEquals(2, slurm.exits("srun: error: node1: tasks 0-1: Killed", 0).size());
    assertEquals(0, slurm.exits("INFO runner started", 0).size());
  }
}
