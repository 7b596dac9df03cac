package io.github.ham.mapreduce.driver;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.StandardCopyOption;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.github.ham.mapreduce.common.CredentialsSeal;
import io.github.ham.mapreduce.common.HamConfig;
import io.github.ham.mapreduce.common.JobDirs;
import io.github.ham.mapreduce.common.JobResources;
import io.github.ham.mapreduce.driver.slurm.RunnerLauncher;
import io.github.ham.mapreduce.lustre.Striping;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileUtil;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.mapred.Counters;
import org.apache.hadoop.mapred.HamBridge;
import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapred.JobID;
import org.apache.hadoop.mapreduce.JobStatus;
import org.apache.hadoop.mapreduce.MRJobConfig;
import org.apache.hadoop.mapreduce.TaskAttemptID;
import org.apache.hadoop.mapreduce.TaskCompletionEvent;
import org.apache.hadoop.mapreduce.split.JobSplit.TaskSplitMetaInfo;
import org.apache.hadoop.mapreduce.split.SplitMetaInfoReader;
import org.apache.hadoop.security.Credentials;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.util.StringUtils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The lifecycle of one job in the {@code hadoop jar} JVM (the role MRAppMaster plays on YARN):
 * setupJob, the runners, supervision until the scheduler is done, commitJob or abortJob, and
 * cleanup. The thread always reaches a final state, and so does a JVM going down (shutdown
 * hook). The work itself is done by the scheduler, the umbilical server, the runner supervisor,
 * the job's events and counters and its output, which this class creates and wires together.
 */
public final class HamJob extends Thread {
  private static final Logger LOG = LoggerFactory.getLogger(HamJob.class);
  private static final long TICK_MS = 500;

  private final JobID id;
  private final JobConf conf;
  private final JobDirs dirs;
  private final Path submitDir;
  private final Credentials credentials;
  private final String user;
  private final AttemptIds ids;
  private final StatusRecord record;
  private final Wakeup wakeup = new Wakeup();
  private final long startTime = System.currentTimeMillis();
  private volatile long finishTime;
  private volatile JobStatus.State state = JobStatus.State.PREP;
  private volatile String failureInfo;
  private volatile boolean killed;
  private volatile float setupProgress;
  private volatile float cleanupProgress;

  // Set once by prepare(), before the job is RUNNING.
  private volatile TaskScheduler scheduler;
  private volatile JobEvents events;
  private volatile JobCounters counters;
  private volatile JobOutput output;
  private volatile RunnerSupervisor supervisor;
  private volatile RunnerLauncher launcher;
  private volatile JobControl control;
  private UmbilicalServer server;
  private Thread shutdownHook;

  public HamJob(JobID id, String jobSubmitDir, Credentials credentials) throws IOException {
    super("HamJob-" + id);
    setDaemon(false);
    this.id = id;
    this.ids = new AttemptIds(id);
    this.submitDir = new Path(jobSubmitDir);
    this.conf = new JobConf(new Path(submitDir, MRJobConfig.JOB_CONF_FILE));
    this.credentials = credentials;
    conf.setCredentials(credentials);
    this.user = conf.getUser() != null ? conf.getUser()
        : UserGroupInformation.getCurrentUser().getShortUserName();
    this.dirs = JobDirs.of(jobRootDir(conf, submitDir), id.toString());
    this.record = new StatusRecord(dirs.status());
    setUncaughtExceptionHandler((t, e) -> finish(JobStatus.State.FAILED, "HAM driver crashed: "
        + StringUtils.stringifyException(e)));
  }

  /** ham.job.dir, or a directory next to the staging area. */
  public static String jobRootDir(Configuration conf, Path submitDir) {
    String dir = conf.getTrimmed(HamConfig.JOB_DIR);
    if (dir != null && !dir.isEmpty()) {
      return dir;
    }
    return new File(submitDir.toUri().getPath()).getParentFile().getAbsolutePath() + "/ham";
  }

