package io.github.ham.mapreduce.driver.ipc;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;

import io.github.ham.mapreduce.common.ids.AttemptKey;
import io.github.ham.mapreduce.common.ids.TaskKey;
import io.github.ham.mapreduce.common.protocol.WrittenJvmTask;
import io.github.ham.mapreduce.driver.schedule.AttemptIds;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.io.DataInputBuffer;
import org.apache.hadoop.io.DataOutputBuffer;
import org.apache.hadoop.io.ObjectWritable;
import org.apache.hadoop.mapred.HamBridge;
import org.apache.hadoop.mapred.JobID;
import org.apache.hadoop.mapred.JvmTask;
import org.apache.hadoop.mapred.MapTask;
import org.apache.hadoop.mapred.Task;
import org.apache.hadoop.mapreduce.split.JobSplit.TaskSplitIndex;
import org.junit.jupiter.api.Test;

class MapTaskBytesTest {
  private static final String SPLITS = "file:/lustre/u/job_1/job.split";
  private final AttemptIds ids = new AttemptIds(new JobID("1764123456789", 7));

  private Task hadoops(AttemptKey key, TaskSplitIndex split) {
    return HamBridge.newMapTask("file:/lustre/u/job_1/job.xml", ids.attempt(key),
        key.task().index(), split, "alice");
  }

  private static byte[] written(JvmTask t) throws Exception {
    DataOutputBuffer out = new DataOutputBuffer();
    t.write(out);
    return Arrays.copyOf(out.getData(), out.getLength());
  }

  @Test
  void theTemplateWritesWhatHadoopWrites() throws Exception {
    MapTaskBytes t = MapTaskBytes.of(this::hadoops, SPLITS);
    assertNotNull(t, "Hadoop's layout is the template's");
    for (int index : new int[] {0, 1, 255, 99_999, 1 << 20}) {
      for (int attempt : new int[] {0, 1, 1000}) {
        for (long offset : new long[] {0, 127, 128, 70_000, 1L << 33}) {
          AttemptKey key = new AttemptKey(new TaskKey(true, index), attempt);
          TaskSplitIndex split = new TaskSplitIndex(SPLITS, offset);
          assertArrayEquals(written(new JvmTask(hadoops(key, split), false)),
              t.bytes(key, split), key + " at " + offset);
        }
      }
    }
  }

  @Test
  void aRunnerReadsTheTaskThroughTheUmbilicalsEncoding() throws Exception {
    MapTaskBytes t = MapTaskBytes.of(this::hadoops, SPLITS);
    AttemptKey key = new AttemptKey(new TaskKey(true, 42), 3);
    DataOutputBuffer out = new DataOutputBuffer();
    Configuration conf = new Configuration(false);
    ObjectWritable.writeObject(out, new WrittenJvmTask(t.bytes(key,
        new TaskSplitIndex(SPLITS, 4096))), JvmTask.class, conf);
    DataInputBuffer in = new DataInputBuffer();
    in.reset(out.getData(), out.getLength());
    JvmTask got = (JvmTask) ObjectWritable.readObject(in, conf);
    MapTask task = assertInstanceOf(MapTask.class, got.getTask());
    assertEquals(ids.attempt(key), task.getTaskID());
    assertEquals(42, task.getPartition());
    assertEquals("file:/lustre/u/job_1/job.xml", task.getJobFile());
    assertTrue(!got.shouldDie());
    // All of it (user, split, status) as Hadoop's own task: written again, the same bytes.
    assertArrayEquals(written(new JvmTask(hadoops(key, new TaskSplitIndex(SPLITS, 4096)),
        false)), written(got));
  }

  @Test
  void aSplitInAnotherFileIsNotTheTemplates() throws Exception {
    MapTaskBytes t = MapTaskBytes.of(this::hadoops, SPLITS);
    assertNull(t.bytes(new AttemptKey(new TaskKey(true, 1), 0),
        new TaskSplitIndex("file:/elsewhere/job.split", 0)));
  }

  @Test
  void tasksThatDifferElsewhereGetNoTemplate() throws Exception {
    // A maker whose tasks differ in more than the template knows (the user, by index): as a
    // Hadoop with another layout would look, the check refuses the template.
    assertNull(MapTaskBytes.of((key, split) -> HamBridge.newMapTask("job.xml",
        ids.attempt(key), key.task().index(), split, "u" + key.task().index()), SPLITS));
  }
}
