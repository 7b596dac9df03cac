package io.github.ham.mapreduce;

import java.io.File;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.CommonConfigurationKeysPublic;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.FileUtil;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.ipc.RPC;
import org.apache.hadoop.ipc.Server;
import org.apache.hadoop.mapred.HamBridge;
import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapred.JobContextImpl;
import org.apache.hadoop.mapred.JobID;
import org.apache.hadoop.mapred.TaskUmbilicalProtocol;
import org.apache.hadoop.mapreduce.JobStatus;
import org.apache.hadoop.mapreduce.MRJobConfig;
import org.apache.hadoop.mapreduce.OutputCommitter;
import org.apache.hadoop.mapreduce.TaskCompletionEvent;
import org.apache.hadoop.mapreduce.TaskType;
import org.apache.hadoop.mapreduce.security.TokenCache;
import org.apache.hadoop.mapreduce.security.token.JobTokenIdentifier;
import org.apache.hadoop.mapreduce.security.token.JobTokenSecretManager;
import org.apache.hadoop.mapreduce.split.JobSplit.TaskSplitMetaInfo;
import org.apache.hadoop.mapreduce.split.SplitMetaInfoReader;
import org.apache.hadoop.mapreduce.task.TaskAttemptContextImpl;
import org.apache.hadoop.security.Credentials;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.security.token.Token;
import org.apache.hadoop.util.ReflectionUtils;
import org.apache.hadoop.util.StringUtils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The driver of one job, in the {@code hadoop jar} JVM (the role MRAppMaster plays on YARN):
 * setupJob, the authenticated umbilical server, the runner step, scheduling, commitJob or
 * abortJob, cleanup. The thread always reaches a final state.
 */
final class HamJob extends Thread {
  private static final Logger LOG = LoggerFactory.getLogger(HamJob.class);

  final JobID id;
  final JobConf conf;
  final JobDirs dirs;
  private final Path submitDir;
  private final Credentials credentials;
  private final String user;
  private final long startTime = System.currentTimeMillis();
  private volatile long finishTime;
  private volatile int runState = JobStatus.State.PREP.getValue();
  private volatile String failureInfo;
  private volatile boolean killed;
  private volatile float setupProgress;
  private volatile float cleanupProgress;

  private volatile TaskScheduler scheduler;
  private final RunnerTracker runners = new RunnerTracker();
  /** Relaunches and replacements counted against ham.runner.max.relaunches. */
  private int relaunchesUsed;
  private TaskSplitMetaInfo[] splits;
  private final DriverUmbilical umbilical;
  private Server server;
  private RunnerLauncher launcher;
  private Thread shutdownHook;
  private volatile OutputCommitter committer;
  private volatile JobContextImpl context;
  /** Whether the output directory existed before setupJob; if not, a failed job removes it. */
  private boolean outputExisted = true;
  private final java.util.concurrent.atomic.AtomicBoolean aborted =
      new java.util.concurrent.atomic.AtomicBoolean();
  private final List<TaskCompletionEvent> events = new ArrayList<>();
  private final Map<AttemptKey, List<String>> diagnostics = new HashMap<>();
  private long lastStatusWrite;

  HamJob(JobID id, String jobSubmitDir, Credentials credentials) throws IOException {
    super("HamJob-" + id);
    setDaemon(false);
    this.id = id;
    this.submitDir = new Path(jobSubmitDir);
    this.conf = new JobConf(new Path(submitDir, MRJobConfig.JOB_CONF_FILE));
    this.credentials = credentials;
    conf.setCredentials(credentials);
    this.user = conf.getUser() != null ? conf.getUser()
        : UserGroupInformation.getCurrentUser().getShortUserName();
    this.dirs = JobDirs.of(jobRootDir(conf, submitDir), id.toString());
    this.umbilical = new DriverUmbilical(this);
    setUncaughtExceptionHandler((t, e) -> finish(JobStatus.State.FAILED, "HAM driver crashed: "
        + StringUtils.stringifyException(e)));
  }

