package io.github.ham.mapreduce.common.protocol;

import java.io.IOException;

import org.apache.hadoop.ipc.ProtocolSignature;
import org.apache.hadoop.ipc.VersionedProtocol;
import org.apache.hadoop.mapreduce.Counters;
import org.apache.hadoop.mapreduce.JobStatus;
import org.apache.hadoop.mapreduce.TaskAttemptID;
import org.apache.hadoop.mapreduce.TaskCompletionEvent;
import org.apache.hadoop.mapreduce.TaskReport;
import org.apache.hadoop.mapreduce.TaskType;
import org.apache.hadoop.mapreduce.security.token.JobTokenSelector;
import org.apache.hadoop.security.token.TokenInfo;

/**
 * What a client may ask of one job's driver: the part of Hadoop's ClientProtocol that concerns
 * a running job. The driver serves it in its own JVM (the `hadoop jar` that submitted the job)
 * and over its authenticated IPC (another `mapred job` or `Cluster`/`JobClient` of the same
 * user, who alone can read the job's control file); a finished job is answered from its
 * status record.
 */
@TokenInfo(JobTokenSelector.class)
public interface DriverControl extends VersionedProtocol {
  long versionID = 1L;

  JobStatus getJobStatus() throws IOException;

  Counters getJobCounters() throws IOException;

  TaskCompletionEvent[] getTaskCompletionEvents(int from, int max) throws IOException;

  String[] getTaskDiagnostics(TaskAttemptID attempt) throws IOException;

  TaskReport[] getTaskReports(TaskType type) throws IOException;

  void killJob() throws IOException;

  /** Kills (or, with {@code shouldFail}, fails) one running attempt; false if it is not running. */
  boolean killTask(TaskAttemptID attempt, boolean shouldFail) throws IOException;

  /** The one version there is: every answerer (running, preparing, ended job) says the same. */
  @Override
  default long getProtocolVersion(String protocol, long clientVersion) {
    return versionID;
  }

  @Override
  default ProtocolSignature getProtocolSignature(String protocol, long clientVersion,
      int clientMethodsHash) throws IOException {
    return ProtocolSignature.getProtocolSignature(this, protocol, clientVersion,
        clientMethodsHash);
  }
}
