package org.apache.hadoop.mapreduce.task.reduce;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.RandomAccessFile;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import io.github.ham.mapreduce.common.jobfiles.MapOutputCheck;
import io.github.ham.mapreduce.runner.SharedMapOutputFile;

import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.io.BytesWritable;
import org.apache.hadoop.io.DataInputBuffer;
import org.apache.hadoop.io.IntWritable;
import org.apache.hadoop.mapred.Counters;
import org.apache.hadoop.mapred.IFile;
import org.apache.hadoop.mapred.IndexRecord;
import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapred.MROutputFiles;
import org.apache.hadoop.mapred.MapOutputFile;
import org.apache.hadoop.mapred.RawKeyValueIterator;
import org.apache.hadoop.mapred.ShuffleContexts;
import org.apache.hadoop.mapred.SpillRecord;
import org.apache.hadoop.mapreduce.TaskAttemptID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** HamShuffle on real map output files: several fetchers, one merge, and a failure that stops. */
class HamShuffleTest {
  @Test
  void everyMapGoesToExactlyOneFetcherInTurn() {
    Map<TaskAttemptID, Integer> maps = new LinkedHashMap<>();
    for (int i = 0; i < 12; i++) {
      maps.put(TaskAttemptID.forName(String.format("attempt_1_0001_m_%06d_0", i)), i);
    }
    List<Map<TaskAttemptID, Integer>> shares = HamShuffle.shares(maps, 5);
    assertEquals(5, shares.size());
    assertEquals(List.of(0, 5, 10), List.copyOf(shares.get(0).values()));
    assertEquals(List.of(4, 9), List.copyOf(shares.get(4).values()));
    List<Integer> all = new ArrayList<>();
    shares.forEach(s -> all.addAll(s.values()));
    all.sort(null);
    assertEquals(List.copyOf(maps.values()), all);
    assertEquals(List.of(Map.of()), HamShuffle.shares(Map.of(), 1), "no maps: one idle fetcher");
  }

  /** A job of {@code maps} one-partition map outputs under {@code dir}; records in all. */
  private static long writeMaps(JobConf conf, Path dir, int maps,
      Map<org.apache.hadoop.mapred.TaskAttemptID, MapOutputFile> files) throws Exception {
    Random r = new Random(1);
    FileSystem fs = FileSystem.getLocal(conf).getRaw();
    long total = 0;
    for (int m = 0; m < maps; m++) {
      org.apache.hadoop.fs.Path out = new org.apache.hadoop.fs.Path(
          dir.resolve("m" + m + "/file.out").toString());
      int records = 500 + r.nextInt(2000);
      total += records;
      try (FSDataOutputStream os = fs.create(out)) {
        IFile.Writer<IntWritable, BytesWritable> w =
            new IFile.Writer<>(conf, os, IntWritable.class, BytesWritable.class, null, null);
        int key = 0;
        for (int i = 0; i < records; i++) {
          key += 1 + r.nextInt(3);
          w.append(new IntWritable(key), new BytesWritable(new byte[100]));
        }
        w.close();
        SpillRecord index = new SpillRecord(1);
        index.putIndex(new IndexRecord(0, w.getRawLength(), w.getCompressedLength()), 0);
        index.writeToFile(out.suffix(".index"), conf);
      }
      MROutputFiles f = new MROutputFiles() {
        @Override
        public org.apache.hadoop.fs.Path getOutputFile() {
          return out;
        }

        @Override
        public org.apache.hadoop.fs.Path getOutputIndexFile() {
          return out.suffix(".index");
        }
      };
      f.setConf(conf);
      files.put(org.apache.hadoop.mapred.TaskAttemptID.forName(
          String.format("attempt_1_0001_m_%06d_0", m)), f);
    }
    return total;
  }

  private static JobConf conf(Path tmp, int maps) {
    JobConf conf = new JobConf();
    conf.set("mapreduce.cluster.local.dir", tmp.resolve("local").toString());
    conf.setNumMapTasks(maps);
    conf.setNumReduceTasks(1);
    conf.setMapOutputKeyClass(IntWritable.class);
    conf.setMapOutputValueClass(BytesWritable.class);
    // A small shuffle buffer: in-memory merges, segments to disk and the merge manager's WAIT.
    conf.set("mapreduce.reduce.shuffle.input.buffer.percent", "0.02");
    return conf;
  }

