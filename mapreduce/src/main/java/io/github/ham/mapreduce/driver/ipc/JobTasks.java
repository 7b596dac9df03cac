package io.github.ham.mapreduce.driver.ipc;

import java.io.IOException;
import java.util.StringJoiner;

import io.github.ham.mapreduce.common.ids.AttemptKey;
import io.github.ham.mapreduce.common.protocol.WrittenJvmTask;
import io.github.ham.mapreduce.driver.schedule.AttemptIds;

import org.apache.hadoop.mapred.HamBridge;
import org.apache.hadoop.mapred.JvmTask;
import org.apache.hadoop.mapred.Task;
import org.apache.hadoop.mapreduce.split.JobSplit.TaskSplitIndex;
import org.apache.hadoop.mapreduce.split.JobSplit.TaskSplitMetaInfo;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Builds the MapTask or ReduceTask a runner gets for an attempt of the job; map tasks from the
 * job's template when Hadoop's layout allows ({@link MapTaskBytes}).
 */
public final class JobTasks {
  private static final Logger LOG = LoggerFactory.getLogger(JobTasks.class);
  private final String jobFile;
  private final TaskSplitMetaInfo[] splits;
  private final String user;
  private final AttemptIds ids;
  /** The map tasks' template; null: each map task is made and written by Hadoop. */
  private final MapTaskBytes maps;

  public JobTasks(String jobFile, TaskSplitMetaInfo[] splits, String user, AttemptIds ids) {
    this.jobFile = jobFile;
    this.splits = splits;
    this.user = user;
    this.ids = ids;
    MapTaskBytes t = null;
    if (splits.length > 0) {
      try {
        t = MapTaskBytes.of(this::mapTask, splits[0].getSplitIndex().getSplitLocation());
        if (t == null) {
          LOG.info("Map tasks made one by one: this Hadoop writes them in another layout");
        }
      } catch (IOException | RuntimeException e) {
        LOG.info("Map tasks made one by one: no template ({})", e.toString());
      }
    }
    this.maps = t;
  }

  /** What a runner gets for {@code key}; see {@link #task}. */
  JvmTask jvmTask(AttemptKey key, AttemptKey[] succeededMaps) {
    if (key.isMap() && maps != null) {
      byte[] bytes = maps.bytes(key, splits[key.task().index()].getSplitIndex());
      if (bytes != null) {
        return new WrittenJvmTask(bytes);
      }
    }
    return new JvmTask(task(key, succeededMaps), false);
  }

  private Task mapTask(AttemptKey key, TaskSplitIndex split) {
    return HamBridge.newMapTask(jobFile, ids.attempt(key), key.task().index(), split, user);
  }

  /**
   * The task of {@code key}; a reduce is given the successful attempt of every map
   * ({@code succeededMaps}, in map order), whose output it reads from the shared file system.
   */
  private Task task(AttemptKey key, AttemptKey[] succeededMaps) {
    int index = key.task().index();
    if (key.isMap()) {
      return mapTask(key, splits[index].getSplitIndex());
    }
    StringJoiner maps = new StringJoiner(",");
    for (AttemptKey m : succeededMaps) {
      if (m != null) {  // a map that failed within mapreduce.map.failures.maxpercent
        maps.add(ids.attemptName(m));
      }
    }
    return HamBridge.newReduceTask(jobFile, ids.attempt(key), index, splits.length, user,
        maps.toString());
  }
}
