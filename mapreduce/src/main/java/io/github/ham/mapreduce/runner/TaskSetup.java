package io.github.ham.mapreduce.runner;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.util.LinkedHashMap;
import java.util.Map;

import io.github.ham.mapreduce.common.HamConfig;
import io.github.ham.mapreduce.common.HamLocalFileSystem;
import io.github.ham.mapreduce.common.jobfiles.JobDirs;
import io.github.ham.mapreduce.common.jobfiles.JobResources;

import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.FileUtil;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.mapred.HamBridge;
import org.apache.hadoop.mapred.HamMapOutputBuffer;
import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapred.MapOutputFile;
import org.apache.hadoop.mapred.MapTask;
import org.apache.hadoop.mapred.ReduceTask;
import org.apache.hadoop.mapred.Task;
import org.apache.hadoop.mapred.TaskAttemptID;
import org.apache.hadoop.mapreduce.MRConfig;
import org.apache.hadoop.mapreduce.MRJobConfig;
import org.apache.hadoop.mapreduce.TaskType;
import org.apache.hadoop.mapreduce.security.token.JobTokenIdentifier;
import org.apache.hadoop.mapreduce.security.token.JobTokenSecretManager;
import org.apache.hadoop.mapreduce.task.reduce.HamShuffle;
import org.apache.hadoop.mapreduce.task.reduce.Shuffle;
import org.apache.hadoop.security.Credentials;
import org.apache.hadoop.security.token.Token;
import org.apache.hadoop.util.StringUtils;
import org.apache.hadoop.yarn.util.ResourceCalculatorProcessTree;

/**
 * A task's configuration and working directory in a runner, as YarnChild builds them for a
 * container: credentials, where its map output goes, its distributed cache, the map outputs a
 * reduce reads from the shared file system, and its job.xml. Pure setup, no task run.
 */
final class TaskSetup {
  private static final String FS_FILE_IMPL = "fs.file.impl";
  private static final String HADOOP_COLLECTOR = MapTask.MapOutputBuffer.class.getName();
  private static final String HADOOP_SHUFFLE = Shuffle.class.getName();
  /** Whether the kernel lists a process's children, as RunnerProcessTree reads them. */
  private static final boolean CHILDREN_LISTED = RunnerProcessTree.available();

  private TaskSetup() {
  }

  /** The task's configuration, as YarnChild.configureTask builds it for a container. */
  static Map<TaskAttemptID, MapOutputFile> configure(JobConf job, Task task, RunnerJob shared,
      JobDirs dirs, File workDir, Credentials credentials, Token<JobTokenIdentifier> token)
      throws IOException {
    JobResources resources = shared.resources();
    String attempt = task.getTaskID().toString();
    job.setCredentials(credentials);
    job.setBoolean("ipc.client.tcpnodelay", true);
    // The job's run, as YarnChild sets it from the container (run r numbers its attempts from
    // (r - 1) x 1000): the committer's task paths must agree with the driver's commitJob.
    job.setInt(MRJobConfig.APPLICATION_ATTEMPT_ID, task.getTaskID().getId() / 1000 + 1);
    job.setClass(MRConfig.TASK_LOCAL_OUTPUT_CLASS, SharedMapOutputFile.class,
        MapOutputFile.class);
    if (task.isMapTask()) {
      reuseSortBuffer(job);
    } else {
      parallelShuffle(job);
    }
    if (CHILDREN_LISTED) {
      processTree(job);
    }
    if (job.getTrimmed(FS_FILE_IMPL, "").isEmpty()) {
      // Hadoop's local file system without a chmod process per created file.
      job.setClass(FS_FILE_IMPL, HamLocalFileSystem.class, FileSystem.class);
    }
    if (task.isMapTask()
        && HamLocalFileSystem.class.getName().equals(job.getTrimmed(FS_FILE_IMPL))) {
      shared.keepSplitFile(HamBridge.splitFileOf(task));  // HAM's file system reads it kept
    }
    File output = dirs.attemptOutput(attempt);
    Files.createDirectories(output.toPath());
    job.set(HamConfig.TASK_OUTPUT_DIR, output.getAbsolutePath());
    job.set(MRConfig.LOCAL_DIR, new File(output, "local").getAbsolutePath());
    job.set(MRJobConfig.JOB_LOCAL_DIR, workDir.getAbsolutePath());
    if (HamBridge.userOf(task) != null) {
      job.setUser(HamBridge.userOf(task));
    }
    task.setJobTokenSecret(JobTokenSecretManager.createSecretKey(token.getPassword()));
    task.setShuffleSecret(JobTokenSecretManager.createSecretKey(token.getPassword()));
    task.localizeConfiguration(job);
    resources.link(workDir);
    resources.setLocalCachePaths(job, workDir);
    Map<TaskAttemptID, MapOutputFile> mapFiles = null;
    if (task instanceof ReduceTask) {
      mapFiles = mapFiles(HamBridge.mapAttemptsOf(task), job, dirs);
      ((ReduceTask) task).setLocalMapFiles(shuffleIndexed(mapFiles));
      // The shuffle waits for mapreduce.job.maps outputs: only those that exist (maps failed
      // within mapreduce.map.failures.maxpercent have none), as YARN reduces skip failed maps.
      job.setNumMapTasks(mapFiles.size());
    }
    // The task's job.xml in its working directory, as YarnChild writes it (with the job's
    // writer: Configuration.writeXml cost more CPU than the rest of a no-op map task).
    File localJobFile = new File(workDir, MRJobConfig.JOB_CONF_FILE);
    shared.jobXmlWriter().write(job, localJobFile);
    task.setJobFile(localJobFile.getAbsolutePath());
    task.setConf(job);
    return mapFiles;
  }

