package io.github.ham.mapreduce.driver;

import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.github.ham.mapreduce.common.HamConfig;
import io.github.ham.mapreduce.common.jobfiles.JobDirs;
import io.github.ham.mapreduce.common.protocol.CredentialsSeal;
import io.github.ham.mapreduce.common.protocol.DriverControl;
import io.github.ham.mapreduce.driver.ipc.DriverUmbilical;
import io.github.ham.mapreduce.driver.ipc.JobControl;
import io.github.ham.mapreduce.driver.ipc.JobTasks;
import io.github.ham.mapreduce.driver.ipc.UmbilicalServer;
import io.github.ham.mapreduce.driver.launch.RunnerLauncher;
import io.github.ham.mapreduce.driver.launch.RunnerPlatform;
import io.github.ham.mapreduce.driver.launch.RunnerSpec;
import io.github.ham.mapreduce.driver.launch.RunnerSupervisor;
import io.github.ham.mapreduce.driver.launch.RunnerTracker;
import io.github.ham.mapreduce.driver.report.JobCounters;
import io.github.ham.mapreduce.driver.report.JobEvents;
import io.github.ham.mapreduce.driver.schedule.AttemptIds;
import io.github.ham.mapreduce.driver.schedule.TaskScheduler;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapred.JobID;
import org.apache.hadoop.security.Credentials;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a job's driver runs besides its lifecycle, wired together: the IPC server (the
 * umbilical for runners, DriverControl for clients) and its control file, and the runners'
 * launcher and supervisor, fitted to the allocation.
 *
 * <p>In two steps, so that the runners can start while the client is still staging the job:
 * {@link #open} needs only the job's id and the client's configuration (the server, the
 * launcher, and with {@code early} the first runners, which then wait for tasks); {@link #bind}
 * gives it the submitted job. A runner JVM takes about a second to start and the client about
 * as long to stage a job after it has its id, so the two overlap
 * ({@link EarlyRunners}). If the submitted job wants other runners than those started (other
 * JVM options, memory or environment than the client's configuration said), they are stopped
 * and the job's own started.
 */
final class DriverServices {
  private static final Logger LOG = LoggerFactory.getLogger(DriverServices.class);
  final UmbilicalServer server;
  final RunnerLauncher launcher;
  private final RunnerTracker tracker;
  private final DriverUmbilical umbilical;
  private final ControlSwitch control;
  private final JobDirs dirs;
  private final RunnerPlatform platform;
  /** The runners started by open(), with the generation they are (null: none). */
  private RunnerSpec earlySpec;
  private int earlyGeneration = -1;
  RunnerSupervisor supervisor;

  private DriverServices(UmbilicalServer server, RunnerLauncher launcher, RunnerTracker tracker,
      DriverUmbilical umbilical, ControlSwitch control, JobDirs dirs, RunnerPlatform platform) {
    this.server = server;
    this.launcher = launcher;
    this.tracker = tracker;
    this.umbilical = umbilical;
    this.control = control;
    this.dirs = dirs;
    this.platform = platform;
  }

  /**
   * Starts the server and the launcher of job {@code id} on {@code platform} from {@code conf}
   * (the submitted job's, or the client's before it submits); with {@code early}, also the
   * runners this configuration asks for first (map runners, or the runners of every task).
   */
  static DriverServices open(RunnerPlatform platform, Configuration conf, JobID id,
      JobDirs dirs, boolean early) throws IOException {
    RunnerTracker tracker = new RunnerTracker();
    UmbilicalServer server = new UmbilicalServer(conf, id);
    DriverUmbilical umbilical = new DriverUmbilical(tracker, new AttemptIds(id),
        conf.getLong(HamConfig.HEARTBEAT_TIMEOUT_MS, HamConfig.DEFAULT_HEARTBEAT_TIMEOUT_MS));
    DriverServices services;
    try {
      ControlSwitch control = new ControlSwitch();
      server.start(umbilical, control.proxy());
      // The runners' environment: the job token (never on a command line) and where they are.
      Map<String, String> env = new LinkedHashMap<>();
      env.put(HamConfig.ENV_JOB_TOKEN, server.encodedToken());
      env.put(HamConfig.ENV_JOB_RUNTIME_DIR, dirs.root().getAbsolutePath());
      String confDir = System.getenv("HADOOP_CONF_DIR");
      if (confDir != null) {
        env.put("HADOOP_CONF_DIR", confDir);
      }
      RunnerLauncher launcher = new RunnerLauncher(platform, conf, dirs, server.host(),
          server.port(), id.toString(), env);
      services = new DriverServices(server, launcher, tracker, umbilical, control, dirs,
          platform);
    } catch (IOException | RuntimeException e) {
      umbilical.close();
      server.stop();
      throw e;
    }
    if (early) {
      RunnerSpec first = services.specs(new JobConf(conf)).get(0);
      services.earlyGeneration = RunnerSupervisor.startGeneration(services.launcher, tracker,
          first);
      services.earlySpec = first;
    }
    return services;
  }

  private List<RunnerSpec> specs(JobConf conf) {
    return RunnerSpec.of(conf, platform);
  }

  /**
   * Whether the runners started early are what the submitted job {@code conf} starts first
   * (else they are stopped and these services are of no use to it).
   */
  boolean fits(JobConf conf) {
    return earlySpec != null && specs(conf).get(0).equals(earlySpec);
  }

  /** Stops what open() started: the job will not come, or wants other runners. */
  void discard(String why) {
    LOG.info("Stopping the runners started for {} before it was submitted: {}",
        dirs.root().getName(), why);
    launcher.kill();
    stopServer();
  }

  /** No runner or client reaches the driver any more. */
  void stopServer() {
    umbilical.close();
    server.stop();
  }

  /**
   * The job is submitted: its credentials get the job token (and the intermediate-data key)
   * and reach the runners sealed, its tasks are handed out, clients may find it (its control
   * file), and the supervisor looks after the runners from now on (those started early
   * included).
   */
  void bind(JobConf conf, Credentials credentials, TaskScheduler scheduler, JobTasks tasks,
      JobEvents events, JobCounters counters, JobControl jobControl, Runnable allocationEnded)
      throws IOException {
    server.addTo(credentials, conf);
    umbilical.bind(scheduler, tasks, events, counters,
        CredentialsSeal.seal(credentials, server.jobTokenPassword()));
    control.set(jobControl);
    server.controlFile().write(dirs.control());
    supervisor = new RunnerSupervisor(conf, launcher, tracker, scheduler, events, specs(conf),
        allocationEnded);
    if (earlySpec != null) {
      supervisor.adopt(earlySpec.kind(), earlyGeneration);
    }
    // Recognisable among Slurm's jobs (squeue %k, sacct's Comment): the Hadoop job it runs.
    platform.describe("ham " + dirs.root().getName() + " " + conf.getJobName());
  }

  /** Stops every runner now, and for good (see RunnerSupervisor.kill). */
  void killRunners() {
    if (supervisor != null) {
      supervisor.kill();
    } else {
      launcher.kill();
    }
  }

  /** Lets the runners exit on their own for up to {@code waitMs}, then stops them. */
  void stopRunners(long waitMs) {
    boolean idle = supervisor != null && supervisor.runnersIdle();
    launcher.stop(waitMs, idle, idle ? tracker.reached() : 0);
  }

  /**
   * The server's DriverControl: the job's once it is bound, "not submitted yet" before (the
   * server starts before the job exists, and a protocol cannot safely be added to a running
   * Hadoop server).
   */
  private static final class ControlSwitch {
    private volatile DriverControl job;

    void set(DriverControl control) {
      this.job = control;
    }

    DriverControl proxy() {
      return (DriverControl) Proxy.newProxyInstance(DriverControl.class.getClassLoader(),
          new Class<?>[] {DriverControl.class}, (p, method, args) -> {
            DriverControl c = job;
            if (c == null) {
              if (method.getName().equals("getProtocolVersion")) {
                return DriverControl.versionID;
              }
              throw new IOException("The job is not submitted yet");
            }
            try {
              return method.invoke(c, args);
            } catch (InvocationTargetException e) {
              throw e.getCause();
            }
          });
    }
  }
}
