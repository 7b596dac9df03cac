package io.github.ham.mapreduce.common.jobfiles;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.mapred.IFile;
import org.apache.hadoop.mapred.IndexRecord;
import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapred.MapOutputFile;
import org.apache.hadoop.mapred.SpillRecord;
import org.apache.hadoop.mapred.TaskAttemptID;
import io.github.ham.mapreduce.common.protocol.BadMapOutput;
import io.github.ham.mapreduce.runner.SharedMapOutputFile;

import org.junit.jupiter.api.Test;

import org.junit.jupiter.api.io.TempDir;

class MapOutputCheckTest {
  private static final JobConf CONF = new JobConf(false);

  /** A map output as MapTask writes it: one IFile segment per partition, plus the index. */
  private static MapOutputFile write(File dir, int partitions) throws Exception {
    Files.createDirectories(dir.toPath());
    SharedMapOutputFile files = new SharedMapOutputFile(
        new org.apache.hadoop.fs.Path(dir.getAbsolutePath()), CONF);
    FileSystem fs = FileSystem.getLocal(CONF).getRaw();
    SpillRecord index = new SpillRecord(partitions);
    try (FSDataOutputStream out = fs.create(files.getOutputFile())) {
      for (int p = 0; p < partitions; p++) {
        long start = out.getPos();
        IFile.Writer<Text, Text> w = new IFile.Writer<>(CONF, out, Text.class, Text.class, null,
            null);
        for (int i = 0; i < 200; i++) {
          w.append(new Text("key" + p + "-" + i), new Text("value " + i));
        }
        w.close();
        index.putIndex(new IndexRecord(start, w.getRawLength(), w.getCompressedLength()), p);
      }
    }
    index.writeToFile(files.getOutputIndexFile(), CONF);
    return files;
  }

  private static TaskAttemptID map(int i) {
    return TaskAttemptID.forName("attempt_1_0001_m_00000" + i + "_0");
  }

  @Test
  void goodOutputPassesBothChecks(@TempDir Path tmp) throws Exception {
    Map<TaskAttemptID, MapOutputFile> files = new LinkedHashMap<>();
    files.put(map(0), write(tmp.resolve("m0").toFile(), 2));
    files.put(map(1), write(tmp.resolve("m1").toFile(), 2));
    assertTrue(MapOutputCheck.quick(files, 1, CONF, null).isEmpty());
    assertTrue(MapOutputCheck.full(files, 0, CONF, null).isEmpty());
    assertTrue(MapOutputCheck.full(files, 1, CONF, null).isEmpty());
  }

  @Test
  void truncatedMissingAndDamagedOutputsAreNamed(@TempDir Path tmp) throws Exception {
    Map<TaskAttemptID, MapOutputFile> files = new LinkedHashMap<>();
    for (int i = 0; i < 5; i++) {
      files.put(map(i), write(tmp.resolve("m" + i).toFile(), 2));
    }
    File out1 = tmp.resolve("m1/file.out").toFile();
    try (RandomAccessFile f = new RandomAccessFile(out1, "rw")) {
      f.setLength(f.length() - 10);
    }
    Files.delete(tmp.resolve("m2/file.out"));
    File out3 = tmp.resolve("m3/file.out").toFile();
    try (RandomAccessFile f = new RandomAccessFile(out3, "rw")) {
      f.seek(f.length() - 100); // inside partition 1's segment
      int b = f.read();
      f.seek(f.length() - 100);
      f.write(b ^ 0xFF);
    }
    File index4 = tmp.resolve("m4/file.out.index").toFile();
    try (RandomAccessFile f = new RandomAccessFile(index4, "rw")) {
      f.seek(3);
      int b = f.read();
      f.seek(3);
      f.write(b ^ 0x01);
    }
    Map<String, String> quick = MapOutputCheck.quick(files, 0, CONF, null);
    assertEquals(java.util.List.of(map(1).toString(), map(2).toString(), map(4).toString()),
        java.util.List.copyOf(quick.keySet()));
    assertTrue(quick.get(map(1).toString()).contains("truncated"));
    assertTrue(quick.get(map(4).toString()).contains("Checksum"), quick.toString());
    // The flipped byte is in partition 1: only a reduce of partition 1 (full check) sees it.
    assertTrue(!MapOutputCheck.full(files, 0, CONF, null).containsKey(map(3).toString()));
    Map<String, String> full = MapOutputCheck.full(files, 1, CONF, null);
    assertTrue(full.get(map(3).toString()).contains("Checksum"), full.toString());
    assertEquals(4, full.size());
    // A partition the index does not have.
    Map<TaskAttemptID, MapOutputFile> good = Map.of(map(0), files.get(map(0)));
    assertTrue(MapOutputCheck.quick(good, 5, CONF, null).get(map(0).toString())
        .contains("partition"));
    String report = BadMapOutput.describe(full);
    assertEquals(4, BadMapOutput.parse(report).size());
  }