  /** ham.job.dir, or a directory next to the staging area. */
  static String jobRootDir(org.apache.hadoop.conf.Configuration conf, Path submitDir) {
    String dir = conf.getTrimmed(HamConfig.JOB_DIR);
    if (dir != null && !dir.isEmpty()) {
      return dir;
    }
    return new File(submitDir.toUri().getPath()).getParentFile().getAbsolutePath() + "/ham";
  }

  String user() {
    return user;
  }

  TaskScheduler scheduler() {
    return scheduler;
  }

  RunnerTracker runners() {
    return runners;
  }

  TaskSplitMetaInfo split(int index) {
    return splits[index];
  }

  String jobFile() {
    return new Path(submitDir, MRJobConfig.JOB_CONF_FILE).toUri().getPath();
  }

  int numMaps() {
    return splits.length;
  }

  @Override
  public void run() {
    context = new JobContextImpl(conf, id);
    try {
      prepare();
      committer = createCommitter();
      outputExisted = outputDirExists();
      committer.setupJob(context);
      setupProgress = 1.0f;
      runState = JobStatus.State.RUNNING.getValue();
      startRunners();
      waitForTasks();
      if (scheduler.isSucceeded() && !killed) {
        committer.commitJob(context);
        cleanupProgress = 1.0f;
        finish(JobStatus.State.SUCCEEDED, null);
      } else {
        String why = killed ? "Job killed by the user" : scheduler.failure();
        killRunners();
        abort(committer, context, killed);
        finish(killed ? JobStatus.State.KILLED : JobStatus.State.FAILED, why);
      }
    } catch (Throwable t) {
      LOG.error("Job {} failed", id, t);
      if (scheduler != null) {
        scheduler.stop("HAM driver error: " + t);
      }
      killRunners();
      abort(committer, context, killed);
      finish(killed ? JobStatus.State.KILLED : JobStatus.State.FAILED,
          "HAM driver error: " + StringUtils.stringifyException(t));
    }
  }

  private void prepare() throws IOException {
    if (System.getenv("SLURM_JOB_ID") == null && !HamConfig.LAUNCHER_LOCAL.equals(
        conf.getTrimmed(HamConfig.LAUNCHER))) {
      throw new IOException("HAM needs a Slurm allocation: run inside salloc/sbatch or use "
          + "`ham run`");
    }
    FileSystem fs = submitDir.getFileSystem(conf);
    splits = SplitMetaInfoReader.readSplitMetaInfo(id, fs, conf, submitDir);
    scheduler = new TaskScheduler(splits.length, conf.getNumReduceTasks(),
        new TaskScheduler.Limits(conf.getInt(MRJobConfig.MAP_MAX_ATTEMPTS, 4),
            conf.getInt(MRJobConfig.REDUCE_MAX_ATTEMPTS, 4),
            conf.getLong(MRJobConfig.TASK_TIMEOUT, 600_000L),
            conf.getLong(HamConfig.HEARTBEAT_TIMEOUT_MS,
                HamConfig.DEFAULT_HEARTBEAT_TIMEOUT_MS)));
    scheduler.setReduceDelay(conf.getLong(HamConfig.TEST_PAUSE_BEFORE_REDUCES_MS, 0L));
    scheduler.setTaskNames(t -> new org.apache.hadoop.mapred.TaskID(id,
        t.isMap() ? TaskType.MAP : TaskType.REDUCE, t.index()).toString());
    java.nio.file.Files.createDirectories(dirs.logs().toPath());
    java.nio.file.Files.createDirectories(dirs.intermediate().toPath());
    new JobResources(conf, dirs).unpack();
    writeStatus(true);
  }

  private OutputCommitter createCommitter() throws Exception {
    boolean newApi = conf.getNumReduceTasks() == 0 ? conf.getUseNewMapper()
        : conf.getUseNewReducer();
    if (newApi) {
      org.apache.hadoop.mapreduce.TaskAttemptID attempt =
          new org.apache.hadoop.mapreduce.TaskAttemptID(
              new org.apache.hadoop.mapreduce.TaskID(id, TaskType.MAP, 0), 0);
      TaskAttemptContextImpl ctx = new TaskAttemptContextImpl(conf, attempt);
      org.apache.hadoop.mapreduce.OutputFormat<?, ?> format =
          ReflectionUtils.newInstance(ctx.getOutputFormatClass(), conf);
      return format.getOutputCommitter(ctx);
    }
    return conf.getOutputCommitter();
  }

