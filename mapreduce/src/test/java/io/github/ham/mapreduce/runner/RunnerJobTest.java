package io.github.ham.mapreduce.runner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.mapred.HamBridge;
import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapred.Task;
import org.apache.hadoop.mapred.TaskAttemptID;
import org.apache.hadoop.mapreduce.split.JobSplit.TaskSplitIndex;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.github.ham.mapreduce.common.fs.KeptFiles;
import io.github.ham.mapreduce.common.jobfiles.JobDirs;

class RunnerJobTest {
  @TempDir
  Path dir;

  private String writeJobXml() throws Exception {
    Configuration conf = new Configuration(false);
    conf.set("ham.test.key", "from-job");
    File jobXml = dir.resolve("job.xml").toFile();
    try (OutputStream out = Files.newOutputStream(jobXml.toPath())) {
      conf.writeXml(out);
    }
    return jobXml.getAbsolutePath();
  }

  @Test
  void tasksGetIndependentCopiesOfTheParsedJob() throws Exception {
    String jobXml = writeJobXml();
    File work = Files.createDirectories(dir.resolve("work")).toFile();
    try (RunnerJob job = new RunnerJob(jobXml, new JobDirs(dir.resolve("job").toFile()), work)) {
      assertTrue(job.isFor(jobXml));
      assertFalse(job.isFor(jobXml + ".other"));
      JobConf first = job.newTaskConf();
      assertEquals("from-job", first.get("ham.test.key"));
      assertSame(job.classLoader(), first.getClassLoader());
      first.set("ham.test.key", "changed by a task");
      first.set("ham.test.added", "x");
      JobConf second = job.newTaskConf();
      assertEquals("from-job", second.get("ham.test.key"));
      assertNull(second.get("ham.test.added"));
      // The prefixed properties from the job's index of names, as Hadoop finds them.
      assertEquals(Map.of("key", "from-job"), second.getPropsWithPrefix("ham.test."));
      assertEquals(new JobConf(second).getPropsWithPrefix("mapreduce.job."),
          second.getPropsWithPrefix("mapreduce.job."));
      assertEquals(Map.of("key", "changed by a task", "added", "x"),
          first.getPropsWithPrefix("ham.test."));
    }
  }

  /**
   * A map task names its split file; the job's state keeps that file and its checksums open
   * while the runner has it, and lets them go when closed; a split file on another scheme is
   * not kept.
   */
  @Test
  void keepsTheSplitFileOfItsMapsUntilClosed() throws Exception {
    String jobXml = writeJobXml();
    File work = Files.createDirectories(dir.resolve("work")).toFile();
    File split = Files.writeString(dir.resolve("job.split"), "splits").toFile();
    File crc = Files.writeString(dir.resolve(".job.split.crc"), "sums").toFile();
    String location = "file:" + split.getAbsolutePath();
    Task map = HamBridge.newMapTask(jobXml, TaskAttemptID.forName(
        "attempt_1700000000000_0001_m_000003_0"), 3, new TaskSplitIndex(location, 42), "u");
    assertEquals(location, HamBridge.splitFileOf(map));
    try (RunnerJob job = new RunnerJob(jobXml, new JobDirs(dir.resolve("job").toFile()), work)) {
      job.keepSplitFile("lustre:" + split.getAbsolutePath());
      assertNull(KeptFiles.get(split));
      job.keepSplitFile(HamBridge.splitFileOf(map));
      assertNotNull(KeptFiles.get(split));
      assertNotNull(KeptFiles.get(crc));
    }
    assertNull(KeptFiles.get(split));
    assertNull(KeptFiles.get(crc));
  }
}
