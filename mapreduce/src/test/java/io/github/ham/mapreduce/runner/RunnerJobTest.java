package io.github.ham.mapreduce.runner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.mapred.JobConf;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

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
    }
  }
}
