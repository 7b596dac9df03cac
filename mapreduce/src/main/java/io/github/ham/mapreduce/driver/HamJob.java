package io.github.ham.mapreduce.driver;

import java.io.File;
import java.io.IOException;
import java.util.Map;

import io.github.ham.mapreduce.common.HamConfig;
import io.github.ham.mapreduce.common.jobfiles.JobDirs;
import io.github.ham.mapreduce.driver.commit.JobOutput;
import io.github.ham.mapreduce.driver.commit.Recovery;
import io.github.ham.mapreduce.driver.commit.RunFiles;
import io.github.ham.mapreduce.driver.ipc.JobControl;
import io.github.ham.mapreduce.driver.ipc.JobTasks;
import io.github.ham.mapreduce.driver.ipc.UmbilicalServer;
import io.github.ham.mapreduce.driver.launch.RunnerPlatform;
import io.github.ham.mapreduce.driver.report.JobCounters;
import io.github.ham.mapreduce.driver.report.JobEvents;
import io.github.ham.mapreduce.driver.report.StatusRecord;
import io.github.ham.mapreduce.driver.report.Wakeup;
import io.github.ham.mapreduce.driver.schedule.AttemptIds;
import io.github.ham.mapreduce.driver.schedule.SchedulingPolicy;
import io.github.ham.mapreduce.driver.schedule.TaskScheduler;
import io.github.ham.mapreduce.history.JobHistoryLog;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapred.JobEndNotifier;
import org.apache.hadoop.mapred.JobID;
import org.apache.hadoop.mapreduce.JobStatus;
import org.apache.hadoop.mapreduce.MRJobConfig;
import org.apache.hadoop.mapreduce.split.JobSplit.TaskSplitMetaInfo;
import org.apache.hadoop.mapreduce.split.SplitMetaInfoReader;
import org.apache.hadoop.security.Credentials;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.util.StringUtils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The lifecycle of one run of a job in the {@code hadoop jar} JVM (the role MRAppMaster plays
 * on YARN): setupJob (after taking over what an earlier run finished, for a resumed run), the
 * runners, supervision until the scheduler is done, commitJob or abortJob, and cleanup. The
 * thread always reaches a final state; a JVM going down (shutdown hook) stops the job so that
 * it can be resumed (or, with ham.resumable=false, kills it). The work itself is done by the
 * scheduler, the driver services, the job's events, counters, output and report, which this
 * class creates and wires together.
 */
public final class HamJob extends Thread {
  private static final Logger LOG = LoggerFactory.getLogger(HamJob.class);
  private static final long TICK_MS = 500;
  /** The supervision loop passes at most this often, however many attempts end meanwhile. */
  private static final long MIN_PASS_GAP_MS = 10;
  /** Attempt numbers per run, as the MRAppMaster's ((run - 1) x 1000). */
  private static final int ATTEMPTS_PER_RUN = 1000;

  private final JobID id;
  private final JobConf conf;
  private final JobDirs dirs;
  private final RunnerPlatform platform;
  private final Path submitDir;
  private final Credentials credentials;
  private final String user;
  private final AttemptIds ids;
  private final StatusRecord record;
  private final JobReport report;
  private final int run;
  private final boolean resumable;
  private final Wakeup wakeup = new Wakeup(MIN_PASS_GAP_MS);
  /** The shutdown hook and the supervisor may both stop the job: once. */
  private final Object stopping = new Object();
  private volatile JobStatus.State state = JobStatus.State.PREP;
  private volatile boolean killed;
  private volatile boolean stopped;

  // Set once by prepare(), before the job is RUNNING.
  private volatile TaskScheduler scheduler;
  private volatile JobEvents events;
  private volatile JobOutput output;
  private volatile DriverServices services;
  private volatile JobControl control;
  private JobHistoryLog history;
  private Thread shutdownHook;
  private EarlyRunners early;
  // From prepare() to the runners' services' bind (after setupJob).
  private JobTasks tasks;
  private JobCounters jobCounters;

