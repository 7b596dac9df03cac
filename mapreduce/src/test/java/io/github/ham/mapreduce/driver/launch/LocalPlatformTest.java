package io.github.ham.mapreduce.driver.launch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;

import io.github.ham.mapreduce.common.HamConfig;
import io.github.ham.mapreduce.common.jobfiles.JobDirs;
import io.github.ham.mapreduce.driver.launch.RunnerPlatform.Start;

import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LocalPlatformTest {
  @Test
  void localRunnersIsTheOneNodesRunnersPerNode() {
    LocalPlatform local = new LocalPlatform();
    Configuration conf = new Configuration(false);
    assertEquals(0, local.configuredPerNode(conf), "fitted to this machine");
    conf.setInt(HamConfig.RUNNERS_PER_NODE, 3);
    assertEquals(3, local.configuredPerNode(conf));
    conf.setInt(HamConfig.LOCAL_RUNNERS, 5);
    assertEquals(5, local.configuredPerNode(conf), "ham.local.runners, where set, wins");
    assertEquals(1, local.allocation().nodes());
    assertEquals("", local.statusCommand(), "no allocation for the tracking line to name");
  }

  @Test
  void eachRunnerIsAProcessInItsOwnDirectory(@TempDir Path tmp) throws Exception {
    JobDirs dirs = JobDirs.of(tmp.toString(), "job_1_0001");
    List<Start> starts = new LocalPlatform().generation(dirs, 1, 2, List.of("java", "Main"));
    assertEquals(List.of("g1-p0", "g1-p1"), starts.stream().map(Start::slot).toList());
    for (Start s : starts) {
      assertEquals(List.of("java", "Main"), s.argv());
      assertTrue(s.cwd().isDirectory(), s.cwd() + " made");
      assertEquals("runner." + s.slot() + ".log", s.output().getName());
    }
    assertEquals("g4-p0", new LocalPlatform().replacement(dirs, 4, null, List.of("java"))
        .slot());
  }
}
