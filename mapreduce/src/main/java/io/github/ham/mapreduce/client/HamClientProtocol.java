package io.github.ham.mapreduce.client;

import java.io.Closeable;
import java.io.IOException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.ham.mapreduce.common.HamConfig;
import io.github.ham.mapreduce.common.jobfiles.JobDirs;
import io.github.ham.mapreduce.common.protocol.DriverControl;
import io.github.ham.mapreduce.driver.EarlyRunners;
import io.github.ham.mapreduce.driver.HamJob;
import io.github.ham.mapreduce.driver.RunnerPlatforms;
import io.github.ham.mapreduce.driver.launch.RunnerPlatform;
import io.github.ham.mapreduce.driver.launch.RunnerSpec;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.ipc.ProtocolSignature;
import org.apache.hadoop.ipc.RPC;
import org.apache.hadoop.ipc.RemoteException;
import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapreduce.ClusterMetrics;
import org.apache.hadoop.mapreduce.Counters;
import org.apache.hadoop.mapreduce.JobID;
import org.apache.hadoop.mapreduce.JobStatus;
import org.apache.hadoop.mapreduce.QueueAclsInfo;
import org.apache.hadoop.mapreduce.QueueInfo;
import org.apache.hadoop.mapreduce.TaskAttemptID;
import org.apache.hadoop.mapreduce.TaskCompletionEvent;
import org.apache.hadoop.mapreduce.TaskReport;
import org.apache.hadoop.mapreduce.TaskTrackerInfo;
import org.apache.hadoop.mapreduce.TaskType;
import org.apache.hadoop.mapreduce.protocol.ClientProtocol;
import org.apache.hadoop.mapreduce.security.token.delegation.DelegationTokenIdentifier;
import org.apache.hadoop.mapreduce.v2.LogParams;
import org.apache.hadoop.mapreduce.v2.util.MRApps;
import org.apache.hadoop.security.Credentials;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.security.authorize.AccessControlList;
import org.apache.hadoop.security.token.Token;
import org.apache.hadoop.mapreduce.Cluster.JobTrackerStatus;

/**
 * The client side of HAM, in any JVM with mapreduce.framework.name=ham: submits jobs to a
 * driver in this JVM, and answers for the user's jobs wherever they run: this JVM's drivers
 * directly, other running drivers over their IPC (found through the user's job directories),
 * and ended jobs from their status records (see {@link JobFinder}).
 */
public class HamClientProtocol implements ClientProtocol, Closeable {
  private static final AtomicInteger NEXT_ID = new AtomicInteger();
  private static final String CLUSTER_ID = Long.toString(System.currentTimeMillis());
  private static final Map<String, HamJob> JOBS = new ConcurrentHashMap<>();
  /** Runners started for job ids given out, until their job is submitted. */
  private static final Map<String, EarlyRunners> EARLY = new ConcurrentHashMap<>();
  private final Configuration conf;
  /** Where this client's early runners start, and what its cluster metrics describe. */
  private final RunnerPlatform platform;
  private final JobFinder finder;
  /** Connections to other JVMs' drivers, closed with this client. */
  private final Map<String, DriverControl> remote = new ConcurrentHashMap<>();

  public HamClientProtocol(Configuration conf) {
    this.conf = conf;
    this.platform = RunnerPlatforms.of(conf);
    this.finder = new JobFinder(conf);
  }

  @Override
  public long getProtocolVersion(String protocol, long clientVersion) {
    return ClientProtocol.versionID;
  }

  @Override
  public ProtocolSignature getProtocolSignature(String protocol, long clientVersion,
      int clientMethodsHash) throws IOException {
    return ProtocolSignature.getProtocolSignature(this, protocol, clientVersion,
        clientMethodsHash);
  }

  @Override
  public JobID getNewJobID() {
    JobID id = new JobID(CLUSTER_ID, NEXT_ID.incrementAndGet());
    // The client stages the job now (about a second): its runners start meanwhile.
    EarlyRunners early = EarlyRunners.start(platform, conf,
        org.apache.hadoop.mapred.JobID.downgrade(id));
    if (early != null) {
      EARLY.put(id.toString(), early);
    }
    return id;
  }

  @Override
  public JobStatus submitJob(JobID jobId, String jobSubmitDir, Credentials ts)
      throws IOException {
    HamJob job = new HamJob(org.apache.hadoop.mapred.JobID.downgrade(jobId), jobSubmitDir, ts,
        EARLY.remove(jobId.toString()));
    JobKeys.warnIgnored(job.conf());
    return start(job);
  }

