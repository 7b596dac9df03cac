package io.github.ham.mapreduce.client;

import java.io.File;
import java.io.IOException;

import io.github.ham.mapreduce.common.jobfiles.JobDirs;
import io.github.ham.mapreduce.history.JobHistoryLog;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.mapreduce.JobID;
import org.apache.hadoop.mapreduce.TaskAttemptID;
import org.apache.hadoop.mapreduce.TypeConverter;
import org.apache.hadoop.mapreduce.jobhistory.JobHistoryParser;
import org.apache.hadoop.mapreduce.jobhistory.JobHistoryParser.JobInfo;
import org.apache.hadoop.mapreduce.jobhistory.JobHistoryParser.TaskAttemptInfo;
import org.apache.hadoop.mapreduce.jobhistory.JobHistoryParser.TaskInfo;
import org.apache.hadoop.mapreduce.v2.LogParams;
import org.apache.hadoop.yarn.conf.YarnConfiguration;

/**
 * Where {@code mapred job -logs JOB ATTEMPT} finds an attempt's aggregated logs: the container
 * and node the job's published history names for it (as the JobHistoryServer answers the CLI
 * on YARN), in the job's session's app-logs/, which the session's configuration names as
 * yarn.nodemanager.remote-app-log-dir. Until the job has ended there are none; each refusal is
 * one line saying where the logs are.
 */
final class AggregatedLogParams {
  private AggregatedLogParams() {
  }

  static LogParams of(JobDirs dirs, JobID job, TaskAttemptID attempt, Configuration conf)
      throws IOException {
    String session = dirs.session().getName();
    if (attempt == null) {
      // On YARN: the ApplicationMaster's logs. HAM's driver logs to its session's driver.log.
      throw new IOException("The driver's log of " + job + " is not aggregated: run `ham logs "
          + session + " --driver`, or give an attempt id for that attempt's logs");
    }
    File[] published = JobHistoryLog.published(dirs);
    if (published.length == 0) {
      throw new IOException(job + " has not ended (its logs are aggregated when it ends): run `ham"
          + " logs " + session + " --attempt " + attempt + "`");
    }
    JobInfo info = new JobHistoryParser(FileSystem.getLocal(new Configuration(false)).getRaw(),
        new Path(published[0].getPath())).parse();
    TaskInfo task = info.getAllTasks().get(attempt.getTaskID());
    TaskAttemptInfo a = task == null ? null : task.getAllTaskAttempts().get(attempt);
    if (a == null || a.getContainerId() == null) {
      throw new IOException("No attempt " + attempt + " in the history of " + job);
    }
    // As YARNRunner does, which the log CLI relies on: YARN's defaults (the TFile format) for
    // every configuration of this JVM, the CLI's included.
    String configured = new YarnConfiguration(conf).getTrimmed(
        YarnConfiguration.NM_REMOTE_APP_LOG_DIR, "");
    File root = dirs.appLogs().getAbsoluteFile();
    if (configured.isEmpty()
        || !new File(new Path(configured).toUri().getPath()).getAbsoluteFile().equals(root)) {
      throw new IOException("The logs of " + job + " are in " + root + ": run `mapred job "
          + "-logs` with HADOOP_CONF_DIR=" + new File(root.getParentFile(), "conf") + ", or `ham "
          + "logs " + session + " --attempt " + attempt + "`");
    }
    return new LogParams(a.getContainerId().toString(),
        TypeConverter.toYarn(job).getAppId().toString(), a.getHostname() + ":" + a.getPort(),
        info.getUsername());
  }
}
