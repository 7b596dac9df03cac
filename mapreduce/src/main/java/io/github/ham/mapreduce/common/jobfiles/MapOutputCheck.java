package io.github.ham.mapreduce.common.jobfiles;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

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
import org.apache.hadoop.mapreduce.task.reduce.HamShuffle;

/**
 * Checks the map outputs a reduce reads, to name the maps whose output is bad: in a runner
 * before and after a reduce, and in a resumed driver for the maps it keeps from earlier runs.
 * {@link #quick} (before the reduce starts, cheap: one index read and one stat per map) finds
 * missing files, damaged indexes (their CRC is checked) and truncated data files;
 * {@link #full} (after a reduce failed) also reads the reduce's segment of every map and checks
 * its IFile checksum, to find the map behind a checksum or EOF error in the shuffle.
 */
public final class MapOutputCheck {
  /** How often a long check tells the driver the attempt is alive. */
  private static final long PING_NANOS = TimeUnit.SECONDS.toNanos(2);

  private MapOutputCheck() {
  }

  /**
   * Map attempt id to what is wrong, for the maps whose output fails the quick check.
   * {@code alive} runs about every 2 s (the runner pings the driver: thousands of maps on a
   * busy file system may take longer than the heartbeat timeout).
   */
  public static Map<String, String> quick(Map<TaskAttemptID, MapOutputFile> files, int partition,
      JobConf conf, Runnable alive) throws IOException {
    return check(files, partition, conf, false, alive);
  }

  /** As {@link #quick}, and the reduce's segment of each map is read and its checksum checked. */
  public static Map<String, String> full(Map<TaskAttemptID, MapOutputFile> files, int partition,
      JobConf conf, Runnable alive) throws IOException {
    return check(files, partition, conf, !CryptoUtils.isEncryptedSpillEnabled(conf), alive);
  }

  /**
   * Checks the maps' outputs as many at once as the reduce's shuffle fetches
   * (mapreduce.reduce.shuffle.parallelcopies): on a shared file system each check is a few
   * round trips to its servers (an open and a read of the index, a stat of the data), which
   * one after the other made a reduce over 300 maps wait 7 s on the test cluster's GlusterFS.
   */
  private static Map<String, String> check(Map<TaskAttemptID, MapOutputFile> files,
      int partition, JobConf conf, boolean readSegments, Runnable alive) throws IOException {
    int threads = HamShuffle.readers(conf, files.size());
    AtomicInteger made = new AtomicInteger();
    ExecutorService pool = Executors.newFixedThreadPool(threads, r -> {
      Thread t = new Thread(r, "ham-map-output-check-" + made.incrementAndGet());
      t.setDaemon(true);
      return t;
    });
    try {
      Map<String, Future<String>> results = new LinkedHashMap<>();
      for (Map.Entry<TaskAttemptID, MapOutputFile> e : files.entrySet()) {
        results.put(e.getKey().toString(), pool.submit(() -> {
          try {
            checkOne(e.getValue(), partition, conf, readSegments);
            return null;
          } catch (IOException | RuntimeException ex) {
            return ex.toString();
          }
        }));
      }
      return awaitAll(results, alive, PING_NANOS);
    } finally {
      pool.shutdownNow();
    }
  }

  /**
   * The answers that are not null, in {@code results}' order, running {@code alive} whenever
   * {@code pingNanos} passed since it last ran (however short each check is: one wait per
   * check would never reach it while the whole takes minutes).
   */
  static Map<String, String> awaitAll(Map<String, Future<String>> results, Runnable alive,
      long pingNanos) throws IOException {
    Map<String, String> bad = new LinkedHashMap<>();
    long last = System.nanoTime();
    for (Map.Entry<String, Future<String>> r : results.entrySet()) {
      while (true) {
        long now = System.nanoTime();
        if (now - last >= pingNanos) {
          if (alive != null) {
            alive.run();
          }
          last = now;
        }
        try {
          String why = r.getValue().get(Math.max(1, pingNanos - (now - last)),
              TimeUnit.NANOSECONDS);
          if (why != null) {
            bad.put(r.getKey(), why);
          }
          break;
        } catch (TimeoutException e) {
          // ping, then wait again
        } catch (ExecutionException e) {
          if (e.getCause() instanceof Error err) {
            throw err;  // the reduce's JVM, not the map's output (OutOfMemoryError, linkage)
          }
          bad.put(r.getKey(), e.getCause().toString());
          break;
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new InterruptedIOException("interrupted while checking the map outputs");
        }
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
      checkFiles(new Path(new File(dir, HamLocalFileSystem.MAP_OUTPUT).getPath()),
          new Path(new File(dir, HamLocalFileSystem.MAP_OUTPUT_INDEX).getPath()), reduces - 1,
          conf, false);
      return true;
    } catch (IOException | RuntimeException e) {
      return false;
    }
  }

  /** Checks one map's output; one that can keep the reduce's index record keeps it. */
  private static void checkOne(MapOutputFile file, int partition, JobConf conf,
      boolean readSegment) throws IOException {
    IndexRecord record = checkFiles(file.getOutputFile(), file.getOutputIndexFile(), partition,
        conf, readSegment);
    if (file instanceof KeptIndex k) {
      k.keepIndex(partition, record);
    }
  }

  /** Checks one map's output and gives the index's record of {@code partition}. */
  private static IndexRecord checkFiles(Path data, Path index, int partition, JobConf conf,
      boolean readSegment) throws IOException {
    FileSystem fs = FileSystem.getLocal(conf).getRaw();
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
    IndexRecord r = spills.getIndex(partition);
    if (!readSegment) {
      return r;
    }
    try (FSDataInputStream in = fs.open(data)) {
      in.seek(r.startOffset);
      InputStream segment = new IFileInputStream(in, r.partLength, conf);
      byte[] buf = new byte[64 * 1024];
      while (segment.read(buf, 0, buf.length) >= 0) {
        // Reading to the end checks the segment's checksum.
      }
    }
    return r;
  }
}
