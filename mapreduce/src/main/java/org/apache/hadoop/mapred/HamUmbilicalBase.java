package org.apache.hadoop.mapred;

import java.io.IOException;

import org.apache.hadoop.ipc.ProtocolSignature;

/**
 * HAM bridge: the umbilical server's base class. It sits in this package only because
 * {@link TaskUmbilicalProtocol} names package-private types (JvmContext, SortedRanges.Range);
 * the HAM driver extends it and sees the runner's identity as a plain string.
 */
public abstract class HamUmbilicalBase implements TaskUmbilicalProtocol {

  /** Hands the next task (or a wait / stop signal) to the runner {@code runnerId}. */
  protected abstract JvmTask getTaskForRunner(String runnerId) throws IOException;

  @Override
  public final JvmTask getTask(JvmContext context) throws IOException {
    return getTaskForRunner(context.pid);
  }

  @Override
  public void reportNextRecordRange(TaskAttemptID taskid, SortedRanges.Range range) {
    // Record skipping is not supported; the range is only informational.
  }

  @Override
  public long getProtocolVersion(String protocol, long clientVersion) {
    return TaskUmbilicalProtocol.versionID;
  }

  @Override
  public ProtocolSignature getProtocolSignature(String protocol, long clientVersion,
      int clientMethodsHash) throws IOException {
    return ProtocolSignature.getProtocolSignature(this, protocol, clientVersion,
        clientMethodsHash);
  }
}
