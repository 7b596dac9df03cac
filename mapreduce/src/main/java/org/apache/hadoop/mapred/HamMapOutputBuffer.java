package org.apache.hadoop.mapred;

import java.io.IOException;
import java.lang.ref.SoftReference;
import java.lang.reflect.AccessibleObject;
import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.IntBuffer;
import java.util.concurrent.atomic.AtomicReference;

import org.apache.hadoop.mapreduce.MRJobConfig;
import org.apache.log4j.Level;
import org.apache.log4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hadoop's map output buffer whose sort buffer (mapreduce.task.io.sort.mb, 100 MB by default)
 * outlives its task: the runner JVM's next map takes it instead of allocating a new one, which
 * the JVM zeroes. Zeroing 100 MB was half of a no-op map's CPU in a runner (12 of 24 ms,
 * bench/results/runner-profile). Nothing the buffer holds is read before the collector writes
 * it (records, then their metadata; sorting and spills read only what was collected), so
 * leftovers of the previous task are never seen.
 * <p>Memory is as a YARN container's: the buffer is kept only through a soft reference
 * between tasks, which the JVM clears before it would run out of memory (a reduce's shuffle,
 * a next job's larger buffer), and during a task it is in use anyway. A buffer is handed on
 * only after its collector's flush returned (the spill thread has ended); a failed task's is
 * not. The runner names this class in mapreduce.job.map.output.collector.class when the job
 * names none (runner.TaskSetup; ham.runner.reuse.sort.buffer=false turns it off).
 */
public class HamMapOutputBuffer<K, V> extends MapTask.MapOutputBuffer<K, V> {
  private static final org.slf4j.Logger LOG = LoggerFactory.getLogger(HamMapOutputBuffer.class);
  /** Hadoop's NMETA x 4: the buffer's size is a multiple of one record's metadata. */
  private static final int METASIZE = 16;
  /** The sort buffer of the JVM's last map whose output was flushed. */
  private static final AtomicReference<SoftReference<byte[]>> SPARE = new AtomicReference<>();
  private static final Field KVMETA;
  private static final Field MAX_REC;
  private static final Field SOFT_LIMIT;
  /** Null when this Hadoop's MapOutputBuffer lacks a member used here: no reuse then. */
  private static final Method SET_EQUATOR;

  static {
    Field kvmeta = null;
    Field maxRec = null;
    Field softLimit = null;
    Method setEquator = null;
    try {
      Class<?> c = MapTask.MapOutputBuffer.class;
      kvmeta = c.getDeclaredField("kvmeta");
      maxRec = c.getDeclaredField("maxRec");
      softLimit = c.getDeclaredField("softLimit");
      setEquator = c.getDeclaredMethod("setEquator", int.class);
      for (AccessibleObject o : new AccessibleObject[] {
          kvmeta, maxRec, softLimit, setEquator}) {
        o.setAccessible(true);
      }
    } catch (ReflectiveOperationException | RuntimeException e) {
      LOG.warn("Map sort buffers are not reused: this Hadoop's MapOutputBuffer differs ({})",
          e.toString());
      setEquator = null;
    }
    KVMETA = kvmeta;
    MAX_REC = maxRec;
    SOFT_LIMIT = softLimit;
    SET_EQUATOR = setEquator;
  }

  private SoftReference<byte[]> mine;

  @Override
  public void init(MapOutputCollector.Context context)
      throws IOException, ClassNotFoundException {
    JobConf job = context.getJobConf();
    int sortmb = job.getInt(MRJobConfig.IO_SORT_MB, MRJobConfig.DEFAULT_IO_SORT_MB);
    float spillper = job.getFloat(MRJobConfig.MAP_SORT_SPILL_PERCENT, 0.8f);
    if (SET_EQUATOR == null || (sortmb & 0x7FF) != sortmb || sortmb <= 1 || spillper > 1.0f
        || spillper <= 0.0f) {
      // Hadoop's own errors for bad values; a buffer of 1 MB is not worth keeping; a Hadoop
      // whose buffer has other insides gets its own init (said once, at class set-up).
      super.init(context);
      return;
    }
    // Hadoop's init with a 1 MB buffer (its log lines about that buffer held back), then the
    // kept buffer in its place, set up as Hadoop's init sets up a new one.
    String configured = job.getRaw(MRJobConfig.IO_SORT_MB);
    Logger taskLog = Logger.getLogger(MapTask.class);
    Level level = taskLog.getLevel();
    job.setInt(MRJobConfig.IO_SORT_MB, 1);
    taskLog.setLevel(Level.WARN);
    try {
      super.init(context);
    } finally {
      taskLog.setLevel(level);
      if (configured == null) {
        job.unset(MRJobConfig.IO_SORT_MB);
      } else {
        job.set(MRJobConfig.IO_SORT_MB, configured);
      }
    }
    int size = (sortmb << 20) - (sortmb << 20) % METASIZE;
    SoftReference<byte[]> spare = SPARE.getAndSet(null);
    byte[] buffer = spare == null ? null : spare.get();
    boolean reused = buffer != null && buffer.length == size;
    if (!reused) {
      buffer = new byte[size];
    }
    mine = new SoftReference<>(buffer);
    try {
      kvbuffer = buffer;
      bufvoid = buffer.length;
      IntBuffer meta = ByteBuffer.wrap(buffer).order(ByteOrder.nativeOrder()).asIntBuffer();
      KVMETA.set(this, meta);
      SET_EQUATOR.invoke(this, 0);
      bufstart = bufend = bufindex = equator;
      kvstart = kvend = kvindex;
      int maxRec = meta.capacity() / (METASIZE / 4);
      int softLimit = (int) (buffer.length * spillper);
      MAX_REC.setInt(this, maxRec);
      SOFT_LIMIT.setInt(this, softLimit);
      bufferRemaining = softLimit;
      LOG.info("{}: {} ({})", MRJobConfig.IO_SORT_MB, sortmb,
          reused ? "the sort buffer of the runner's previous map" : "a new sort buffer");
      LOG.info("soft limit at {}; bufstart = {}; bufvoid = {}; kvstart = {}; length = {}",
          softLimit, bufstart, bufvoid, kvstart, maxRec);
    } catch (IllegalAccessException | InvocationTargetException e) {
      throw new IOException("Cannot set up the map output buffer", e);
    }
  }

  @Override
  public void flush() throws IOException, ClassNotFoundException, InterruptedException {
    super.flush();
    if (mine != null) {
      SPARE.set(mine);  // the spill thread has ended: the buffer is free for the next map
      mine = null;
    }
  }
}
