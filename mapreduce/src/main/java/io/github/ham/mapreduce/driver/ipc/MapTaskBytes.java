package io.github.ham.mapreduce.driver.ipc;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.BiFunction;

import io.github.ham.mapreduce.common.ids.AttemptKey;
import io.github.ham.mapreduce.common.ids.TaskKey;

import org.apache.hadoop.io.DataOutputBuffer;
import org.apache.hadoop.io.WritableUtils;
import org.apache.hadoop.mapred.JvmTask;
import org.apache.hadoop.mapred.Task;
import org.apache.hadoop.mapreduce.split.JobSplit.TaskSplitIndex;

/**
 * A job's map tasks as the umbilical carries them (a JvmTask holding a MapTask), made from one
 * template instead of a MapTask per attempt. Making a MapTask only to write it was the
 * largest cost of the driver's IPC handlers per dispatch (a fifth of their time at 100,000
 * maps): Task's constructor asks the JVM for its garbage collectors' MXBeans and makes a
 * TaskStatus with its counters, and the task is then written field by field. A job's map
 * tasks differ only in their attempt's task index and number, the partition (the index) and
 * the split's offset, the last field written; the template finds where the first three are
 * by writing marker values, and is used only if it makes exactly the bytes Hadoop writes for
 * other attempts: with a Hadoop whose layout differs, every task is made by Hadoop as before.
 */
final class MapTaskBytes {
  private static final int INDEX = 0x7A5B3C1D;
  private static final int ATTEMPT = 0x6B4C2D1E;
  private static final long OFFSET = 0x5C3D1E0F2A4B6C7DL;

  private final String splitFile;
  /** A marker task's bytes without its split offset (a vlong at the very end). */
  private final byte[] head;
  private final int[] indexAt;
  private final int[] attemptAt;

  private MapTaskBytes(String splitFile, byte[] head, int[] indexAt, int[] attemptAt) {
    this.splitFile = splitFile;
    this.head = head;
    this.indexAt = indexAt;
    this.attemptAt = attemptAt;
  }

  /**
   * The template of the tasks {@code make} makes (reading splits from {@code splitFile}), or
   * null if it does not make Hadoop's bytes for them.
   */
  static MapTaskBytes of(BiFunction<AttemptKey, TaskSplitIndex, Task> make, String splitFile)
      throws IOException {
    byte[] marked = written(make.apply(key(INDEX, ATTEMPT), new TaskSplitIndex(splitFile,
        OFFSET)));
    int tail = WritableUtils.getVIntSize(OFFSET);
    byte[] head = Arrays.copyOf(marked, marked.length - tail);
    MapTaskBytes t = new MapTaskBytes(splitFile, head, find(head, INDEX), find(head, ATTEMPT));
    for (long offset : new long[] {0, 7, 1L << 40}) {
      AttemptKey key = key(1234, 1001);
      TaskSplitIndex split = new TaskSplitIndex(splitFile, offset);
      if (!Arrays.equals(written(make.apply(key, split)), t.bytes(key, split))) {
        return null;
      }
    }
    return t;
  }

  /** The bytes of {@code key}'s task, or null if its split is not in the template's file. */
  byte[] bytes(AttemptKey key, TaskSplitIndex split) {
    if (!splitFile.equals(split.getSplitLocation())) {
      return null;
    }
    long offset = split.getStartOffset();
    byte[] out = Arrays.copyOf(head, head.length + WritableUtils.getVIntSize(offset));
    for (int at : indexAt) {
      putInt(out, at, key.task().index());
    }
    for (int at : attemptAt) {
      putInt(out, at, key.attempt());
    }
    // WritableUtils.writeVLong's encoding, into the array's end.
    DataOutputBuffer vlong = new DataOutputBuffer(9);
    try {
      WritableUtils.writeVLong(vlong, offset);
    } catch (IOException e) {
      throw new IllegalStateException(e);  // a buffer in memory
    }
    System.arraycopy(vlong.getData(), 0, out, head.length, vlong.getLength());
    return out;
  }

  private static AttemptKey key(int index, int attempt) {
    return new AttemptKey(new TaskKey(true, index), attempt);
  }

  private static byte[] written(Task task) throws IOException {
    DataOutputBuffer out = new DataOutputBuffer();
    new JvmTask(task, false).write(out);
    return Arrays.copyOf(out.getData(), out.getLength());
  }

  /** Where the big-endian {@code value} (as DataOutput.writeInt writes it) is in {@code b}. */
  private static int[] find(byte[] b, int value) {
    List<Integer> found = new ArrayList<>();
    for (int i = 0; i + 4 <= b.length; i++) {
      if (getInt(b, i) == value) {
        found.add(i);
      }
    }
    return found.stream().mapToInt(Integer::intValue).toArray();
  }

  private static int getInt(byte[] b, int at) {
    return (b[at] & 0xff) << 24 | (b[at + 1] & 0xff) << 16 | (b[at + 2] & 0xff) << 8
        | (b[at + 3] & 0xff);
  }

  private static void putInt(byte[] b, int at, int value) {
    b[at] = (byte) (value >>> 24);
    b[at + 1] = (byte) (value >>> 16);
    b[at + 2] = (byte) (value >>> 8);
    b[at + 3] = (byte) value;
  }
}
