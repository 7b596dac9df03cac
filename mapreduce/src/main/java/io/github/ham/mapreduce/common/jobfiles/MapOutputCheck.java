package io.github.ham.mapreduce.common.jobfiles;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.util.LinkedHashMap;
import java.util.Map;

import io.github.ham.mapreduce.common.HamLocalFileSystem;

import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.mapred.IFileInputStream;
import org.apache.hadoop.mapred.IndexRecord;
import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapred.MapOutputFile;
import org.apache.hadoop.mapred.SpillRecord;
import org.apache.hadoop.mapred.TaskAttemptID;
import org.apache.hadoop.mapreduce.CryptoUtils;

/**
 * Checks the map outputs a reduce reads, to name the maps whose output is bad: in a runner
 * before and after a reduce, and in a resumed driver for the maps it keeps from earlier runs.
 * {@link #quick} (before the reduce starts, cheap: one index read and one stat per map) finds
 * missing files, damaged indexes (their CRC is checked) and truncated data files;
 * {@link #full} (after a reduce failed) also reads the reduce's segment of every map and checks
 * its IFile checksum, to find the map behind a checksum or EOF error in the shuffle.
 */
public final class MapOutputCheck {
  private MapOutputCheck() {
  }

  /**
   * Map attempt id to what is wrong, for the maps whose output fails the quick check.
   * {@code alive} runs about every 2 s (the runner pings the driver: thousands of maps on a
   * busy file system may take longer than the heartbeat timeout).
   */
  public static Map<String, String> quick(Map<TaskAttemptID, MapOutputFile> files, int partition,
      JobConf conf, Runnable alive) {
    return check(files, partition, conf, false, alive);
  }

  /** As {@link #quick}, and the reduce's segment of each map is read and its checksum checked. */
  public static Map<String, String> full(Map<TaskAttemptID, MapOutputFile> files, int partition,
      JobConf conf, Runnable alive) {
    return check(files, partition, conf, !CryptoUtils.isEncryptedSpillEnabled(conf), alive);
  }

  private static Map<String, String> check(Map<TaskAttemptID, MapOutputFile> files,
      int partition, JobConf conf, boolean readSegments, Runnable alive) {
    Map<String, String> bad = new LinkedHashMap<>();
    long last = System.nanoTime();
    for (Map.Entry<TaskAttemptID, MapOutputFile> e : files.entrySet()) {
      if (alive != null && System.nanoTime() - last > 2_000_000_000L) {
        alive.run();
        last = System.nanoTime();
      }
      try {
        checkOne(e.getValue(), partition, conf, readSegments);
      } catch (IOException | RuntimeException ex) {
        bad.put(e.getKey().toString(), ex.toString());
      }
    }
    return bad;
  }

  /**
   * Whether a map's output ({@code file.out} and its index in {@code dir}) is whole: the
   * index's CRC, one segment per reduce, and a data file long enough for every segment.
   */
  public static boolean intact(File dir, int reduces, JobConf conf) {
    try {
      checkOne(new Path(new File(dir, HamLocalFileSystem.MAP_OUTPUT).getPath()), reduces - 1,
          conf, false);
      return true;
    } catch (IOException | RuntimeException e) {
      return false;
    }
  }

  private static void checkOne(MapOutputFile file, int partition, JobConf conf,
      boolean readSegment) throws IOException {
    checkOne(file.getOutputFile(), partition, conf, readSegment);
  }

  private static void checkOne(Path data, int partition, JobConf conf, boolean readSegment)
      throws IOException {
    FileSystem fs = FileSystem.getLocal(conf).getRaw();
    Path index = data.suffix(".index");
    SpillRecord spills = new SpillRecord(index, conf);
    if (partition < 0 || partition >= spills.size()) {
      throw new IOException("index " + index + " has " + spills.size()
          + " partitions, no partition " + partition);
    }
    long end = 0;
    for (int i = 0; i < spills.size(); i++) {
      IndexRecord r = spills.getIndex(i);
      if (r.startOffset < 0 || r.partLength < 0 || r.rawLength < 0) {
        throw new IOException("index " + index + " has a negative offset or length");
      }
      end = Math.max(end, r.startOffset + r.partLength);
    }
    long length = fs.getFileStatus(data).getLen();
    if (length < end) {
      throw new IOException(data + " is truncated: " + length + " bytes, the index needs "
          + end);
    }
    if (!readSegment) {
      return;
    }
    IndexRecord r = spills.getIndex(partition);
    try (FSDataInputStream in = fs.open(data)) {
      in.seek(r.startOffset);
      InputStream segment = new IFileInputStream(in, r.partLength, conf);
      byte[] buf = new byte[64 * 1024];
      while (segment.read(buf, 0, buf.length) >= 0) {
        // Reading to the end checks the segment's checksum.
      }
    }
  }
}