  private Path outputDir() {
    String dir = conf.get(org.apache.hadoop.mapreduce.lib.output.FileOutputFormat.OUTDIR);
    return dir == null || dir.isEmpty() ? null : new Path(dir);
  }

  private boolean outputDirExists() throws IOException {
    Path out = outputDir();
    return out == null || out.getFileSystem(conf).exists(out);
  }

  /**
   * Before an unsuccessful job's output is removed: attempts still running on other runners
   * would otherwise write into it again (recreating out/_temporary) after it is gone.
   */
  private void killRunners() {
    if (launcher != null) {
      launcher.kill();
    }
  }

  /**
   * abortJob, then remove the output directory if this job created it: a failed or killed job
   * leaves the output either complete with _SUCCESS or absent, never half-written (with
   * FileOutputCommitter v2, committed tasks' files are already in the output directory).
   * Runs once, from the driver thread or from the shutdown hook.
   */
  private void abort(OutputCommitter committer, JobContextImpl context, boolean wasKilled) {
    if (committer == null || !aborted.compareAndSet(false, true)) {
      return;
    }
    try {
      committer.abortJob(context,
          wasKilled ? JobStatus.State.KILLED : JobStatus.State.FAILED);
    } catch (Throwable e) {
      LOG.warn("abortJob failed for {}", id, e);
    }
    Path out = outputDir();
    if (!outputExisted && out != null) {
      try {
        out.getFileSystem(conf).delete(out, true);
        LOG.info("Removed the output directory {} of the unsuccessful job {}", out, id);
      } catch (Throwable e) {
        LOG.warn("Cannot remove the output directory {} of job {}", out, id, e);
      }
    }
    cleanupProgress = 1.0f;
  }

  /**
   * The JVM is going down (SIGTERM, Ctrl-C, the time-limit warning forwarded by `ham run`):
   * stop the runners, abort the job, record KILLED.
   */
  private void onShutdown() {
    if (runState == JobStatus.State.SUCCEEDED.getValue()
        || runState == JobStatus.State.FAILED.getValue()
        || runState == JobStatus.State.KILLED.getValue()) {
      return;
    }
    killed = true;
    killRunners();
    abort(committer, context, true);
    failureInfo = "Job killed: the client was terminated";
    finishTime = System.currentTimeMillis();
    try {
      writeStatusRecord(JobStatus.State.KILLED.name());
    } catch (Throwable t) {
      LOG.warn("Cannot write {}", dirs.status(), t);
    }
    deleteIntermediate();
  }

  /** Map outputs and runner work directories go when the job ends (logs and status stay). */
  private void deleteIntermediate() {
    if (!conf.getBoolean(HamConfig.KEEP_INTERMEDIATE, false)) {
      FileUtil.fullyDelete(dirs.intermediate());
      FileUtil.fullyDelete(dirs.work());
    }
  }