  @Test
  void aLongCheckPingsTheDriverThoughEachMapIsQuick() throws Exception {
    // 12 checks of 60 ms, 2 at once (~360 ms in all), a ping due every 100 ms: about 3 pings.
    java.util.concurrent.ExecutorService pool =
        java.util.concurrent.Executors.newFixedThreadPool(2);
    try {
      Map<String, java.util.concurrent.Future<String>> results = new LinkedHashMap<>();
      for (int i = 0; i < 12; i++) {
        String name = "m" + i;
        results.put(name, pool.submit(() -> {
          Thread.sleep(60);
          return name.equals("m7") ? "bad" : null;
        }));
      }
      java.util.concurrent.atomic.AtomicInteger pings =
          new java.util.concurrent.atomic.AtomicInteger();
      Map<String, String> bad = MapOutputCheck.awaitAll(results, pings::incrementAndGet,
          java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(100));
      assertEquals(Map.of("m7", "bad"), bad);
      assertTrue(pings.get() >= 2, pings + " pings");
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void anErrorInACheckIsTheReducesNotTheMaps() {
    Map<String, java.util.concurrent.Future<String>> results = new LinkedHashMap<>();
    results.put("m0", java.util.concurrent.CompletableFuture.failedFuture(
        new OutOfMemoryError("Java heap space")));
    org.junit.jupiter.api.Assertions.assertThrows(OutOfMemoryError.class,
        () -> MapOutputCheck.awaitAll(results, null, 1_000_000_000L));
  }

  @Test
  void checkedSeveralAtOnceTheAnswerIsTheSameAndInTheMapsOrder(@TempDir Path tmp)
      throws Exception {
    Map<TaskAttemptID, MapOutputFile> files = new LinkedHashMap<>();
    for (int i = 0; i < 30; i++) {
      files.put(TaskAttemptID.forName(String.format("attempt_1_0001_m_%06d_0", i)),
          write(tmp.resolve("m" + i).toFile(), 2));
    }
    for (int i : new int[] {3, 11, 12, 29}) {
      Files.delete(tmp.resolve("m" + i + "/file.out"));
    }
    JobConf one = new JobConf(false);
    one.setInt(org.apache.hadoop.mapreduce.MRJobConfig.SHUFFLE_PARALLEL_COPIES, 1);
    JobConf many = new JobConf(false);
    many.setInt(org.apache.hadoop.mapreduce.MRJobConfig.SHUFFLE_PARALLEL_COPIES, 7);
    Map<String, String> serial = MapOutputCheck.quick(files, 1, one, null);
    assertEquals(java.util.List.of("attempt_1_0001_m_000003_0", "attempt_1_0001_m_000011_0",
        "attempt_1_0001_m_000012_0", "attempt_1_0001_m_000029_0"),
        java.util.List.copyOf(serial.keySet()));
    assertEquals(java.util.List.copyOf(serial.entrySet()),
        java.util.List.copyOf(MapOutputCheck.quick(files, 1, many, null).entrySet()));
    assertEquals(java.util.List.copyOf(MapOutputCheck.full(files, 1, one, null).entrySet()),
        java.util.List.copyOf(MapOutputCheck.full(files, 1, many, null).entrySet()));
  }
}
