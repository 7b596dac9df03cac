package io.github.ham.mapreduce.runner;

import java.io.File;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.security.PrivilegedExceptionAction;
import java.util.Map;

import io.github.ham.mapreduce.common.HamConfig;
import io.github.ham.mapreduce.common.ids.RunnerId;
import io.github.ham.mapreduce.common.jobfiles.JobDirs;
import io.github.ham.mapreduce.common.jobfiles.MapOutputCheck;
import io.github.ham.mapreduce.common.protocol.BadMapOutput;
import io.github.ham.mapreduce.common.protocol.CredentialsSeal;
import io.github.ham.mapreduce.common.protocol.FreshJvm;
import io.github.ham.mapreduce.common.protocol.NetworkChoice;
import io.github.ham.mapreduce.common.protocol.RunnerClientConf;
import io.github.ham.mapreduce.common.protocol.RunnerUmbilical;

import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.ipc.RPC;
import org.apache.hadoop.mapred.HamBridge;
import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapred.JvmTask;
import org.apache.hadoop.mapred.MapOutputFile;
import org.apache.hadoop.mapred.ReduceTask;
import org.apache.hadoop.mapred.Task;
import org.apache.hadoop.mapred.TaskAttemptID;
import org.apache.hadoop.mapreduce.JobID;
import org.apache.hadoop.mapreduce.MRJobConfig;
import org.apache.hadoop.mapreduce.TaskType;
import org.apache.hadoop.mapreduce.security.TokenCache;
import org.apache.hadoop.mapreduce.security.token.JobTokenIdentifier;
import org.apache.hadoop.net.NetUtils;
import org.apache.hadoop.security.Credentials;
import org.apache.hadoop.security.SecurityUtil;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.security.token.Token;
import org.apache.hadoop.util.StringUtils;
import org.apache.hadoop.util.functional.RunnableRaisingIOE;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A task runner JVM (one per slot, started by the driver's srun step): asks the driver for a
 * task, runs the stock MapTask/ReduceTask, repeats; exits when told (or parks for a next job:
 * WarmPark), or when the driver has been unreachable for ham.runner.driver.timeout.ms. Its
 * working directory (the srun wrapper cd's there) is private to it: the attempt's cache links.
 * <p>Usage: {@code TaskRunner <driverHost> <port> <jobId>}; the job token comes in
 * {@code $HAM_JOB_TOKEN}, the job's runtime directory in {@code $HAM_JOB_RUNTIME_DIR}.
 */
public final class TaskRunner {
  private static final Logger LOG = LoggerFactory.getLogger(TaskRunner.class);
  /** As much of a failed attempt's stderr as YARN puts in a container's diagnostics. */
  private static final int STDERR_TAIL_BYTES = 4096;
  private static final long MB = 1024L * 1024;
  /** The JVM is going down (its shutdown hooks run): no more tasks are asked for. */
  private static volatile boolean exiting;

  private final RunnerUmbilical umbilical;
  /** What tasks are given as their umbilical: their end said in fewer calls. */
  private final TaskEndCalls calls;
  private final Token<JobTokenIdentifier> token;
  private final Credentials credentials = new Credentials();
  private final JobDirs dirs;
  private final File workDir;
  private final String host;
  private final String runnerId;
  private final org.apache.hadoop.mapred.JobID jobId;
  private final long pid;
  private final long driverTimeoutMs;
  private final long fsWaitMs;
  private final AttemptWatch watch;
  private UserGroupInformation taskUser;
  /** The job's shared state, built by its first task (null until then). */
  private RunnerJob runnerJob;
  /** Whether the job's credentials were fetched (before the first task: see credentials()). */
  private boolean haveCredentials;
  /** Not 0: exit with this after the task (its reason logged), else serve the next one. */
  private int exitAfterTask;

  private TaskRunner(RunnerUmbilical umbilical, Token<JobTokenIdentifier> token,
      JobDirs dirs, JobID jobId, String slot, long driverTimeoutMs, long fsWaitMs)
      throws IOException {
    this.umbilical = umbilical;
    this.token = token;
    this.dirs = dirs;
    this.driverTimeoutMs = driverTimeoutMs;
    this.fsWaitMs = fsWaitMs;
    TokenCache.setJobToken(token, credentials);
    this.workDir = new File(".").getCanonicalFile();
    this.host = nodeName();
    this.pid = ProcessHandle.current().pid();
    // A warm runner claimed by a later job takes the slot that job gives it (WarmPark).
    this.runnerId = RunnerId.of(host, slot != null ? slot : workDir.getName(), pid);
    this.jobId = org.apache.hadoop.mapred.JobID.downgrade(jobId);
    this.watch = new AttemptWatch(umbilical, runnerId);
    this.calls = new TaskEndCalls(umbilical, this.jobId, pid, runnerId);
  }

  /** The Slurm node name (what srun -w and scontrol take), else the short host name. */
  private static String nodeName() throws IOException {
    String h = System.getenv("SLURMD_NODENAME");
    if (h == null || h.isEmpty()) {
      h = InetAddress.getLocalHost().getHostName();
    }
    return h.contains(".") && !Character.isDigit(h.charAt(0)) ? h.substring(0, h.indexOf('.'))
        : h;
  }

  public static void main(String[] args) throws Exception {
    if (args.length != 3) {
      System.err.println("Usage: TaskRunner <driverHost> <port> <jobId>");
      System.exit(2);
    }
    ExitHook.install(() -> exiting = true);
    int code = 0;
    try {
      code = WarmPark.serve(new WarmPark.Job(args[0], Integer.parseInt(args[1]), args[2],
          System.getenv(HamConfig.ENV_JOB_TOKEN), System.getenv(HamConfig.ENV_JOB_RUNTIME_DIR),
          null), WarmPark.fromEnv(System.getenv(), nodeName()), TaskRunner::run, () -> exiting);
    } catch (Throwable t) {
      LOG.error("Task runner failed", t);
      code = 1;
    }
    System.exit(code);
  }

  private static int run(WarmPark.Job job) throws Exception {
    String driverHost = job.driverHost();
    String runtimeDir = job.runtimeDir();
    JobID jobId = JobID.forName(job.jobId());
    JobConf conf = new JobConf();
    RunnerClientConf.apply(conf);
    UserGroupInformation.setConfiguration(conf);
    SecurityUtil.setConfiguration(conf);
    if (job.token() == null || runtimeDir == null) {
      throw new IOException(HamConfig.ENV_JOB_TOKEN + " and " + HamConfig.ENV_JOB_RUNTIME_DIR
          + " must be set in the environment");
    }
    // A node off the job's network would reach the driver over another one, or not at all:
    // the driver fails the job on this exit status, naming the node.
    String network = conf.getTrimmed(HamConfig.NETWORK, "");
    if (!network.isEmpty()) {
      String problem = NetworkChoice.check(network, nodeName(), driverHost);
      if (problem != null) {
        LOG.error(problem);
        return NetworkChoice.EXIT_NOT_ON_NETWORK;
      }
    }
    Token<JobTokenIdentifier> token = new Token<>();
    token.decodeFromUrlString(job.token());
    InetSocketAddress address = NetUtils.createSocketAddrForHost(driverHost, job.port());
    SecurityUtil.setTokenService(token, address);
    UserGroupInformation owner = UserGroupInformation.createRemoteUser(jobId.toString());
    owner.addToken(token);
    RunnerUmbilical umbilical = owner.doAs(
        (PrivilegedExceptionAction<RunnerUmbilical>) () -> RPC.getProxy(
            RunnerUmbilical.class, RunnerUmbilical.versionID, address, conf));
    try {
      // The runner is created in this thread, which runs its tasks (TaskEndCalls).
      TaskRunner runner = new TaskRunner(umbilical, token, new JobDirs(new File(runtimeDir)),
          jobId, job.slot(), conf.getLong(HamConfig.RUNNER_DRIVER_TIMEOUT_MS,
              HamConfig.DEFAULT_RUNNER_DRIVER_TIMEOUT_MS),
          conf.getLong(HamConfig.RUNNER_FS_WAIT_MS, HamConfig.DEFAULT_RUNNER_FS_WAIT_MS));
      runner.watch.start();
      try {
        return runner.loop();
      } finally {
        // Each step whatever the others do, and none in place of the loop's exit status: a
        // class left uninitialized (FreshJvm) may be Hadoop's FileSystem itself.
        cleanUp("the job's state", runner::closeJob);
        cleanUp("the memory watch", runner.watch::stop);
        cleanUp("the job user's file systems (a next job has its own user)",
            () -> FileSystem.closeAllForUGI(runner.user(null)));
      }
    } finally {
      RPC.stopProxy(umbilical);
    }
  }

  /** A step of the clean-up after a job, which must not stop the others. */
  private static void cleanUp(String what, RunnableRaisingIOE step) {
    try {
      step.apply();
    } catch (Throwable t) {
      LOG.warn("Cannot clean up {}: {}", what, t.toString());
    }
  }

  private int loop() throws InterruptedException {
    // A warm runner claimed by the next job calls its driver with the rest of its step too.
    ConnectPacing pacing = ConnectPacing.firstCall(runnerId);
    long lastContact = System.currentTimeMillis();
    IdleBackoff idle = new IdleBackoff();
    while (true) {
      if (exiting) {
        return 0;  // the JVM is already ending (System.exit from a task, a signal)
      }
      JvmTask next;
      long asked = System.currentTimeMillis();
      try {
        next = calls.nextTask();
        lastContact = System.currentTimeMillis();
        pacing.reset();
      } catch (IOException e) {
        long silent = System.currentTimeMillis() - lastContact;
        if (silent > driverTimeoutMs) {
          LOG.error("Driver unreachable for {} ms; exiting: {}", silent, e.toString());
          return 3;
        }
        Thread.sleep(Math.min(pacing.nextRetryMs(), Math.max(1, driverTimeoutMs - silent)));
        continue;
      }
      if (next != null && next.shouldDie()) {
        LOG.info("Driver has no more work");
        return WarmPark.TOLD_TO_EXIT;
      }
      if (next == null || next.getTask() == null) {
        Thread.sleep(idle.pauseMs(lastContact - asked));
        continue;
      }
      idle.reset();
      runTask(next.getTask());
      if (exitAfterTask != 0) {
        calls.sayHeldEnd();
        return exitAfterTask;
      }
      lastContact = System.currentTimeMillis();
    }
  }

  private void runTask(Task task) {
    TaskAttemptID attempt = task.getTaskID();
    LOG.info("Running {}", attempt);
    ClassLoader saved = Thread.currentThread().getContextClassLoader();
    AttemptLogs logs = null;
    Map<TaskAttemptID, MapOutputFile> mapFiles = null;
    JobConf taskConf = null;
    boolean started = false;
    try {
      // A node whose client never came back is no place for the next task: this attempt
      // fails as it would have, and the runner exits (lost: the driver looks at the node).
      if (!SharedFsProbe.awaitAnswer(dirs.root(), fsWaitMs, () -> ping(attempt), attempt)) {
        LOG.error("The shared file system does not answer on this node; exiting after {}",
            attempt);
        exitAfterTask = 4;
      }
      TaskSetup.clearWorkDir(workDir);
      logs = new AttemptLogs(dirs, attempt.toString(), host);
      fetchCredentials();
      RunnerJob shared = jobOf(task);
      Thread.currentThread().setContextClassLoader(shared.classLoader());
      JobConf job = shared.newTaskConf();
      logs.useLevel(job.get(task.isMapTask() ? MRJobConfig.MAP_LOG_LEVEL
          : MRJobConfig.REDUCE_LOG_LEVEL, "INFO"));
      mapFiles = TaskSetup.configure(job, task, shared, dirs, workDir, credentials, token);
      taskConf = job;
      if (mapFiles != null && job.getBoolean(HamConfig.PRECHECK_MAP_OUTPUT,
          HamConfig.DEFAULT_PRECHECK_MAP_OUTPUT)) {
        // Missing, truncated or damaged map output: name the maps before the shuffle fails.
        Map<String, String> bad = MapOutputCheck.quick(mapFiles, task.getPartition(), job,
            () -> ping(attempt));
        if (!bad.isEmpty()) {
          throw new BadMapOutput.Exception(BadMapOutput.describe(bad));
        }
      }
      final JobConf runConf = job;
      started = true;
      watch.begin(attempt, job.getBoolean(HamConfig.MEMORY_CHECK, HamConfig.DEFAULT_MEMORY_CHECK)
          ? job.getMemoryRequired(task.isMapTask() ? TaskType.MAP : TaskType.REDUCE) * MB : 0,
          job.getLong(HamConfig.MEMORY_CHECK_INTERVAL_MS,
              HamConfig.DEFAULT_MEMORY_CHECK_INTERVAL_MS));
      // A task's FILE_/LUSTRE_BYTES_READ etc. are the JVM's file system statistics, set (not
      // added) from their totals (Task.FileSystemStatisticUpdater), as in YARN's one JVM per
      // task; in a runner that served earlier tasks they would include theirs.
      FileSystem.clearStatistics();
      user(HamBridge.userOf(task)).doAs((PrivilegedExceptionAction<Void>) () -> {
        task.run(runConf, calls.forTask());
        return null;
      });
      LOG.info("Finished {}", attempt);
    } catch (Throwable t) {
      LOG.warn("Attempt {} failed", attempt, t);
      if (exitAfterTask == 0 && FreshJvm.needed(t, TaskRunner.class.getClassLoader())) {
        LOG.error("A class failed to initialize in this runner's JVM; exiting for a fresh one");
        exitAfterTask = FreshJvm.EXIT_STATUS;
      }
      String trace = StringUtils.stringifyException(t);
      if (t instanceof BadMapOutput.Exception) {
        trace = t.getMessage() + trace;
      } else if (mapFiles != null && taskConf != null && SharedMapOutputFile.readingMapOutput(t)) {
        // A reduce failed: if some map's segment is unreadable (checksum, truncation), say
        // which, so the driver re-runs that map rather than retrying the reduce on it.
        try {
          Map<String, String> bad = MapOutputCheck.full(mapFiles, task.getPartition(), taskConf,
              () -> ping(attempt));
          if (!bad.isEmpty()) {
            trace = BadMapOutput.describe(bad) + trace;
          }
        } catch (Throwable e) {
          LOG.info("Cannot check the map outputs of {}: {}", attempt, e.toString());
        }
      }
      if (logs != null) {
        String tail = logs.stderrTail(STDERR_TAIL_BYTES).strip();
        System.err.println(trace);
        if (!tail.isEmpty()) {
          trace = trace + "\nLast " + STDERR_TAIL_BYTES + " bytes of stderr :\n" + tail;
        }
      }
      if (started) {
        HamBridge.endReporter(task);
        try {
          HamBridge.taskCleanup(task, calls.forTask());
        } catch (Throwable e) {
          LOG.info("Cleanup of {} failed: {}", attempt, e.toString());
        }
      }
      try {
        calls.forTask().fatalError(attempt, trace, false);
      } catch (IOException e) {
        LOG.warn("Cannot report the failure of {}: {}", attempt, e.toString());
      }
      if (t instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      if (runnerJob != null && SharedFsProbe.mayBeJobState(t, dirs.root())) {
        // Its jar's file handle died with a file-system server that restarted (every class
        // missing from then on): the next task builds the job's state anew.
        LOG.warn("Dropping the job's state after {} failed: {}", attempt, t.toString());
        closeJob();
      }
    } finally {
      watch.end();
      if (logs != null) {
        logs.close();
      }
      Thread.currentThread().setContextClassLoader(saved);
    }
  }

  /**
   * The job's credentials from the driver (secret keys, tokens, the intermediate-data key), as
   * a YARN container reads them from its localized token file. Asked for with the first task,
   * not at start: the runner may start before the job is submitted (driver.EarlyRunners).
   */
  private void fetchCredentials() throws IOException {
    if (!haveCredentials) {
      credentials.addAll(CredentialsSeal.open(umbilical.getJobCredentials().copyBytes(),
          token.getPassword()));
      haveCredentials = true;
    }
  }

  /**
   * The shared state of the task's job, built on its first task. A runner serves one job, so
   * this is built once; should a task come with another job file, that job's state replaces it.
   */
  private RunnerJob jobOf(Task task) throws IOException {
    if (runnerJob == null || !runnerJob.isFor(task.getJobFile())) {
      closeJob();
      runnerJob = new RunnerJob(task.getJobFile(), dirs, workDir);
    }
    return runnerJob;
  }

  private void closeJob() {
    if (runnerJob != null) {
      try {
        runnerJob.close();
      } catch (IOException e) {
        LOG.debug("Closing the class loader of the job failed", e);
      }
      runnerJob = null;
    }
  }

  /** Tells the driver the attempt is alive while the runner itself works for it. */
  private void ping(TaskAttemptID attempt) {
    try {
      umbilical.statusUpdate(attempt, null);
    } catch (IOException e) {
      LOG.debug("Ping for {} failed", attempt, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private UserGroupInformation user(String name) {
    if (taskUser == null) {
      taskUser = UserGroupInformation.createRemoteUser(name == null ? "ham" : name);
      taskUser.addCredentials(credentials);
    }
    return taskUser;
  }
}