  private void startRunners() throws IOException {
    // A fresh job token, as MRAppMaster's JobImpl creates one: runners authenticate with it.
    JobTokenSecretManager secrets = new JobTokenSecretManager();
    Token<JobTokenIdentifier> token = new Token<>(
        new JobTokenIdentifier(new Text(id.toString())), secrets);
    secrets.addTokenForJob(id.toString(), token);
    TokenCache.setJobToken(token, credentials);
    // With security off, a Hadoop server also accepts SIMPLE (unauthenticated) connections
    // beside TOKEN. Declaring TOKEN as the server's own method leaves TOKEN the only one, so a
    // client without the job token is turned away at connection set-up, before any call.
    Configuration serverConf = new Configuration(conf);
    serverConf.set(CommonConfigurationKeysPublic.HADOOP_SECURITY_AUTHENTICATION,
        UserGroupInformation.AuthenticationMethod.TOKEN.name().toLowerCase(Locale.ROOT));
    server = new RPC.Builder(serverConf).setProtocol(TaskUmbilicalProtocol.class)
        .setInstance(umbilical)
        .setBindAddress(conf.getTrimmed(HamConfig.DRIVER_BIND_HOST,
            HamConfig.DEFAULT_DRIVER_BIND_HOST))
        .setPort(0).setNumHandlers(Math.max(4, conf.getInt("ham.driver.handlers", 8)))
        .setVerbose(false).setSecretManager(secrets).build();
    server.start();
    InetSocketAddress address = server.getListenerAddress();
    String host = conf.getTrimmed(HamConfig.DRIVER_HOST);
    if (host == null || host.isEmpty()) {
      host = InetAddress.getLocalHost().getHostAddress();
    }
    LOG.info("HAM umbilical for {} listening on {}:{}", id, host, address.getPort());
    Map<String, String> env = new LinkedHashMap<>();
    env.put(HamConfig.ENV_JOB_TOKEN, token.encodeToUrlString());
    env.put(HamConfig.ENV_JOB_RUNTIME_DIR, dirs.root().getAbsolutePath());
    String confDir = System.getenv("HADOOP_CONF_DIR");
    if (confDir != null) {
      env.put("HADOOP_CONF_DIR", confDir);
    }
    launcher = new RunnerLauncher(conf, dirs, host, address.getPort(), id.toString(), env);
    shutdownHook = new Thread(this::onShutdown, "ham-shutdown-" + id);
    Runtime.getRuntime().addShutdownHook(shutdownHook);
    launchAll();
  }

  /** Starts a whole generation of runners; they are tracked from now on. */
  private void launchAll() throws IOException {
    launcher.launch();
    long now = System.currentTimeMillis();
    for (String slot : launcher.lastGenerationSlots()) {
      runners.started(slot, null, now);
    }
  }

  private void waitForTasks() throws IOException, InterruptedException {
    int maxRelaunches = conf.getInt(HamConfig.MAX_RUNNER_LAUNCHES,
        HamConfig.DEFAULT_MAX_RUNNER_LAUNCHES);
    long heartbeatTimeout = conf.getLong(HamConfig.HEARTBEAT_TIMEOUT_MS,
        HamConfig.DEFAULT_HEARTBEAT_TIMEOUT_MS);
    while (!scheduler.isFinished()) {
      synchronized (this) {
        wait(500);
      }
      long now = System.currentTimeMillis();
      for (AttemptKey key : scheduler.expire(now)) {
        attemptEnded(key, TaskCompletionEvent.Status.FAILED);
      }
      if (launcher.anyAlive() && !scheduler.isFinished()) {
        List<RunnerTracker.Lost> lost = new ArrayList<>();
        for (RunnerTracker.Exit exit : launcher.pollExits()) {
          RunnerTracker.Lost l = runners.exited(exit);
          if (l != null) {
            lost.add(l);
          }
        }
        lost.addAll(runners.expire(now, heartbeatTimeout));
        for (RunnerTracker.Lost l : lost) {
          runnerLost(l, maxRelaunches, now);
        }
        if (runners.live() == 0 && !scheduler.isFinished()) {
          // Every runner is lost and none was replaced, but some processes linger (silent
          // runners): nobody would take the pending tasks. Handle it as "all runners gone".
          LOG.warn("No task runner is left; stopping the lingering runner processes");
          launcher.kill();
        }
      }
      if (!launcher.anyAlive() && !scheduler.isFinished()) {
        launcher.pollExits();
        runners.allLost();
        for (AttemptKey key : scheduler.runnerLostAll("The task runners exited", now)) {
          attemptEnded(key, TaskCompletionEvent.Status.FAILED);
        }
        if (relaunchesUsed >= maxRelaunches) {
          scheduler.stop("The task runners exited " + launcher.launches()
              + " times; last output:\n" + launcher.outputTail());
        } else {
          LOG.warn("All task runners exited; relaunching. Last output:\n{}",
              launcher.outputTail());
          relaunchesUsed++;
          launchAll();
        }
      }
      writeStatus(false);
    }
  }