  /**
   * Empties the runner's working directory for the next attempt, as a new container's is, but
   * for the previous attempt's job.xml, which {@link #configure} overwrites: deleting and
   * creating that file again cost a new inode every task (the file system's most expensive
   * operation in a runner's profile of many short maps). What cannot be deleted stays, as
   * FileUtil.fullyDeleteContents leaves it.
   */
  static void clearWorkDir(File workDir) {
    File[] entries = workDir.listFiles();
    for (File f : entries == null ? new File[0] : entries) {
      if (!(f.getName().equals(MRJobConfig.JOB_CONF_FILE)
          && Files.isRegularFile(f.toPath(), LinkOption.NOFOLLOW_LINKS))) {
        FileUtil.fullyDelete(f);
      }
    }
  }

  /**
   * Hadoop's shuffle reading the map outputs with several fetchers (HamShuffle), unless the
   * job names a shuffle other than Hadoop's (mapreduce.job.reduce.shuffle.consumer.plugin.class).
   */
  static void parallelShuffle(JobConf job) {
    if (HADOOP_SHUFFLE.equals(job.getTrimmed(MRConfig.SHUFFLE_CONSUMER_PLUGIN, HADOOP_SHUFFLE))) {
      job.set(MRConfig.SHUFFLE_CONSUMER_PLUGIN, HamShuffle.class.getName());
    }
  }

  /**
   * Hadoop's map output collector, keeping its sort buffer for the runner's next map, unless
   * the job names another collector or turns this off (ham.runner.reuse.sort.buffer).
   */
  static void reuseSortBuffer(JobConf job) {
    if (job.getBoolean(HamConfig.REUSE_SORT_BUFFER, HamConfig.DEFAULT_REUSE_SORT_BUFFER)
        && HADOOP_COLLECTOR.equals(job.getTrimmed(MRJobConfig.MAP_OUTPUT_COLLECTOR_CLASS_ATTR,
            HADOOP_COLLECTOR))) {
      job.set(MRJobConfig.MAP_OUTPUT_COLLECTOR_CLASS_ATTR, HamMapOutputBuffer.class.getName());
    }
  }

  /**
   * The task's CPU and memory counters from the runner's own process tree
   * ({@link RunnerProcessTree}), without reading every process of the node twice a task,
   * unless the job names its own mapreduce.job.process-tree.class.
   */
  static void processTree(JobConf job) {
    if (job.getTrimmed(MRConfig.RESOURCE_CALCULATOR_PROCESS_TREE, "").isEmpty()) {
      job.setClass(MRConfig.RESOURCE_CALCULATOR_PROCESS_TREE, RunnerProcessTree.class,
          ResourceCalculatorProcessTree.class);
    }
  }

  /**
   * The map outputs as the shuffle can take them: it marks map i done in an array of
   * mapreduce.job.maps entries, so with maps failed within maxpercent (fewer outputs than
   * maps) each output goes under map index 0..n-1 in map order (the reduce's log then names
   * those ids); with every map's output, the attempts' own ids.
   */
  static Map<TaskAttemptID, MapOutputFile> shuffleIndexed(Map<TaskAttemptID, MapOutputFile> files) {
    if (files.keySet().stream().allMatch(a -> a.getTaskID().getId() < files.size())) {
      return files;
    }
    Map<TaskAttemptID, MapOutputFile> dense = new LinkedHashMap<>();
    int i = 0;
    for (Map.Entry<TaskAttemptID, MapOutputFile> e : files.entrySet()) {
      TaskAttemptID a = e.getKey();
      dense.put(new TaskAttemptID(a.getJobID().getJtIdentifier(), a.getJobID().getId(),
          TaskType.MAP, i++, a.getId()), e.getValue());
    }
    return dense;
  }

  private static Map<TaskAttemptID, MapOutputFile> mapFiles(String attempts, JobConf job,
      JobDirs dirs) {
    Map<TaskAttemptID, MapOutputFile> files = new LinkedHashMap<>();
    for (String a : StringUtils.getTrimmedStrings(attempts)) {
      TaskAttemptID id = TaskAttemptID.forName(a);
      files.put(id, new SharedMapOutputFile(
          new Path(dirs.attemptOutput(a).getAbsolutePath()), job));
    }
    return files;
  }
}