  /**
   * The first run of a job just submitted; {@code early}: its runners, if they were started
   * when it got its id (else null).
   */
  public HamJob(JobID id, String jobSubmitDir, Credentials credentials, EarlyRunners early)
      throws IOException {
    this(id, jobSubmitDir, credentials, 1, null);
    this.early = early;
  }

  /**
   * Run {@code run} of a job staged in {@code jobSubmitDir}; a resumed run (2 and after) takes
   * the ham.* keys of {@code current} (this allocation's driver host, runner settings) over the
   * staged ones, and the job's own configuration as it was staged.
   */
  public HamJob(JobID id, String jobSubmitDir, Credentials credentials, int run,
      Configuration current) throws IOException {
    super("HamJob-" + id);
    setDaemon(false);
    this.id = id;
    this.run = run;
    this.ids = new AttemptIds(id);
    this.submitDir = new Path(jobSubmitDir);
    this.conf = new JobConf(new Path(submitDir, MRJobConfig.JOB_CONF_FILE));
    if (current != null) {
      for (Map.Entry<String, String> e : current.getPropsWithPrefix("ham.").entrySet()) {
        conf.set("ham." + e.getKey(), e.getValue());
      }
    }
    // As the MRAppMaster's attempt number: the committer's job attempt directory (tasks set
    // theirs from their attempt number, TaskSetup).
    conf.setInt(MRJobConfig.APPLICATION_ATTEMPT_ID, run);
    this.credentials = credentials;
    conf.setCredentials(credentials);
    this.platform = RunnerPlatforms.require(conf);
    this.user = conf.getUser() != null ? conf.getUser()
        : UserGroupInformation.getCurrentUser().getShortUserName();
    String root = conf.getTrimmed(HamConfig.JOB_DIR, "");
    this.dirs = JobDirs.of(root.isEmpty() ? new File(submitDir.toUri().getPath())
        .getParentFile().getAbsolutePath() + "/ham" : root, id.toString());
    this.record = new StatusRecord(dirs.status());
    // The job's configuration the runners and clients read (kept after the job).
    this.report = new JobReport(id, conf, user, dirs.jobConf().getPath(), ids, run,
        platform.statusCommand());
    this.resumable = conf.getBoolean(HamConfig.RESUMABLE, HamConfig.DEFAULT_RESUMABLE);
    setUncaughtExceptionHandler((t, e) -> finish(JobStatus.State.FAILED, "HAM driver crashed: "
        + StringUtils.stringifyException(e)));
  }

  public JobConf conf() {
    return conf;
  }

  @Override
  public void run() {
    try {
      prepare();
      JobStatus.State decided = takeOver();
      state = JobStatus.State.RUNNING;
      if (decided != null) {
        // An earlier run's commit got to its end (or failed): nothing runs again.
        finish(decided, decided == JobStatus.State.FAILED ? "The job's commit failed in run "
            + (run - 1) : null);
        return;
      }
      shutdownHook = new Thread(() -> stop("the client was terminated"), "ham-shutdown-" + id);
      Runtime.getRuntime().addShutdownHook(shutdownHook);
      // Tasks are handed out from now on, after setupJob (and a resumed run's recovery), to
      // runners started early too.
      services.bind(conf, credentials, scheduler, tasks, events, jobCounters, control,
          () -> stop("the Slurm allocation ended"));
      services.supervisor.check(System.currentTimeMillis());
      // At once, not at the next tick: if this JVM is killed outright, whoever settles the job
      // needs to know the runners' step.
      writeRecord();
      supervise();
      if (stopped) {
        release();  // the job was stopped (JVM going down, allocation ended): it has ended
        return;
      }
      if (scheduler.isSucceeded() && !killed) {
        output.commit();
        report.cleanupProgress = 1.0f;
        finish(JobStatus.State.SUCCEEDED, null);
      } else {
        String why = killed ? "Job killed by the user" : scheduler.failure();
        abort();
        finish(killed ? JobStatus.State.KILLED : JobStatus.State.FAILED, why);
      }
    } catch (Throwable t) {
      if (stopped) {
        return;
      }
      LOG.error("Job {} failed", id, t);
      if (scheduler != null) {
        scheduler.stop("HAM driver error: " + t);
      }
      abort();
      finish(killed ? JobStatus.State.KILLED : JobStatus.State.FAILED,
          "HAM driver error: " + StringUtils.stringifyException(t));
    }
  }