  /**
   * One runner is gone (its process exited, or it was silent for the heartbeat timeout): its
   * running attempts are failed (they run again elsewhere), and a replacement starts on the
   * same node if the node is healthy and ham.runner.max.relaunches allows.
   */
  private void runnerLost(RunnerTracker.Lost lost, int maxRelaunches, long now)
      throws IOException {
    String name = lost.runnerId() != null ? lost.runnerId() : lost.slot();
    if (lost.runnerId() != null) {
      for (AttemptKey key : scheduler.runnerLost(lost.runnerId(),
          "Task runner " + name + " lost: " + lost.reason(), now)) {
        attemptEnded(key, TaskCompletionEvent.Status.FAILED);
      }
    }
    RunnerTracker.NodeHealth health = RunnerTracker.NodeHealth.UNKNOWN;
    if (lost.node() != null && (lost.expected() || relaunchesUsed < maxRelaunches)) {
      health = launcher.nodeHealth(lost.node());
    }
    RunnerTracker.Decision decision = RunnerTracker.decide(scheduler.isFinished(), lost.node(),
        relaunchesUsed, maxRelaunches, health, lost.expected());
    if (decision == RunnerTracker.Decision.REPLACE) {
      String slot = launcher.replace(lost.node());
      runners.started(slot, lost.node(), System.currentTimeMillis());
      if (!lost.expected()) {
        relaunchesUsed++;
      }
      LOG.warn("Task runner {} on {} lost ({}); started replacement runner {} on {} ({})",
          name, lost.node(), lost.reason(), slot, lost.node(), lost.expected()
              ? "the driver ended its task; not counted against " + HamConfig.MAX_RUNNER_LAUNCHES
              : "relaunch " + relaunchesUsed + " of " + maxRelaunches);
    } else {
      LOG.warn("Task runner {} on {} lost ({}); not replaced: {}", name, lost.node(),
          lost.reason(), decision);
    }
  }

  /**
   * A reduce attempt could not read some maps' output: those map attempts are failed and their
   * maps run again, and the reduce attempt is killed (it runs again once the maps are done).
   */
  void mapOutputLost(AttemptKey reduce, List<AttemptKey> badMaps, String message) {
    long now = System.currentTimeMillis();
    List<AttemptKey> invalidated = scheduler.mapOutputLost(reduce, badMaps, message, now);
    LOG.warn("Attempt {} could not read the output of {}; re-running {}", attemptId(reduce),
        badMaps.stream().map(k -> attemptId(k).toString()).toList(),
        invalidated.stream().map(k -> attemptId(k).toString()).toList());
    for (AttemptKey m : invalidated) {
      attemptEnded(m, TaskCompletionEvent.Status.FAILED);
    }
    attemptEnded(reduce, TaskCompletionEvent.Status.KILLED);
  }

  /** Wakes the driver loop (an attempt ended). */
  synchronized void poke() {
    notifyAll();
  }

  void kill() {
    killed = true;
    TaskScheduler s = scheduler;
    if (s != null) {
      s.stop("Job killed by the user");
    }
    poke();
  }

  /** Records a completion event for an attempt that just ended. */
  void attemptEnded(AttemptKey key, TaskCompletionEvent.Status status) {
    AttemptInfo.Snapshot a = scheduler.attempt(key);
    if (a != null && a.error() != null) {
      addDiagnostic(key, a.error());
    }
    synchronized (events) {
      events.add(new TaskCompletionEvent(events.size(), attemptId(key), key.task().index(),
          key.isMap(), status, ""));
    }
    poke();
  }

  void addDiagnostic(AttemptKey key, String text) {
    synchronized (diagnostics) {
      List<String> list = diagnostics.computeIfAbsent(key, k -> new ArrayList<>());
      if (!list.contains(text)) {
        list.add(text);
      }
    }
  }

