package io.github.ham.mapreduce.runner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.util.List;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.io.WritableUtils;
import org.apache.hadoop.mapred.JobConf;
import org.junit.jupiter.api.Test;

class TaskConfTest {
  /** The same map as Hadoop's for every prefix: values expanded, deprecations handled. */
  @Test
  void propsWithPrefixAreHadoops() {
    Configuration.addDeprecation("ham.test.prefix.old", "ham.test.prefix.renamed");
    JobConf job = new JobConf();  // with Hadoop's default resources, as a task's
    job.set("mapreduce.job.input.file.option.fs.option.openfile.read.policy", "sequential");
    job.set("mapreduce.job.input.file.must.fs.option.x", "${ham.test.base}/y");
    job.set("ham.test.base", "/base");
    job.set("ham.test.prefix.old", "kept");
    job.set("ham.test.prefix.plain", "p");
    for (String prefix : List.of("mapreduce.job.input.file.option.",
        "mapreduce.job.input.file.must.", "ham.test.prefix.", "io.", "no.such.prefix.", "")) {
      assertEquals(new JobConf(job).getPropsWithPrefix(prefix),
          new TaskConf(job).getPropsWithPrefix(prefix), prefix);
    }
    assertFalse(new TaskConf(job).getPropsWithPrefix("mapreduce.job.input.file.").isEmpty());
    assertEquals("/base/y", new TaskConf(job).getPropsWithPrefix("mapreduce.job.input.file.must.")
        .get("fs.option.x"));
  }

  /** Hadoop's copies by reflection work on it, as on a JobConf. */
  @Test
  void copiesByReflection() {
    JobConf job = new JobConf(false);
    job.set("ham.test.key", "v");
    TaskConf copy = WritableUtils.clone(new TaskConf(job), job);
    assertEquals("v", copy.get("ham.test.key"));
  }
}