  private void prepare() throws Exception {
    TaskSplitMetaInfo[] splits = SplitMetaInfoReader.readSplitMetaInfo(id,
        submitDir.getFileSystem(conf), conf, submitDir);
    TaskScheduler s = new TaskScheduler(splits.length, conf.getNumReduceTasks(),
        SchedulingPolicy.from(conf), (run - 1) * ATTEMPTS_PER_RUN);
    s.setTaskNames(t -> ids.task(t).toString());
    JobCounters counters = new JobCounters(s, conf);
    history = new JobHistoryLog(id, conf, dirs, user, run);
    events = new JobEvents(s, ids, wakeup, counters, history);
    output = new JobOutput(conf, id, dirs);
    RunFiles.create(conf, dirs, run, resumable, new File(submitDir.toUri().getPath()),
        credentials);
    JobControl jobControl = new JobControl(s, events, counters, ids, this::status, this::kill,
        UmbilicalServer.clientIdentity(id));
    DriverServices started = early != null ? early.take(conf) : null;
    services = started != null ? started : DriverServices.open(platform, conf, id, dirs,
        false);
    tasks = new JobTasks(dirs.jobConf().getPath(), splits, user, ids);
    jobCounters = counters;
    scheduler = s;
    report.prepared(new JobReport.Parts(s, counters, output, services));
    control = jobControl;
    record.write(report.record(state, false));
  }

  /**
   * setupJob, after taking over what earlier runs did (a resumed run, as MRAppMaster's
   * recovery): the state the job is already in if an earlier run's commit ended, else null.
   */
  private JobStatus.State takeOver() throws Exception {
    Recovery.TakeOver taken = Recovery.setup(conf, dirs, ids, run, output, this::writeRecord);
    Recovery.Plan plan = taken.plan();
    report.setupProgress = 1.0f;
    history.submitted(plan.submitTime() > 0 ? plan.submitTime() : report.startTime,
        plan.launchTime() > 0 ? plan.launchTime() : System.currentTimeMillis(),
        scheduler.counts(true).total(), scheduler.counts(false).total(), plan.runs());
    for (Recovery.Done d : plan.done()) {
      scheduler.recovered(d.attempt(), d.node(), d.start(), d.finish());
      events.recovered(d);
    }
    report.recovered = plan.done().size();
    return taken.decided();
  }

  private void writeRecord() {
    record.write(report.record(state, false));
  }

  /** Until the scheduler is done: look after the attempts and the runners, record status. */
  private void supervise() throws IOException, InterruptedException {
    while (!scheduler.isFinished()) {
      wakeup.await(TICK_MS);
      long now = System.currentTimeMillis();
      events.ended(scheduler.takeEnded());
      services.supervisor.check(now);
      record.writeEvery(() -> report.record(state, false));
    }
  }

  /** Stops the runners first: attempts still running would otherwise write output again. */
  private void stopRunners(String why) {
    if (services != null) {
      services.killRunners();
    }
    TaskScheduler s = scheduler;
    if (s != null) {
      // As YARN ends a failed or killed job's attempts: the record shows none still running.
      s.killRunning(why, System.currentTimeMillis());
    }
  }

  /** Ends the job's output unsuccessfully: complete with _SUCCESS or absent afterwards. */
  private void abort() {
    stopRunners(killed ? "Job killed" : "Job failed");
    if (output != null) {
      output.abort(killed);
    }
    report.cleanupProgress = 1.0f;
  }

  /**
   * The job stops where it is because of {@code cause}: the JVM is going down (SIGTERM, Ctrl-C,
   * the time-limit warning forwarded by `ham run`; from the shutdown hook) or the allocation
   * ended under it (scancel, the time limit). Resumable: its output held aside, its map outputs
   * and history kept; with ham.resumable off, or a user kill under way, killed and cleaned up.
   */
  private void stop(String cause) {
    synchronized (stopping) {
      if (!stopped && state != JobStatus.State.SUCCEEDED && state != JobStatus.State.FAILED
          && state != JobStatus.State.KILLED) {
        stopNow(cause);
      }
    }
  }