  /**
   * Starts run {@code run} of a job that stopped before it finished, in this JVM, from its
   * staged files ({@link ResumeJob}); {@code current} holds this allocation's ham.* keys.
   */
  static JobStatus resume(JobID jobId, String jobSubmitDir, int run, Configuration current)
      throws IOException {
    return start(new HamJob(org.apache.hadoop.mapred.JobID.downgrade(jobId), jobSubmitDir,
        new Credentials(), run, current));
  }

  private static JobStatus start(HamJob job) throws IOException {
    JOBS.put(job.status().getJobID().toString(), job);
    job.start();
    return job.status();
  }

  /** The job, wherever it runs or ran; null if the user has no such job. */
  private DriverControl control(JobID id) throws IOException {
    HamJob local = JOBS.get(String.valueOf(id));
    if (local != null) {
      return local.control() != null ? local.control() : new Preparing(local);
    }
    DriverControl open = remote.get(String.valueOf(id));
    if (open != null) {
      return open;
    }
    JobDirs dirs = finder.find(String.valueOf(id));
    DriverControl found = dirs == null ? null : finder.open(dirs);
    if (found != null && !(found instanceof RecordedJob)) {
      remote.put(String.valueOf(id), found);
    }
    return found;
  }

  private static IOException unknown(JobID id) {
    return new IOException("Unknown job " + id + " (HAM finds the jobs of the user under the "
        + "parent of " + HamConfig.JOB_DIR + ")");
  }

  private DriverControl required(JobID id) throws IOException {
    DriverControl c = control(id);
    if (c == null) {
      throw unknown(id);
    }
    return c;
  }

  /** A question to one job's driver (or its record). */
  private interface Query<T> {
    T ask(DriverControl job) throws IOException;
  }

  /**
   * Asks the job; if the driver this client was connected to has gone since (its job ended and
   * its JVM exited: the connection fails, not the call), the job is found again and answers
   * from its status record, as YARN's client turns to the history server once the
   * ApplicationMaster has exited. A kill is never repeated this way.
   */
  private <T> T ask(JobID id, DriverControl job, Query<T> query) throws IOException {
    try {
      return query.ask(job);
    } catch (RemoteException e) {
      throw e;  // the driver answered: with an error
    } catch (IOException e) {
      if (!remote.remove(String.valueOf(id), job)) {
        throw e;
      }
      RPC.stopProxy(job);
      return query.ask(required(id));
    }
  }

  @Override
  public JobStatus getJobStatus(JobID jobid) throws IOException {
    DriverControl c = control(jobid);
    return c == null ? null : ask(jobid, c, DriverControl::getJobStatus);
  }

  @Override
  public Counters getJobCounters(JobID jobid) throws IOException {
    return ask(jobid, required(jobid), DriverControl::getJobCounters);
  }

  @Override
  public TaskCompletionEvent[] getTaskCompletionEvents(JobID jobid, int fromEventId,
      int maxEvents) throws IOException {
    return ask(jobid, required(jobid), c -> c.getTaskCompletionEvents(fromEventId, maxEvents));
  }

  @Override
  public String[] getTaskDiagnostics(TaskAttemptID taskId) throws IOException {
    JobID id = taskId.getJobID();
    return ask(id, required(id), c -> c.getTaskDiagnostics(taskId));
  }

  @Override
  public void killJob(JobID jobid) throws IOException {
    required(jobid).killJob();
  }

  @Override
  public boolean killTask(TaskAttemptID taskId, boolean shouldFail) throws IOException {
    return required(taskId.getJobID()).killTask(taskId, shouldFail);
  }

  @Override
  public void setJobPriority(JobID jobid, String priority) {
    // Single-job driver: priorities have no meaning.
  }

  @Override
  public TaskReport[] getTaskReports(JobID jobid, TaskType type) throws IOException {
    return ask(jobid, required(jobid), c -> c.getTaskReports(type));
  }

  @Override
  public String getFilesystemName() throws IOException {
    return FileSystem.get(conf).getUri().toString();
  }

  /** This JVM's jobs, and every job of the user found in the job directories. */
  @Override
  public JobStatus[] getAllJobs() throws IOException {
    Map<String, JobStatus> all = new java.util.LinkedHashMap<>();
    for (JobDirs dirs : finder.all()) {
      JobStatus status = getJobStatus(JobID.forName(dirs.root().getName()));
      if (status != null) {
        all.put(dirs.root().getName(), status);
      }
    }
    for (HamJob job : JOBS.values()) {
      JobStatus status = job.status();
      all.put(status.getJobID().toString(), status);
    }
    return all.values().toArray(new JobStatus[0]);
  }

