package io.github.ham.mapreduce.runner;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.mapred.JobConf;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class JobXmlWriterTest {
  /** A job configuration: the defaults, a site file with a final key, and odd values. */
  private static JobConf job() {
    Configuration site = new Configuration(false);
    site.set("ham.test.final", "site value");
    site.set("ham.test.overridden", "site");
    ByteArrayOutputStream siteXml = new ByteArrayOutputStream();
    try {
      site.writeXml(siteXml);
    } catch (java.io.IOException e) {
      throw new AssertionError(e);
    }
    String text = siteXml.toString(StandardCharsets.UTF_8).replace(
        "<name>ham.test.final</name><value>site value</value><final>false</final>",
        "<name>ham.test.final</name><value>site value</value><final>true</final>");
    JobConf conf = new JobConf();
    conf.addResource(new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8)), "site.xml");
    conf.set("ham.test.overridden", "task");
    conf.set("ham.test.markup", "<a href=\"x\">&amp; 'q' ]]> \u00e9\u4e2d</a>");
    conf.set("ham.test.spaces", "  leading and trailing  ");
    conf.set("ham.test.controls", "a\r\nb\tc");
    conf.set("ham.test.vars", "${user.name}/x");
    conf.set("mapred.task.id", "attempt_1_0001_m_000000_0"); // deprecated name
    return conf;
  }

  private static Configuration parse(byte[] xml) {
    Configuration conf = new Configuration(false);
    conf.addResource(new ByteArrayInputStream(xml), "job.xml");
    conf.size();
    return conf;
  }

  private static Map<String, String> raw(Configuration conf) {
    Map<String, String> out = new TreeMap<>();
    for (Map.Entry<String, String> e : conf) {
      out.put(e.getKey(), e.getValue());
    }
    return out;
  }

  private static void assertParsesAlike(Configuration conf, JobXmlWriter writer)
      throws Exception {
    ByteArrayOutputStream hadoop = new ByteArrayOutputStream();
    conf.writeXml(hadoop);
    ByteArrayOutputStream ours = new ByteArrayOutputStream();
    writer.write(conf, ours);
    Configuration expected = parse(hadoop.toByteArray());
    Configuration actual = parse(ours.toByteArray());
    assertEquals(raw(expected), raw(actual));
    assertEquals(expected.getFinalParameters(), actual.getFinalParameters());
    for (String key : raw(expected).keySet()) {
      assertEquals(sources(expected, key), sources(actual, key), key);
    }
  }

  /**
   * A property's sources, without the deprecation notes parsing adds: those depend on whether
   * a deprecated key or its replacement comes first in the file, which Hadoop leaves to its
   * Hashtable's order.
   */
  private static List<String> sources(Configuration conf, String key) {
    String[] all = conf.getPropertySources(key);
    return all == null ? List.of() : Arrays.stream(all)
        .filter(s -> !s.startsWith("because ")).toList();
  }

  @Test
  void parsesToWhatConfigurationWriteXmlParsesTo() throws Exception {
    JobConf conf = job();
    assertParsesAlike(conf, new JobXmlWriter());
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    new JobXmlWriter().write(conf, out);
    Configuration actual = parse(out.toByteArray());
    assertTrue(actual.getFinalParameters().contains("ham.test.final"));
    assertEquals("site value", actual.get("ham.test.final"));
    assertEquals("<a href=\"x\">&amp; 'q' ]]> \u00e9\u4e2d</a>", actual.get("ham.test.markup"));
    assertEquals("a\r\nb\tc", actual.get("ham.test.controls"));
    assertArrayEquals(new String[] {"programmatically", "job.xml"},
        actual.getPropertySources("ham.test.overridden"));
  }

  /** What Configuration.writeXml of {@code conf} parses to, and what {@code xml} does. */
  private static void assertParsesAlike(Configuration conf, byte[] xml) throws Exception {
    ByteArrayOutputStream hadoop = new ByteArrayOutputStream();
    conf.writeXml(hadoop);
    Configuration expected = parse(hadoop.toByteArray());
    Configuration actual = parse(xml);
    assertEquals(raw(expected), raw(actual));
    assertEquals(expected.getFinalParameters(), actual.getFinalParameters());
    for (String key : raw(expected).keySet()) {
      assertEquals(sources(expected, key), sources(actual, key), key);
    }
  }

  @Test
  void aFileWrittenOverInPlaceHoldsOnlyTheLastConfiguration(@TempDir Path dir) throws Exception {
    File file = dir.resolve("job.xml").toFile();
    JobXmlWriter writer = new JobXmlWriter();
    JobConf longer = job();
    longer.set("ham.test.long", "x".repeat(100_000));
    writer.write(longer, file);
    long longerSize = Files.size(file.toPath());
    JobConf shorter = job();
    writer.write(shorter, file);
    assertParsesAlike(shorter, Files.readAllBytes(file.toPath()));
    assertTrue(Files.size(file.toPath()) < longerSize - 100_000);
  }

  /** A job's task: the job's configuration with its own attempt and partition. */
  private static JobConf task(JobConf job, int n) {
    JobConf task = new JobConf(job);
    task.set("mapreduce.task.attempt.id", "attempt_1_0001_m_00000" + n + "_0");
    task.setInt("mapreduce.task.partition", n);
    return task;
  }

  /**
   * The tasks of a job written to one file in turn: from the job's third task on, a write
   * starts past most of the file (the properties that change move to its end); each time the
   * file parses to that task's configuration, also when a property is gone or new.
   */
  @Test
  void aTaskRewritesTheFileFromItsOwnProperties(@TempDir Path dir) throws Exception {
    File file = dir.resolve("job.xml").toFile();
    JobXmlWriter writer = new JobXmlWriter();
    JobConf job = job();
    job.unset("mapred.task.id");
    // A value back to an earlier one (2), and one of another length (10).
    int[] tasks = {0, 1, 2, 3, 10, 2};
    for (int n : tasks) {
      JobConf task = task(job, n);
      if (n == 3) {
        task.unset("ham.test.spaces");
        task.set("ham.test.new", "in the fourth task alone");
      }
      writer.write(task, file);
      assertParsesAlike(task, Files.readAllBytes(file.toPath()));
      long size = Files.size(file.toPath());
      if (n == 0) {
        assertEquals(0, writer.rewrittenFrom(), "the first write");
      } else if (n != 1 && n != 3) {  // (the fourth rewrites from the property it lacks)
        assertTrue(writer.rewrittenFrom() > size * 9 / 10,
            "task " + n + " rewrote from " + writer.rewrittenFrom() + " of " + size);
      }
    }
  }

  /**
   * A file that something else changed after the last write (its size, its time), or removed,
   * or another file, is written whole.
   */
  @Test
  void aFileChangedSinceIsWrittenWhole(@TempDir Path dir) throws Exception {
    Path path = dir.resolve("job.xml");
    JobXmlWriter writer = new JobXmlWriter();
    JobConf job = job();
    writer.write(task(job, 0), path.toFile());
    writer.write(task(job, 1), path.toFile());
    assertTrue(writer.rewrittenFrom() > 0);
    // The same size, other bytes, a later time: a task that edited its job.xml in place.
    byte[] edited = Files.readAllBytes(path);
    int at = new String(edited, StandardCharsets.ISO_8859_1).indexOf("site value");
    edited[at] = 'S';
    Files.write(path, edited);
    Files.setLastModifiedTime(path, java.nio.file.attribute.FileTime.fromMillis(
        Files.getLastModifiedTime(path).toMillis() + 1000));
    JobConf next = task(job, 2);
    writer.write(next, path.toFile());
    assertEquals(0, writer.rewrittenFrom(), "after an edit of the same size");
    assertParsesAlike(next, Files.readAllBytes(path));
    Files.writeString(path, "shorter", java.nio.file.StandardOpenOption.APPEND);
    writer.write(task(job, 3), path.toFile());
    assertEquals(0, writer.rewrittenFrom(), "after an edit of another size");
    Files.delete(path);
    writer.write(task(job, 4), path.toFile());
    assertEquals(0, writer.rewrittenFrom(), "after the file was removed");
    assertParsesAlike(task(job, 4), Files.readAllBytes(path));
    Path other = dir.resolve("other.xml");
    writer.write(task(job, 5), other.toFile());
    assertEquals(0, writer.rewrittenFrom(), "another file");
    assertParsesAlike(task(job, 5), Files.readAllBytes(other));
  }

  @Test
  void aConfigurationWithoutDeprecatedKeysParsesAlike() throws Exception {
    JobConf conf = job();
    conf.unset("mapred.task.id");
    conf.unset("mapreduce.task.attempt.id");
    for (java.util.Map.Entry<String, String> e : conf) {
      assertTrue(!Configuration.isDeprecated(e.getKey()), e.getKey());
    }
    assertParsesAlike(conf, new JobXmlWriter());
  }

  @Test
  void aReusedWriterRendersChangedPropertiesAgain() throws Exception {
    JobXmlWriter writer = new JobXmlWriter();
    JobConf first = job();
    assertParsesAlike(first, writer);
    JobConf second = new JobConf(first);
    second.set("ham.test.overridden", "another task");
    second.set("ham.test.new", "only in the second task");
    second.unset("ham.test.spaces");
    // The same value from another source: rendered again for its sources.
    second.set("ham.test.markup", first.getRaw("ham.test.markup"), "a task's own source");
    assertParsesAlike(second, writer);
    assertParsesAlike(first, writer);
  }

  /** This Hadoop keeps the sources where the writer reads them without a copy each. */
  @Test
  void readsSourcesWithoutCopies() {
    assertTrue(JobXmlWriter.readsSourcesWithoutCopies(),
        "Configuration.updatingResource not found: each property's sources are copied again");
  }

  /** A task's configuration lists its properties its own way: the same job.xml comes out. */
  @Test
  void aTasksConfigurationParsesAlike() throws Exception {
    JobXmlWriter writer = new JobXmlWriter();
    assertParsesAlike(new TaskConf(job()), writer);
    JobConf plain = job();
    plain.unset("mapred.task.id");
    plain.unset("mapreduce.task.attempt.id");
    TaskConf task = new TaskConf(plain);
    task.set("ham.test.task", "a task's own");
    assertParsesAlike(task, writer);
    ByteArrayOutputStream asTask = new ByteArrayOutputStream();
    new JobXmlWriter().write(task, asTask);
    assertEquals(raw(new JobConf(task)), raw(parse(asTask.toByteArray())));
  }
}