  public JobConf conf() {
    return conf;
  }

  private String jobFile() {
    return new Path(submitDir, MRJobConfig.JOB_CONF_FILE).toUri().getPath();
  }

  @Override
  public void run() {
    try {
      prepare();
      output.setup();
      setupProgress = 1.0f;
      state = JobStatus.State.RUNNING;
      startRunners();
      // At once, not at the next tick: if this JVM is killed outright, whoever settles the job
      // needs to know its output directory and the runners' step.
      record.write(statusRecord(state));
      supervise();
      if (scheduler.isSucceeded() && !killed) {
        output.commit();
        cleanupProgress = 1.0f;
        finish(JobStatus.State.SUCCEEDED, null);
      } else {
        String why = killed ? "Job killed by the user" : scheduler.failure();
        abort();
        finish(killed ? JobStatus.State.KILLED : JobStatus.State.FAILED, why);
      }
    } catch (Throwable t) {
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
        SchedulingPolicy.from(conf));
    s.setTaskNames(t -> ids.task(t).toString());
    events = new JobEvents(s, ids, wakeup);
    counters = new JobCounters(s);
    output = new JobOutput(conf, id);
    Files.createDirectories(dirs.logs().toPath());
    Files.createDirectories(dirs.intermediate().toPath());
    Striping.mapOutputDir(conf, dirs.intermediate());
    // Kept after the job (the staging copy is not): what ran, for `mapred job -status` later.
    Files.copy(new File(jobFile()).toPath(), dirs.jobConf().toPath(),
        StandardCopyOption.REPLACE_EXISTING);
    new JobResources(conf, dirs).unpack();
    RunnerTracker tracker = new RunnerTracker();
    JobControl jobControl = new JobControl(s, events, counters, ids, this::status, this::kill,
        UmbilicalServer.clientIdentity(id));
    server = new UmbilicalServer(conf, id, credentials);
    byte[] sealed = CredentialsSeal.seal(credentials, server.jobTokenPassword());
    server.start(new DriverUmbilical(s, tracker, new JobTasks(jobFile(), splits, user, ids),
        events, counters, ids, sealed), jobControl);
    server.controlFile().write(dirs.control());
    Map<String, String> env = new LinkedHashMap<>();
    env.put(HamConfig.ENV_JOB_TOKEN, server.encodedToken());
    env.put(HamConfig.ENV_JOB_RUNTIME_DIR, dirs.root().getAbsolutePath());
    String confDir = System.getenv("HADOOP_CONF_DIR");
    if (confDir != null) {
      env.put("HADOOP_CONF_DIR", confDir);
    }
    launcher = new RunnerLauncher(conf, dirs, server.host(), server.port(), id.toString(), env);
    supervisor = new RunnerSupervisor(conf, launcher, tracker, s, events);
    scheduler = s;
    control = jobControl;
    record.write(statusRecord(state));
  }

  private void startRunners() throws IOException {
    shutdownHook = new Thread(this::onShutdown, "ham-shutdown-" + id);
    Runtime.getRuntime().addShutdownHook(shutdownHook);
    supervisor.launchAll();
  }

  /** Until the scheduler is done: time out attempts, look after the runners, record status. */
  private void supervise() throws IOException, InterruptedException {
    while (!scheduler.isFinished()) {
      wakeup.await(TICK_MS);
      long now = System.currentTimeMillis();
      events.ended(scheduler.expire(now));
      events.ended(scheduler.takeEnded());
      supervisor.check(now);
      record.writeEvery(() -> statusRecord(state));
    }
  }

  /**
   * Stops the runners first (attempts still running would otherwise write into the output
   * again, recreating out/_temporary after its removal), then aborts the job's output.
   */
  private void abort() {
    if (supervisor != null) {
      supervisor.kill();
    }
    TaskScheduler s = scheduler;
    if (s != null) {
      // As YARN ends a failed or killed job's attempts: the record shows none still running.
      s.killRunning(killed ? "Job killed" : "Job failed", System.currentTimeMillis());
    }
    if (output != null) {
      output.abort(killed);
    }
    cleanupProgress = 1.0f;
  }

