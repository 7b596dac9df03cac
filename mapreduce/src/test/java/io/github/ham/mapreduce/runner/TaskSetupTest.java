package io.github.ham.mapreduce.runner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.ham.mapreduce.common.HamConfig;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.hadoop.mapred.HamMapOutputBuffer;
import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapred.MapOutputFile;
import org.apache.hadoop.mapred.MapTask;
import org.apache.hadoop.mapred.MROutputFiles;
import org.apache.hadoop.mapred.TaskAttemptID;
import org.apache.hadoop.mapreduce.MRJobConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TaskSetupTest {
  private static String collector(JobConf job) {
    TaskSetup.reuseSortBuffer(job);
    return job.get(MRJobConfig.MAP_OUTPUT_COLLECTOR_CLASS_ATTR);
  }

  @Test
  void hadoopsShuffleBecomesTheOneWithSeveralFetchersUnlessTheJobNamesItsOwn() {
    JobConf job = new JobConf();
    TaskSetup.parallelShuffle(job);
    assertEquals(org.apache.hadoop.mapreduce.task.reduce.HamShuffle.class.getName(),
        job.get(org.apache.hadoop.mapreduce.MRConfig.SHUFFLE_CONSUMER_PLUGIN));
    JobConf own = new JobConf();
    own.set(org.apache.hadoop.mapreduce.MRConfig.SHUFFLE_CONSUMER_PLUGIN, "com.example.Shuffle");
    TaskSetup.parallelShuffle(own);
    assertEquals("com.example.Shuffle",
        own.get(org.apache.hadoop.mapreduce.MRConfig.SHUFFLE_CONSUMER_PLUGIN));
  }

  @Test
  void hadoopsCollectorBecomesTheOneKeepingItsSortBuffer() {
    assertEquals(HamMapOutputBuffer.class.getName(), collector(new JobConf()));
  }

  @Test
  void aCollectorTheJobNamesIsKept() {
    JobConf job = new JobConf();
    job.set(MRJobConfig.MAP_OUTPUT_COLLECTOR_CLASS_ATTR, "com.example.NativeCollector");
    assertEquals("com.example.NativeCollector", collector(job));
  }

  @Test
  void reuseCanBeTurnedOff() {
    JobConf job = new JobConf();
    job.setBoolean(HamConfig.REUSE_SORT_BUFFER, false);
    assertEquals(MapTask.MapOutputBuffer.class.getName(), collector(job));
  }

  private static Map<TaskAttemptID, MapOutputFile> outputs(String... attempts) {
    Map<TaskAttemptID, MapOutputFile> files = new LinkedHashMap<>();
    for (String a : attempts) {
      files.put(TaskAttemptID.forName(a), new MROutputFiles());
    }
    return files;
  }

  @Test
  void everyMapsOutputKeepsItsAttemptsId() {
    Map<TaskAttemptID, MapOutputFile> files = outputs("attempt_1_0001_m_000000_0",
        "attempt_1_0001_m_000001_3");
    assertSame(files, TaskSetup.shuffleIndexed(files));
  }

  @Test
  void withFailedMapsTheOutputsGetConsecutiveMapIndexes() {
    // Maps 2 and 6 of 10 failed within maxpercent: the shuffle's array has 8 entries, and
    // map 9's index would be past it.
    Map<TaskAttemptID, MapOutputFile> files = outputs("attempt_1_0001_m_000000_0",
        "attempt_1_0001_m_000001_0", "attempt_1_0001_m_000003_1", "attempt_1_0001_m_000009_0");
    Map<TaskAttemptID, MapOutputFile> indexed = TaskSetup.shuffleIndexed(files);
    assertEquals(List.of("attempt_1_0001_m_000000_0", "attempt_1_0001_m_000001_0",
        "attempt_1_0001_m_000002_1", "attempt_1_0001_m_000003_0"),
        indexed.keySet().stream().map(TaskAttemptID::toString).toList());
    assertEquals(List.copyOf(files.values()), List.copyOf(indexed.values()));
  }

  @Test
  void theWorkDirIsEmptiedButForTheJobXmlTheNextTaskOverwrites(@TempDir Path dir)
      throws Exception {
    Files.writeString(dir.resolve("job.xml"), "<configuration/>");
    Files.createDirectories(dir.resolve("tmp/deep"));
    Files.writeString(dir.resolve("tmp/deep/x"), "x");
    Files.writeString(dir.resolve("left.txt"), "x");
    Path target = Files.createDirectories(dir.getParent().resolve(dir.getFileName() + "-cache"));
    Files.writeString(target.resolve("kept"), "x");
    Files.createSymbolicLink(dir.resolve("cache.link"), target);
    TaskSetup.clearWorkDir(dir.toFile());
    try (java.util.stream.Stream<Path> left = Files.list(dir)) {
      assertEquals(List.of(dir.resolve("job.xml")), left.collect(Collectors.toList()));
    }
    assertTrue(Files.exists(target.resolve("kept")), "a link's target is not deleted");
    Files.delete(dir.resolve("job.xml"));
    Files.createDirectories(dir.resolve("job.xml"));  // not a file: goes as anything else
    TaskSetup.clearWorkDir(dir.toFile());
    try (java.util.stream.Stream<Path> left = Files.list(dir)) {
      assertEquals(0, left.count());
    }
  }
}