  @Override
  public void close() {
    for (DriverControl c : remote.values()) {
      RPC.stopProxy(c);
    }
    remote.clear();
  }

  /**
   * The allocation as a YARN cluster of its size: a tracker per node, a map (reduce) slot per
   * runner it holds for maps (reduces). Programs that size themselves from the cluster (the
   * examples' sort: reduces = 0.9 x reduce slots; randomwriter: maps per tracker) then behave
   * as on YARN.
   */
  @Override
  public ClusterMetrics getClusterMetrics() {
    JobConf job = new JobConf(conf);
    return new ClusterMetrics(0, 0, 0, 0, 0, 0, RunnerSpec.slots(job, true, platform),
        RunnerSpec.slots(job, false, platform), JOBS.size(), platform.allocation().nodes(), 0,
        0);
  }

  @Override
  public JobTrackerStatus getJobTrackerStatus() {
    return JobTrackerStatus.RUNNING;
  }

  @Override
  public long getTaskTrackerExpiryInterval() {
    return 0;
  }

  @Override
  public AccessControlList getQueueAdmins(String queueName) {
    return new AccessControlList(" ");
  }

  @Override
  public TaskTrackerInfo[] getActiveTrackers() {
    return platform.nodeNames().stream().map(n -> new TaskTrackerInfo("tracker_" + n))
        .toArray(TaskTrackerInfo[]::new);
  }

  @Override
  public TaskTrackerInfo[] getBlacklistedTrackers() {
    return new TaskTrackerInfo[0];
  }

  @Override
  public String getSystemDir() throws IOException {
    return onSharedMount(new Path(jobRoot(), "system"));
  }

  private String jobRoot() throws IOException {
    String dir = conf.getTrimmed(HamConfig.JOB_DIR);
    if (dir != null && !dir.isEmpty()) {
      return dir;
    }
    return new Path(conf.get("hadoop.tmp.dir", "/tmp"), "ham-"
        + UserGroupInformation.getCurrentUser().getShortUserName()).toString();
  }

  /**
   * HAM's own directories are paths on the shared mount (ham.job.dir): a path without a scheme
   * is a file:// one, whatever fs.defaultFS says (with lustre:/// it would otherwise be taken
   * as under fs.root.dir). A path with a scheme stays on its file system.
   */
  private String onSharedMount(Path dir) throws IOException {
    FileSystem fs = dir.toUri().getScheme() == null ? FileSystem.getLocal(conf)
        : dir.getFileSystem(conf);
    return fs.makeQualified(dir).toString();
  }

  @Override
  public String getStagingAreaDir() throws IOException {
    String user = UserGroupInformation.getCurrentUser().getShortUserName();
    Configuration c = new Configuration(conf);
    if (c.get("yarn.app.mapreduce.am.staging-dir") == null) {
      c.set("yarn.app.mapreduce.am.staging-dir", new Path(jobRoot(), "staging").toString());
    }
    return onSharedMount(MRApps.getStagingAreaDir(c, user));
  }

  @Override
  public String getJobHistoryDir() {
    return null;
  }

  @Override
  public QueueInfo[] getQueues() {
    return new QueueInfo[0];
  }

  @Override
  public QueueInfo getQueue(String queueName) {
    return null;
  }

  @Override
  public QueueAclsInfo[] getQueueAclsForCurrentUser() {
    return new QueueAclsInfo[0];
  }

  @Override
  public QueueInfo[] getRootQueues() {
    return new QueueInfo[0];
  }

  @Override
  public QueueInfo[] getChildQueues(String queueName) {
    return new QueueInfo[0];
  }

  @Override
  public Token<DelegationTokenIdentifier> getDelegationToken(Text renewer) {
    return null;
  }

  @Override
  public long renewDelegationToken(Token<DelegationTokenIdentifier> token) {
    return 0;
  }

  @Override
  public void cancelDelegationToken(Token<DelegationTokenIdentifier> token) {
    // No delegation tokens on a shared POSIX file system.
  }

  @Override
  public LogParams getLogFileParams(JobID jobID, TaskAttemptID taskAttemptID)
      throws IOException {
    JobDirs dirs = finder.find(String.valueOf(jobID));
    if (dirs == null) {
      throw unknown(jobID);
    }
    return AggregatedLogParams.of(dirs, jobID, taskAttemptID, conf);
  }
}
