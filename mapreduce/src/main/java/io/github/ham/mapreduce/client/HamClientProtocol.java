package io.github.ham.mapreduce.client;

import java.io.IOException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.ham.mapreduce.common.HamConfig;
import io.github.ham.mapreduce.driver.HamJob;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.ipc.ProtocolSignature;
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

/** The client side of HAM in the {@code hadoop jar} JVM: submits jobs to in-process drivers. */
public class HamClientProtocol implements ClientProtocol {
  private static final AtomicInteger NEXT_ID = new AtomicInteger();
  private static final String CLUSTER_ID = Long.toString(System.currentTimeMillis());
  private static final Map<String, HamJob> JOBS = new ConcurrentHashMap<>();
  private final Configuration conf;

  public HamClientProtocol(Configuration conf) {
    this.conf = conf;
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
    return new JobID(CLUSTER_ID, NEXT_ID.incrementAndGet());
  }

  @Override
  public JobStatus submitJob(JobID jobId, String jobSubmitDir, Credentials ts)
      throws IOException {
    HamJob job = new HamJob(org.apache.hadoop.mapred.JobID.downgrade(jobId), jobSubmitDir, ts);
    if (System.getenv("SLURM_JOB_ID") == null && !HamConfig.LAUNCHER_LOCAL.equals(
        job.conf().getTrimmed(HamConfig.LAUNCHER))) {
      throw new IOException("HAM needs a Slurm allocation: run inside salloc/sbatch or use "
          + "`ham run`");
    }
    JOBS.put(jobId.toString(), job);
    job.start();
    return job.status();
  }

  private HamJob job(JobID id) throws IOException {
    HamJob job = JOBS.get(String.valueOf(id));
    if (job == null) {
      throw new IOException("Unknown job " + id);
    }
    return job;
  }

  @Override
  public JobStatus getJobStatus(JobID jobid) {
    HamJob job = JOBS.get(String.valueOf(jobid));
    return job == null ? null : job.status();
  }

  @Override
  public Counters getJobCounters(JobID jobid) throws IOException {
    return new Counters(job(jobid).counters());
  }

  @Override
  public TaskCompletionEvent[] getTaskCompletionEvents(JobID jobid, int fromEventId,
      int maxEvents) throws IOException {
    return job(jobid).events(fromEventId, maxEvents);
  }

  @Override
  public String[] getTaskDiagnostics(TaskAttemptID taskId) throws IOException {
    return job(taskId.getJobID()).diagnostics(taskId);
  }

  @Override
  public void killJob(JobID jobid) throws IOException {
    job(jobid).kill();
  }

  @Override
  public boolean killTask(TaskAttemptID taskId, boolean shouldFail) {
    return false;
  }

  @Override
  public void setJobPriority(JobID jobid, String priority) {
    // Single-job driver: priorities have no meaning.
  }

  @Override
  public TaskReport[] getTaskReports(JobID jobid, TaskType type) {
    return new TaskReport[0];
  }

  @Override
  public String getFilesystemName() throws IOException {
    return FileSystem.get(conf).getUri().toString();
  }

  @Override
  public JobStatus[] getAllJobs() {
    return JOBS.values().stream().map(HamJob::status).toArray(JobStatus[]::new);
  }

  @Override
  public ClusterMetrics getClusterMetrics() {
    return new ClusterMetrics(0, 0, 0, 0, 0, 0, 1, 1, JOBS.size(), 1, 0, 0);
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
    return new TaskTrackerInfo[0];
  }

  @Override
  public TaskTrackerInfo[] getBlacklistedTrackers() {
    return new TaskTrackerInfo[0];
  }

  @Override
  public String getSystemDir() throws IOException {
    Path dir = new Path(jobRoot(), "system");
    return FileSystem.get(conf).makeQualified(dir).toString();
  }

  private String jobRoot() throws IOException {
    String dir = conf.getTrimmed(HamConfig.JOB_DIR);
    if (dir != null && !dir.isEmpty()) {
      return dir;
    }
    return new Path(conf.get("hadoop.tmp.dir", "/tmp"), "ham-"
        + UserGroupInformation.getCurrentUser().getShortUserName()).toString();
  }

  @Override
  public String getStagingAreaDir() throws IOException {
    String user = UserGroupInformation.getCurrentUser().getShortUserName();
    Configuration c = new Configuration(conf);
    if (c.get("yarn.app.mapreduce.am.staging-dir") == null) {
      c.set("yarn.app.mapreduce.am.staging-dir", new Path(jobRoot(), "staging").toString());
    }
    Path dir = MRApps.getStagingAreaDir(c, user);
    return FileSystem.get(conf).makeQualified(dir).toString();
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
  public LogParams getLogFileParams(JobID jobID, TaskAttemptID taskAttemptID) {
    throw new UnsupportedOperationException("Logs are in <ham.job.dir>/jobs/<jobid>/logs");
  }
}
