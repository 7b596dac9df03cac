package io.github.ham.mapreduce.driver;

import java.util.StringJoiner;

import io.github.ham.mapreduce.common.AttemptKey;

import org.apache.hadoop.mapred.HamBridge;
import org.apache.hadoop.mapred.Task;
import org.apache.hadoop.mapreduce.split.JobSplit.TaskSplitMetaInfo;

/** Builds the MapTask or ReduceTask a runner gets for an attempt of the job. */
final class JobTasks {
  private final String jobFile;
  private final TaskSplitMetaInfo[] splits;
  private final String user;
  private final AttemptIds ids;

  JobTasks(String jobFile, TaskSplitMetaInfo[] splits, String user, AttemptIds ids) {
    this.jobFile = jobFile;
    this.splits = splits;
    this.user = user;
    this.ids = ids;
  }

  /**
   * The task of {@code key}; a reduce is given the successful attempt of every map
   * ({@code succeededMaps}, in map order), whose output it reads from the shared file system.
   */
  Task task(AttemptKey key, AttemptKey[] succeededMaps) {
    int index = key.task().index();
    if (key.isMap()) {
      return HamBridge.newMapTask(jobFile, ids.attempt(key), index,
          splits[index].getSplitIndex(), user);
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
