package io.github.ham.mapreduce.client;

import java.io.File;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.security.PrivilegedExceptionAction;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import io.github.ham.mapreduce.common.HamConfig;
import io.github.ham.mapreduce.common.jobfiles.JobDirs;
import io.github.ham.mapreduce.common.protocol.ControlFile;
import io.github.ham.mapreduce.common.protocol.DriverControl;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.ipc.RPC;
import org.apache.hadoop.mapreduce.security.token.JobTokenIdentifier;
import org.apache.hadoop.net.NetUtils;
import org.apache.hadoop.security.SecurityUtil;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.security.token.Token;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The user's HAM jobs as another process finds them: under the user's directory on the shared
 * file system ({@code <shared_root>/<user>/<slurm job>/jobs/<job id>/}, the parent of
 * ham.job.dir), each job directory with its status record and, while its driver runs, its
 * control file. Other users' directories are not readable, so their jobs are not found.
 */
final class JobFinder {
  private static final Logger LOG = LoggerFactory.getLogger(JobFinder.class);
  private final Configuration conf;
  private final File userRoot;

  JobFinder(Configuration conf) {
    this.conf = conf;
    String jobDir = conf.getTrimmed(HamConfig.JOB_DIR, "");
    this.userRoot = jobDir.isEmpty() ? null : new File(jobDir).getAbsoluteFile().getParentFile();
  }

  /** The runtime directory of every job of the user, oldest session first. */
  List<JobDirs> all() {
    List<JobDirs> out = new ArrayList<>();
    File[] sessions = userRoot == null ? null : userRoot.listFiles(File::isDirectory);
    if (sessions == null) {
      return out;
    }
    Arrays.sort(sessions);
    for (File session : sessions) {
      File[] jobs = new File(session, JobDirs.JOBS).listFiles(File::isDirectory);
      if (jobs != null) {
        Arrays.sort(jobs);
        for (File job : jobs) {
          out.add(new JobDirs(job));
        }
      }
    }
    return out;
  }

  /** The job's directory, or null when the user has no such job. */
  JobDirs find(String jobId) {
    for (JobDirs d : all()) {
      if (d.root().getName().equals(jobId)) {
        return d;
      }
    }
    return null;
  }

  /**
   * The job's driver over its IPC while it runs, else its status record; null if the job has
   * no record yet.
   */
  DriverControl open(JobDirs dirs) throws IOException {
    ControlFile control = ControlFile.read(dirs.control());
    if (control != null) {
      try {
        return connect(control);
      } catch (IOException e) {
        LOG.debug("Driver of {} unreachable; using its status record", dirs.root(), e);
      }
    }
    return dirs.status().isFile() ? new RecordedJob(dirs.status(), dirs.jobConf()) : null;
  }

  private DriverControl connect(ControlFile control) throws IOException {
    Token<JobTokenIdentifier> token = new Token<>();
    token.decodeFromUrlString(control.token());
    InetSocketAddress address = NetUtils.createSocketAddrForHost(control.host(),
        control.port());
    SecurityUtil.setTokenService(token, address);
    UserGroupInformation ugi = UserGroupInformation.createRemoteUser("ham-client");
    ugi.addToken(token);
    Configuration c = new Configuration(conf);
    c.setInt("ipc.client.connect.max.retries", 1);
    c.setInt("ipc.client.connect.timeout", 5000);
    DriverControl proxy;
    try {
      proxy = ugi.doAs((PrivilegedExceptionAction<DriverControl>) () ->
          RPC.getProxy(DriverControl.class, DriverControl.versionID, address, c));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException(e);
    }
    try {
      proxy.getJobStatus();  // fails here, not later, if the driver is gone
      return proxy;
    } catch (IOException | RuntimeException e) {
      RPC.stopProxy(proxy);
      throw e;
    }
  }
}
