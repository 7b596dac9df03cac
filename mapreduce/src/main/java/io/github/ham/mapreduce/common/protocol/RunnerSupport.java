package io.github.ham.mapreduce.common.protocol;

import java.io.IOException;

import org.apache.hadoop.io.BytesWritable;
import org.apache.hadoop.ipc.VersionedProtocol;
import org.apache.hadoop.mapreduce.security.token.JobTokenSelector;
import org.apache.hadoop.security.token.TokenInfo;

/**
 * What a runner asks of the driver besides the umbilical: the job's credentials (the user's
 * secret keys and tokens, the intermediate-data encryption key), which a YARN container gets
 * from its localized token file. Served on the driver's IPC to job-token holders only, and
 * sealed with a key only job-token holders have ({@link CredentialsSeal}).
 */
@TokenInfo(JobTokenSelector.class)
public interface RunnerSupport extends VersionedProtocol {
  long versionID = 1L;

  /** The job's credentials, sealed with the job token's password. */
  BytesWritable getJobCredentials() throws IOException;
}
