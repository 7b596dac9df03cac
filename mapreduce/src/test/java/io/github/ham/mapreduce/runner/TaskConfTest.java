package io.github.ham.mapreduce.runner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

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

  /** A JobConf that shows its properties object, as RunnerJob's does. */
  private static final class Shown extends JobConf {
    Shown(JobConf job) {
      super(job);
    }

    java.util.Properties properties() {
      return getProps();
    }
  }

  /**
   * With the job's index of names, a copy finds a prefix's properties as Hadoop's does, also
   * once names were added (a set, a deprecated key's replacement that a get adds, a resource),
   * removed (unset, clear) or loaded again.
   */
  @Test
  void propsWithPrefixFromTheJobsIndexAreHadoops() {
    Configuration.addDeprecation("ham.test.index.old", "ham.test.index.renamed");
    Shown job = new Shown(new JobConf());
    job.set("ham.test.index.a", "${ham.test.base}/a");
    job.set("ham.test.base", "/base");
    job.properties().setProperty("ham.test.index.old", "deprecated");  // its replacement unset
    KeyIndex keys = KeyIndex.of(job.properties());
    List<java.util.function.Consumer<JobConf>> changes = List.of(
        c -> { },
        c -> c.set("ham.test.index.new", "added"),
        c -> c.get("ham.test.index.old"),
        c -> c.unset("ham.test.index.a"),
        c -> c.addResource(new java.io.ByteArrayInputStream(("<configuration><property><name>"
            + "ham.test.index.res</name><value>r</value></property></configuration>")
            .getBytes(java.nio.charset.StandardCharsets.UTF_8)), "a resource"),
        JobConf::reloadConfiguration,
        JobConf::clear);
    for (int i = 0; i < changes.size(); i++) {
      JobConf hadoops = new JobConf(job);
      TaskConf ours = new TaskConf(job, keys);
      changes.get(i).accept(hadoops);
      changes.get(i).accept(ours);
      for (String prefix : List.of("ham.test.index.", "ham.test.", "mapreduce.job.input.file.",
          "no.such.prefix.", "")) {
        assertEquals(hadoops.getPropsWithPrefix(prefix), ours.getPropsWithPrefix(prefix),
            "change " + i + ", prefix " + prefix);
      }
    }
  }

  /**
   * The index answers while the copy has the job's names and those set on it, and only then:
   * given an index that names "z" where the job has "a" (the same count), a copy answers "z",
   * with the names set on it since (a deprecated name's replacement too), until it has a name
   * that was not set (a get of a deprecated name adds its replacement) or lost one; then it
   * walks its own.
   */
  @Test
  void theIndexAnswersOnlyWhileTheNamesAreTheJobsAndThoseSet() {
    Configuration.addDeprecation("ham.test.dep.was", "ham.test.dep.now");
    // Names as a job.xml gives them (not set: none in the overlay; a deprecated name without
    // its replacement).
    Shown job = new Shown(new JobConf(false));
    job.properties().setProperty("ham.test.index.a", "1");
    job.properties().setProperty("ham.test.other", "2");
    job.properties().setProperty("ham.test.dep.was", "3");
    Shown other = new Shown(new JobConf(false));
    other.properties().setProperty("ham.test.index.z", "1");
    other.properties().setProperty("ham.test.other", "2");
    other.properties().setProperty("ham.test.dep.was", "3");
    TaskConf task = new TaskConf(job, KeyIndex.of(other.properties()));
    Map<String, String> fromIndex = new HashMap<>();
    fromIndex.put("z", null);
    assertEquals(fromIndex, task.getPropsWithPrefix("ham.test.index."));
    task.set("ham.test.index.b", "4");
    task.set("mapred.task.id", "attempt_1_0001_m_000000_0");  // also mapreduce.task.attempt.id
    fromIndex.put("b", "4");
    assertEquals(fromIndex, task.getPropsWithPrefix("ham.test.index."));
    assertEquals(Map.of("task.attempt.id", "attempt_1_0001_m_000000_0"),
        task.getPropsWithPrefix("mapreduce."));
    task.get("ham.test.dep.was");  // adds ham.test.dep.now, not through a set
    assertEquals(Map.of("a", "1", "b", "4"), task.getPropsWithPrefix("ham.test.index."));
    TaskConf lost = new TaskConf(job, KeyIndex.of(other.properties()));
    lost.unset("ham.test.other");
    assertEquals(Map.of("a", "1"), lost.getPropsWithPrefix("ham.test.index."));
    assertTrue(KeyIndex.of(job.properties()).isOf(job.properties()));
    assertFalse(KeyIndex.of(other.properties()).isOf(job.properties()));
  }

  /** This Hadoop keeps the names set on a configuration where TaskConf reads them. */
  @Test
  void findsConfigurationsOverlay() {
    assertTrue(ConfigurationFields.field("overlay", java.util.Properties.class) != null,
        "Configuration.overlay not found: a task's prefixed properties are found by a walk");
    assertTrue(ConfigurationFields.field("overlay", Map.class) != null, "a Properties is a Map");
    assertTrue(ConfigurationFields.field("overlay", String.class) == null, "another type");
    assertTrue(ConfigurationFields.field("no such field", Object.class) == null);
  }
}
