package io.github.ham.mapreduce.driver;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.github.ham.mapreduce.common.CredentialsSeal;
import io.github.ham.mapreduce.common.HamConfig;
import io.github.ham.mapreduce.common.JobDirs;
import io.github.ham.mapreduce.driver.slurm.Allocation;
import io.github.ham.mapreduce.driver.slurm.RunnerLauncher;

import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapred.JobID;
import org.apache.hadoop.security.Credentials;

/**
 * What a job's driver runs besides its lifecycle, wired together: the IPC server (the
 * umbilical for runners, DriverControl for clients) and its control file, and the runners'
 * launcher and supervisor, fitted to the allocation. Started once per job.
 */
final class DriverServices {
  final UmbilicalServer server;
  final RunnerLauncher launcher;
  final RunnerSupervisor supervisor;

  private DriverServices(UmbilicalServer server, RunnerLauncher launcher,
      RunnerSupervisor supervisor) {
    this.server = server;
    this.launcher = launcher;
    this.supervisor = supervisor;
  }

  static DriverServices start(JobConf conf, JobID id, JobDirs dirs, Credentials credentials,
      TaskScheduler scheduler, JobTasks tasks, JobEvents events, JobCounters counters,
      AttemptIds ids, JobControl control, Runnable allocationEnded) throws IOException {
    RunnerTracker tracker = new RunnerTracker();
    UmbilicalServer server = new UmbilicalServer(conf, id, credentials);
    byte[] sealed = CredentialsSeal.seal(credentials, server.jobTokenPassword());
    server.start(new DriverUmbilical(scheduler, tracker, tasks, events, counters, ids, sealed),
        control);
    server.controlFile().write(dirs.control());
    // The runners' environment: the job token (never on a command line) and where they are.
    Map<String, String> env = new LinkedHashMap<>();
    env.put(HamConfig.ENV_JOB_TOKEN, server.encodedToken());
    env.put(HamConfig.ENV_JOB_RUNTIME_DIR, dirs.root().getAbsolutePath());
    String confDir = System.getenv("HADOOP_CONF_DIR");
    if (confDir != null) {
      env.put("HADOOP_CONF_DIR", confDir);
    }
    RunnerLauncher launcher = new RunnerLauncher(conf, dirs, server.host(), server.port(),
        id.toString(), env);
    Allocation allocation = Allocation.current(conf);
    List<RunnerSpec> specs = RunnerSpec.of(conf, allocation.cpus(), allocation.memoryMb());
    return new DriverServices(server, launcher,
        new RunnerSupervisor(conf, launcher, tracker, scheduler, events, specs,
            allocationEnded));
  }
}