  @Test
  void severalFetchersBringEveryRecordOnceInOrder(@TempDir Path tmp) throws Exception {
    JobConf conf = conf(tmp, 40);
    Map<org.apache.hadoop.mapred.TaskAttemptID, MapOutputFile> files = new LinkedHashMap<>();
    long total = writeMaps(conf, tmp.resolve("maps"), 40, files);
    Counters counters = new Counters();
    HamShuffle<IntWritable, BytesWritable> shuffle = new HamShuffle<>();
    shuffle.init(ShuffleContexts.of(conf, 40, files, counters));
    RawKeyValueIterator it = shuffle.run();
    long n = 0;
    int previous = -1;
    IntWritable key = new IntWritable();
    DataInputBuffer in = new DataInputBuffer();
    while (it.next()) {
      DataInputBuffer k = it.getKey();
      in.reset(k.getData(), k.getPosition(), k.getLength() - k.getPosition());
      key.readFields(in);
      assertTrue(key.get() >= previous, "sorted");
      previous = key.get();
      n++;
    }
    shuffle.close();
    assertEquals(total, n);
    assertEquals(40, counters.findCounter("t", "shuffledMaps").getValue());
  }

  @Test
  void aFailedShuffleLeavesNoFetcherRunning(@TempDir Path tmp) throws Exception {
    JobConf conf = conf(tmp, 20);
    Map<org.apache.hadoop.mapred.TaskAttemptID, MapOutputFile> files = new LinkedHashMap<>();
    writeMaps(conf, tmp.resolve("maps"), 20, files);
    try (RandomAccessFile f = new RandomAccessFile(tmp.resolve("maps/m3/file.out").toFile(),
        "rw")) {
      f.seek(2000);
      f.write(new byte[] {1, 2, 3, 4, 5, 6, 7, 8});  // an IFile checksum error in the shuffle
    }
    HamShuffle<IntWritable, BytesWritable> shuffle = new HamShuffle<>();
    shuffle.init(ShuffleContexts.of(conf, 20, files, new Counters()));
    Shuffle.ShuffleError e = assertThrows(Shuffle.ShuffleError.class, shuffle::run);
    assertTrue(e.getMessage().startsWith("error in shuffle in localfetcher#"), e.getMessage());
    // The runner serves the next task in this JVM: none of the shuffle's readers may go on.
    List<String> left = new ArrayList<>();
    for (Thread t : Thread.getAllStackTraces().keySet()) {
      if (t.isAlive() && (t.getName().startsWith("localfetcher#")
          || t.getName().startsWith("EventFetcher"))) {
        left.add(t.getName());
      }
    }
    assertEquals(List.of(), left);
  }

  /**
   * The reduce's check reads every map's index before the shuffle: the fetchers take the
   * record it kept and read the data files alone (here the indexes are gone by then).
   */
  @Test
  void theFetchersTakeTheIndexRecordsTheCheckRead(@TempDir Path tmp) throws Exception {
    JobConf conf = conf(tmp, 12);
    Map<org.apache.hadoop.mapred.TaskAttemptID, MapOutputFile> written = new LinkedHashMap<>();
    long total = writeMaps(conf, tmp.resolve("maps"), 12, written);
    Map<org.apache.hadoop.mapred.TaskAttemptID, MapOutputFile> files = new LinkedHashMap<>();
    written.forEach((id, f) -> {
      try {
        files.put(id, new SharedMapOutputFile(f.getOutputFile().getParent(), conf));
      } catch (java.io.IOException e) {
        throw new AssertionError(e);
      }
    });
    assertEquals(Map.of(), MapOutputCheck.quick(files, 0, conf, null));
    for (MapOutputFile f : files.values()) {
      assertTrue(new java.io.File(f.getOutputIndexFile().toUri().getPath()).delete());
      assertEquals(null, ((SharedMapOutputFile) f).keptIndex(1), "another partition's");
    }
    Counters counters = new Counters();
    HamShuffle<IntWritable, BytesWritable> shuffle = new HamShuffle<>();
    shuffle.init(ShuffleContexts.of(conf, 12, files, counters));
    RawKeyValueIterator it = shuffle.run();
    long n = 0;
    while (it.next()) {
      n++;
    }
    shuffle.close();
    assertEquals(total, n);
  }
}
