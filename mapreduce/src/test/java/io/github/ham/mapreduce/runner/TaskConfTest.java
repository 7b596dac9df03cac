package io.github.ham.mapreduce.runner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

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

  /**
   * Its iterator gives what Hadoop's gives (values as set, unexpanded), and like Hadoop's its
   * entries and its remove change only the list it walks, not the configuration.
   */
  @Test
  void iteratesAsHadoops() {
    JobConf job = new JobConf();
    job.set("ham.test.base", "/base");
    job.set("ham.test.path", "${ham.test.base}/y");
    Map<String, String> hadoops = new HashMap<>();
    new JobConf(job).forEach(e -> hadoops.put(e.getKey(), e.getValue()));
    TaskConf task = new TaskConf(job);
    Map<String, String> ours = new HashMap<>();
    task.forEach(e -> ours.put(e.getKey(), e.getValue()));
    assertEquals(hadoops, ours);
    assertEquals("${ham.test.base}/y", ours.get("ham.test.path"));
    Iterator<Map.Entry<String, String>> it = task.iterator();
    Map.Entry<String, String> first = it.next();
    String value = task.getRaw(first.getKey());
    first.setValue("changed in the entry only");
    it.remove();
    assertEquals(value, task.getRaw(first.getKey()));
    assertEquals(hadoops.size(), task.size());
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
