package io.github.ham.mapreduce.driver;

import java.util.List;

import io.github.ham.mapreduce.driver.commit.JobOutput;
import io.github.ham.mapreduce.driver.report.JobCounters;
import io.github.ham.mapreduce.driver.report.StatusRecord;
import io.github.ham.mapreduce.driver.schedule.AttemptIds;
import io.github.ham.mapreduce.driver.schedule.TaskScheduler;

import org.apache.hadoop.mapred.Counters;
import org.apache.hadoop.mapred.HamBridge;
import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapred.JobID;
import org.apache.hadoop.mapreduce.JobStatus;

/**
 * What a job tells about itself, the same facts two ways: the client's JobStatus (progress,
 * times, failure, "tracking URL") and the status record (status.json). The lifecycle (HamJob)
 * sets the facts; the parts it wires (scheduler, output, services, counters) come together,
 * once the job is prepared ({@link #prepared}): before, the report has none of them.
 */
final class JobReport {
  private final JobID id;
  private final JobConf conf;
  private final String user;
  private final String jobFile;
  private final AttemptIds ids;
  private final int run;
  /** The platform's command that shows the allocation ("ham status 12"), or empty. */
  private final String statusCommand;
  final long startTime = System.currentTimeMillis();
  volatile long finishTime;
  volatile String failureInfo;
  volatile float setupProgress;
  volatile float cleanupProgress;
  volatile int recovered;
  private volatile Parts parts;

  /** The job's parts the report reads, all set at once. */
  record Parts(TaskScheduler scheduler, JobCounters counters, JobOutput output,
      DriverServices services) {
  }

  JobReport(JobID id, JobConf conf, String user, String jobFile, AttemptIds ids, int run,
      String statusCommand) {
    this.statusCommand = statusCommand;
    this.id = id;
    this.conf = conf;
    this.user = user;
    this.jobFile = jobFile;
    this.ids = ids;
    this.run = run;
  }

  /** The job is prepared: its parts are what the report tells from now on. */
  void prepared(Parts prepared) {
    this.parts = prepared;
  }

  /** The job ends now, for {@code why} (null: it succeeded). */
  void ended(String why) {
    failureInfo = why;
    finishTime = System.currentTimeMillis();
  }

  org.apache.hadoop.mapred.JobStatus status(JobStatus.State shown) {
    Parts p = parts;
    TaskScheduler s = p == null ? null : p.scheduler();
    float map = s == null ? 0 : s.counts(true).progress();
    float reduce = s == null ? 0 : s.counts(false).progress();
    return HamBridge.jobStatus(id, setupProgress, map, reduce, cleanupProgress,
        shown.getValue(), user, conf.getJobName(), jobFile, startTime, finishTime,
        failureInfo, trackingUrl());
  }

  /**
   * What the client prints as "The url to track the job": there is no web UI, so the commands
   * that follow the job.
   */
  private String trackingUrl() {
    return (statusCommand.isEmpty() ? "" : "`" + statusCommand + "` or ")
        + "`mapred job -status " + id + "`";
  }

  Counters counters() {
    Parts p = parts;
    return p == null ? new Counters() : p.counters().total();
  }

  /** The status record; {@code canResume}: the job stopped and `ham submit --resume` goes on. */
  StatusRecord.Content record(JobStatus.State shown, boolean canResume) {
    Parts p = parts;
    JobOutput o = p == null ? null : p.output();
    DriverServices d = p == null ? null : p.services();
    StatusRecord.Job job = new StatusRecord.Job(id.toString(), conf.getJobName(), user,
        shown.name(), startTime, finishTime, failureInfo,
        o == null ? null : o.localDir(), o != null && o.createsDir(),
        d == null ? 0 : d.launcher.runnersStarted(), d == null ? 0 : d.launcher.launches(),
        d == null ? List.of() : d.launcher.pids(),
        new StatusRecord.Resume(run, recovered, canResume));
    return new StatusRecord.Content(job, p == null ? null : p.scheduler(),
        new org.apache.hadoop.mapreduce.Counters(counters()), ids);
  }
}