  /**
   * The JVM is going down (SIGTERM, Ctrl-C, the time-limit warning forwarded by `ham run`):
   * stop the runners, abort the job, record KILLED.
   */
  private void onShutdown() {
    if (isTerminal()) {
      return;
    }
    killed = true;
    abort();
    failureInfo = "Job killed: the client was terminated";
    finishTime = System.currentTimeMillis();
    record.write(statusRecord(JobStatus.State.KILLED));
    state = JobStatus.State.KILLED;
    deleteIntermediate();
  }

  private boolean isTerminal() {
    return state == JobStatus.State.SUCCEEDED || state == JobStatus.State.FAILED
        || state == JobStatus.State.KILLED;
  }

  /** Map outputs and runner work directories go when the job ends (logs and status stay). */
  private void deleteIntermediate() {
    dirs.control().delete();
    if (!conf.getBoolean(HamConfig.KEEP_INTERMEDIATE, HamConfig.DEFAULT_KEEP_INTERMEDIATE)) {
      FileUtil.fullyDelete(dirs.intermediate());
      FileUtil.fullyDelete(dirs.work());
    }
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
    try {
      if (supervisor != null) {
        supervisor.stop(conf.getLong(HamConfig.STEP_EXIT_WAIT_MS,
            HamConfig.DEFAULT_STEP_EXIT_WAIT_MS));
      }
      if (shutdownHook != null) {
        try {
          Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException e) {
          // Already shutting down: the hook runs anyway.
        }
      }
      if (server != null) {
        server.stop();
      }
      deleteIntermediate();
    } catch (Throwable t) {
      LOG.warn("Cleanup of job {} failed", id, t);
    } finally {
      failureInfo = why;
      finishTime = System.currentTimeMillis();
      // The record first: whoever sees the terminal state (the client) may exit at once.
      record.write(statusRecord(end));
      state = end;
      LOG.info("Job {} finished: {}{}", id, end, why == null ? "" : " (" + why + ")");
    }
  }

  public org.apache.hadoop.mapred.JobStatus status() {
    TaskScheduler s = scheduler;
    float map = s == null ? 0 : s.counts(true).progress();
    float reduce = s == null ? 0 : s.counts(false).progress();
    return HamBridge.jobStatus(id, setupProgress, map, reduce, cleanupProgress,
        state.getValue(), user, conf.getJobName(), jobFile(), startTime, finishTime,
        failureInfo, trackingUrl());
  }

  /**
   * What the client prints as "The url to track the job": there is no web UI, so the commands
   * that follow the job.
   */
  private String trackingUrl() {
    String slurmJob = System.getenv("SLURM_JOB_ID");
    return (slurmJob == null ? "" : "`ham status " + slurmJob + "` or ")
        + "`mapred job -status " + id + "`";
  }

  /** The job for clients in this JVM; null until the job is prepared (see {@link #status}). */
  public JobControl control() {
    return control;
  }

  private Counters counters() {
    JobCounters c = counters;
    return c == null ? new Counters() : c.total();
  }

  private Map<String, Object> statusRecord(JobStatus.State shown) {
    JobOutput o = output;
    RunnerLauncher l = launcher;
    Path out = o == null ? null : o.dir();
    StatusRecord.Job job = new StatusRecord.Job(id.toString(), conf.getJobName(), user,
        shown.name(), startTime, finishTime, failureInfo,
        out == null ? null : out.toUri().getPath(), o != null && o.createsDir(),
        l == null ? 0 : l.runnersStarted(), l == null ? 0 : l.launches(),
        l == null ? List.of() : l.pids());
    return StatusRecord.build(job, scheduler, new org.apache.hadoop.mapreduce.Counters(
        counters()), ids);
  }
}