  String[] diagnostics(org.apache.hadoop.mapreduce.TaskAttemptID attempt) {
    AttemptKey key = keyOf(attempt);
    synchronized (diagnostics) {
      List<String> list = diagnostics.get(key);
      return list == null ? new String[0] : list.toArray(new String[0]);
    }
  }

  TaskCompletionEvent[] events(int from, int max) {
    synchronized (events) {
      int end = Math.min(events.size(), from + max);
      if (from >= end) {
        return new TaskCompletionEvent[0];
      }
      return events.subList(from, end).toArray(new TaskCompletionEvent[0]);
    }
  }

  org.apache.hadoop.mapred.TaskAttemptID attemptId(AttemptKey key) {
    return new org.apache.hadoop.mapred.TaskAttemptID(new org.apache.hadoop.mapred.TaskID(id,
        key.isMap() ? TaskType.MAP : TaskType.REDUCE, key.task().index()), key.attempt());
  }

  static AttemptKey keyOf(org.apache.hadoop.mapreduce.TaskAttemptID attempt) {
    return new AttemptKey(new TaskKey(attempt.getTaskType() == TaskType.MAP,
        attempt.getTaskID().getId()), attempt.getId());
  }

  private void finish(JobStatus.State state, String why) {
    try {
      if (launcher != null) {
        launcher.stop(conf.getLong(HamConfig.STEP_EXIT_WAIT_MS,
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
      try {
        writeStatusRecord(state.name());
      } catch (Throwable t) {
        LOG.warn("Cannot write {}", dirs.status(), t);
      }
      runState = state.getValue();
      LOG.info("Job {} finished: {}{}", id, state, why == null ? "" : " (" + why + ")");
    }
  }

  org.apache.hadoop.mapred.JobStatus status() {
    TaskScheduler s = scheduler;
    float map = 0;
    float reduce = 0;
    if (s != null) {
      map = s.counts(true).progress();
      reduce = s.counts(false).progress();
    }
    return HamBridge.jobStatus(id, setupProgress, map, reduce, cleanupProgress, runState, user,
        conf.getJobName(), jobFile(), startTime, finishTime, failureInfo);
  }

  org.apache.hadoop.mapred.Counters counters() {
    return umbilical.counters();
  }

  private void writeStatus(boolean force) {
    long now = System.currentTimeMillis();
    if (!force && now - lastStatusWrite < HamConfig.STATUS_INTERVAL_MS) {
      return;
    }
    lastStatusWrite = now;
    try {
      writeStatusRecord(stateName(runState));
    } catch (Throwable t) {
      LOG.warn("Cannot write {}", dirs.status(), t);
    }
  }

  static String stateName(int runState) {
    for (JobStatus.State s : JobStatus.State.values()) {
      if (s.getValue() == runState) {
        return s.name();
      }
    }
    return "UNKNOWN";
  }

  private void writeStatusRecord(String state) throws IOException {
    Map<String, Object> r = new LinkedHashMap<>();
    TaskScheduler s = scheduler;
    r.put("job_id", id.toString());
    r.put("name", conf.getJobName());
    r.put("user", user);
    r.put("state", state);
    JobStatus st = status();
    r.put("map_progress", st.getMapProgress());
    r.put("reduce_progress", st.getReduceProgress());
    if (s != null) {
      r.put("maps", StatusRecord.counts(s.counts(true)));
      r.put("reduces", StatusRecord.counts(s.counts(false)));
    }
    r.put("start_time", startTime);
    r.put("finish_time", finishTime == 0 ? null : finishTime);
    r.put("counters", StatusRecord.counters(new org.apache.hadoop.mapreduce.Counters(counters())));
    r.put("attempts", s == null ? List.of()
        : StatusRecord.attempts(s.attempts(), k -> attemptId(k).toString()));
    List<String> errors = new ArrayList<>();
    if (failureInfo != null) {
      errors.add(failureInfo);
    }
    r.put("errors", errors);
    r.put("runners", launcher == null ? 0 : launcher.runnersStarted());
    r.put("runner_launches", launcher == null ? 0 : launcher.launches());
    StatusRecord.write(dirs.status(), r);
  }
}