  private void stopNow(String cause) {
    stopped = true;
    scheduler.stop("Job stopped before it finished: " + cause);  // nothing more is assigned
    if (!resumable || killed) {
      killed = true;
      abort();
      end(JobStatus.State.KILLED, "Job killed: " + cause, false);
      return;
    }
    stopRunners("Job stopped before it finished");
    boolean held = output.hold();
    if (output.committed(JobDirs.COMMIT_SUCCESS)) {
      end(JobStatus.State.SUCCEEDED, null, false);  // its commit ended first
      return;
    }
    end(JobStatus.State.KILLED, "Job stopped before it finished (" + cause + "): it can be "
        + "resumed (" + (held ? "its output is held aside" : "its output could not be held "
        + "aside") + ")", true);
  }

  /** After a stop or the job's end: the IPC server goes (and the hook, if the JVM stays up). */
  private void release() {
    if (shutdownHook != null) {
      try {
        Runtime.getRuntime().removeShutdownHook(shutdownHook);
      } catch (IllegalStateException e) {
        // Already shutting down: the hook runs anyway.
      }
    }
    if (services != null) {
      services.stopServer();
    }
  }

  /** The job's end when the JVM goes down: history, record, and what is left on disk. */
  private void end(JobStatus.State end, String why, boolean resume) {
    report.ended(why);
    if (resume) {
      events.stopped();
    } else {
      endHistory(end);
      events.historyWritten();
    }
    record.write(report.record(end, resume));
    state = end;
    RunFiles.clean(conf, dirs, resume);
  }

  public void kill() {
    killed = true;
    TaskScheduler s = scheduler;
    if (s != null) {
      s.stop("Job killed by the user");
    }
    wakeup.signal();
  }

  private void finish(JobStatus.State end, String why) {
    if (stopped) {
      return;  // the JVM is going down and the job was stopped for a resume
    }
    // With no attempt running (all logs whole) the history's end (events, done/ files, logs)
    // is written while the runners stop; else after, when the killed attempts' logs are.
    boolean historyFirst = scheduler != null && !scheduler.anyRunning();
    if (historyFirst) {
      report.ended(why);
      endHistory(end);
    }
    try {
      if (services != null) {
        services.stopRunners(conf.getLong(HamConfig.STEP_EXIT_WAIT_MS,
            HamConfig.DEFAULT_STEP_EXIT_WAIT_MS));
      }
      release();
      RunFiles.clean(conf, dirs, false);
    } catch (Throwable t) {
      LOG.warn("Cleanup of job {} failed", id, t);
    } finally {
      if (!historyFirst) {
        report.ended(why);
        endHistory(end);
      }
      // History, record and notification first: whoever sees the terminal state (the client)
      // may exit at once (System.exit does not wait for this thread).
      if (events != null) {  // set once, before the job runs
        events.historyWritten();
      }
      record.write(report.record(end, false));
      if (conf.get(MRJobConfig.MR_JOB_END_NOTIFICATION_URL) != null) {
        // mapreduce.job.end-notification.url, with Hadoop's own notifier (retries and all).
        JobEndNotifier.localRunnerNotification(conf, report.status(end));
      }
      state = end;
      LOG.info("Job {} finished: {}{}", id, end, why == null ? "" : " (" + why + ")");
    }
  }

  /** The job's history ends with its final state (before anyone is told it ended). */
  private void endHistory(JobStatus.State end) {
    JobEvents e = events;
    if (e != null) {
      e.jobEnded(end.name(), report.finishTime, report.failureInfo);
    }
  }

  public org.apache.hadoop.mapred.JobStatus status() {
    return report.status(state);
  }

  /** The job for clients in this JVM; null until the job is prepared (see {@link #status}). */
  public JobControl control() {
    return control;
  }
}
