package org.apache.hadoop.mapred;

import java.io.IOException;
import java.lang.reflect.Field;
import java.nio.charset.StandardCharsets;

import org.apache.hadoop.io.BytesWritable;
import org.apache.hadoop.mapreduce.split.JobSplit.TaskSplitIndex;

/**
 * HAM bridge: the few package-private Hadoop members the HAM runtime needs (Task.setUser,
 * Task extra data, JvmContext, the JobStatus setters). Everything else lives in
 * io.github.ham.mapreduce.
 */
public final class HamBridge {
  /** MapTask's split index, read by {@link #splitFileOf}; null if this Hadoop has none. */
  private static final Field SPLIT_META_INFO = splitMetaInfo();

  private HamBridge() {
  }

  public static MapTask newMapTask(String jobFile, TaskAttemptID id, int partition,
      TaskSplitIndex split, String user) {
    MapTask task = new MapTask(jobFile, id, partition, split, 1);
    task.setUser(user);
    return task;
  }

  /** A reduce task; {@code mapAttempts} lists the successful map attempts, in map order. */
  public static ReduceTask newReduceTask(String jobFile, TaskAttemptID id, int partition,
      int numMaps, String user, String mapAttempts) {
    ReduceTask task = new ReduceTask(jobFile, id, partition, numMaps, 1);
    task.setUser(user);
    task.setExtraData(new BytesWritable(mapAttempts.getBytes(StandardCharsets.UTF_8)));
    return task;
  }

  /** The successful map attempts a reduce task was given by the driver. */
  public static String mapAttemptsOf(Task task) {
    BytesWritable data = task.getExtraData();
    return new String(data.getBytes(), 0, data.getLength(), StandardCharsets.UTF_8);
  }

  /** Runner side: asks the driver for a task; {@code runnerId} identifies this runner. */
  public static JvmTask getTask(TaskUmbilicalProtocol umbilical, JobID jobId, long jvmNumber,
      String runnerId) throws IOException {
    return umbilical.getTask(new JvmContext(new JVMId(jobId, true, jvmNumber), runnerId));
  }

  /**
   * The split file a map task reads its split from (MapTask's private splitMetaInfo, which
   * has no getter), or null if it is not a map task or this Hadoop's MapTask has no such field.
   */
  public static String splitFileOf(Task task) {
    if (!(task instanceof MapTask) || SPLIT_META_INFO == null) {
      return null;
    }
    try {
      Object index = SPLIT_META_INFO.get(task);
      return index instanceof TaskSplitIndex split ? split.getSplitLocation() : null;
    } catch (IllegalAccessException e) {
      return null;
    }
  }

  private static Field splitMetaInfo() {
    try {
      Field f = MapTask.class.getDeclaredField("splitMetaInfo");
      f.setAccessible(true);
      return f;
    } catch (ReflectiveOperationException | RuntimeException e) {
      return null;
    }
  }

  public static String userOf(Task task) {
    return task.getUser();
  }

  /**
   * The attempt failed in a runner that goes on: its reporter thread ends at its next wake-up.
   * Left running, it would ping the driver about the ended attempt and exit the runner's JVM
   * on the "not found" answer (System.exit(66)), with whatever task the runner runs by then.
   */
  public static void endReporter(Task task) {
    task.setTaskDone();
  }

  /** Runs the task's cleanup (output committer abortTask) after a failure. */
  public static void taskCleanup(Task task, TaskUmbilicalProtocol umbilical)
      throws IOException {
    task.taskCleanup(umbilical);
  }

  /** A JobStatus with the fields the client prints. */
  public static JobStatus jobStatus(JobID id, float setup, float map, float reduce,
      float cleanup, int runState, String user, String name, String jobFile, long start,
      long finish, String failureInfo, String trackingUrl) {
    JobStatus status = new JobStatus(id, setup, map, reduce, cleanup, runState,
        JobPriority.NORMAL, user, name, jobFile, trackingUrl);
    status.setStartTime(start);
    if (finish > 0) {
      status.setFinishTime(finish);
    }
    if (failureInfo != null) {
      status.setFailureInfo(failureInfo);
    }
    return status;
  }
}
