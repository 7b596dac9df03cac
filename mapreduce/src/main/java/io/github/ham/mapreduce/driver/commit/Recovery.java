package io.github.ham.mapreduce.driver.commit;

import java.io.File;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

import io.github.ham.mapreduce.common.ids.AttemptKey;
import io.github.ham.mapreduce.common.jobfiles.JobDirs;
import io.github.ham.mapreduce.common.jobfiles.MapOutputCheck;
import io.github.ham.mapreduce.driver.schedule.AttemptIds;
import io.github.ham.mapreduce.history.HistoryFiles;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapreduce.JobStatus;
import org.apache.hadoop.mapreduce.Counters;
import org.apache.hadoop.mapreduce.CryptoUtils;
import org.apache.hadoop.mapreduce.TaskAttemptID;
import org.apache.hadoop.mapreduce.jobhistory.JobHistoryParser;
import org.apache.hadoop.mapreduce.jobhistory.JobHistoryParser.JobInfo;
import org.apache.hadoop.mapreduce.jobhistory.JobHistoryParser.TaskAttemptInfo;
import org.apache.hadoop.mapreduce.jobhistory.JobHistoryParser.TaskInfo;
import org.apache.hadoop.mapreduce.jobhistory.JobHistoryParser.AMInfo;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a resumed run takes over from the run before it, as the MRAppMaster's recovery does:
 * the tasks that run's history records as SUCCEEDED (a history cut short by a kill parses up
 * to the cut). A map of a job with reduces is kept if its output on the shared file system is
 * whole (HAM keeps map output there, not on a NodeManager's disk) and not encrypted with the
 * lost run's key; a reduce, or a map of a map-only job, if the committer recovers its
 * committed output. Everything else runs again.
 */
public final class Recovery {
  private static final Logger LOG = LoggerFactory.getLogger(Recovery.class);
  /** The user's console (and driver.log): what a resume takes over. */
  private static final Logger NOTICE = LoggerFactory.getLogger("ham");

  /** A task an earlier run finished (in the container that run's history names). */
  public record Done(AttemptKey attempt, TaskAttemptID id, String node, ContainerId container,
      long taskStart, long start, long finish, Counters counters) {
  }

  /** The earlier runs (as the history's AM attempts), their job's times, the tasks to keep. */
  public record Plan(List<AMInfo> runs, long submitTime, long launchTime, List<Done> done) {
    /** Nothing to take over (a first run, or an earlier run's commit decided the job). */
    public static final Plan NONE = new Plan(List.of(), 0, 0, List.of());
  }

  /** What a run takes over: the job's end if an earlier run's commit decided it, else a plan. */
  public record TakeOver(JobStatus.State decided, Plan plan) {
  }

  private Recovery() {
  }

  /**
   * setupJob for run {@code run} ({@code announce}: as {@link JobOutput#setup}), after taking
   * over what earlier runs did, as MRAppMaster's recovery: their commit's end, or the tasks
   * they finished that can be kept.
   */
  public static TakeOver setup(JobConf conf, JobDirs dirs, AttemptIds ids, int run,
      JobOutput output, Runnable announce) throws IOException {
    if (run == 1) {
      output.setup(announce);
      return new TakeOver(null, Plan.NONE);
    }
    JobStatus.State decided = committed(output, run);
    output.restore();
    output.setup(announce);
    return new TakeOver(decided,
        decided == null ? plan(conf, dirs, ids, run, output) : Plan.NONE);
  }

  /**
   * What an earlier run's commit markers decide, as MRAppMaster reads them: SUCCEEDED if the
   * commit ended, FAILED if it failed, FAILED if it started and cannot simply be done again
   * (FileOutputCommitter v1: the output may be half merged); null if the job goes on.
   */
  public static JobStatus.State committed(JobOutput output, int run) throws IOException {
    if (output.committed(JobDirs.COMMIT_SUCCESS)) {
      LOG.info("Run {}: the commit of an earlier run ended; the job succeeded", run);
      return JobStatus.State.SUCCEEDED;
    }
    if (output.committed(JobDirs.COMMIT_FAIL)) {
      return JobStatus.State.FAILED;
    }
    if (output.committed(JobDirs.COMMIT_STARTED)) {
      if (!output.commitRepeatable()) {
        return JobStatus.State.FAILED;
      }
      LOG.info("Run {}: an earlier run's commit did not end; it is done again", run);
    }
    return null;
  }


  /**
   * The plan for run {@code run} from the history of run - 1: only what can be kept
   * ({@code output} recovers committed task output; map outputs are checked here).
   */
  public static Plan plan(JobConf conf, JobDirs dirs, AttemptIds ids, int run, JobOutput output)
      throws IOException {
    File previous = HistoryFiles.jhist(dirs.history(), ids.job().toString(), run - 1);
    if (!previous.isFile()) {
      NOTICE.warn("No history of run {} of {}: every task runs again", run - 1, ids.job());
      return Plan.NONE;
    }
    JobInfo info = new JobHistoryParser(FileSystem.getLocal(new Configuration(false)).getRaw(),
        new Path(previous.getPath())).parse();
    int reduces = conf.getNumReduceTasks();
    boolean mapsEncrypted = CryptoUtils.isEncryptedSpillEnabled(conf);
    List<Done> done = new ArrayList<>();
    int lost = 0;
    for (TaskInfo t : info.getAllTasks().values()) {
      TaskAttemptID a = t.getSuccessfulAttemptId();
      TaskAttemptInfo attempt = a == null ? null : t.getAllTaskAttempts().get(a);
      if (!"SUCCEEDED".equals(t.getTaskStatus()) || attempt == null) {
        continue;
      }
      AttemptKey key = ids.keyOf(a);
      boolean keep;
      if (key.isMap() && reduces > 0) {
        keep = !mapsEncrypted && MapOutputCheck.intact(dirs.attemptOutput(a.toString()),
            reduces, conf);
      } else {
        keep = output.recoverTask(org.apache.hadoop.mapred.TaskAttemptID.downgrade(a));
      }
      if (keep) {
        done.add(new Done(key, a, attempt.getHostname(), attempt.getContainerId(),
            t.getStartTime(), attempt.getStartTime(), attempt.getFinishTime(),
            attempt.getCounters()));
      } else {
        lost++;
      }
    }
    long maps = done.stream().filter(d -> d.attempt().isMap()).count();
    NOTICE.info("Resuming {} (run {}): {} maps and {} reduces finished in run {} are kept; {} "
        + "finished there but must run again (output damaged or not recoverable)", ids.job(), run,
        maps, done.size() - maps, run - 1, lost);
    return new Plan(info.getAMInfos() == null ? List.of() : info.getAMInfos(),
        info.getSubmitTime(), info.getLaunchTime(), done);
  }
}
