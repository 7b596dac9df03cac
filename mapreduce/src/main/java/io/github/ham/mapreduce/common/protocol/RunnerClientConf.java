package io.github.ham.mapreduce.common.protocol;

import org.apache.hadoop.conf.Configuration;

/**
 * How a runner's IPC client reaches the driver, for the runners and for the scale bench's
 * simulated ones alike (so that the bench measures what runners do): it gives up on an
 * unreachable driver quickly, since a runner must exit within about 10-20 s of losing it. A
 * refused connection is retried once after Hadoop's second: Hadoop's Task retries its commit
 * calls ten times without a pause, so this second is all the slack they have; the runner's own
 * loop pauses after a failed call with jitter (the runner's ConnectPacing).
 */
public final class RunnerClientConf {
  private RunnerClientConf() {
  }

  /** Sets the runner's IPC client keys in {@code conf}. */
  public static void apply(Configuration conf) {
    conf.setInt("ipc.client.connect.max.retries", 1);
    conf.setInt("ipc.client.connect.max.retries.on.timeouts", 2);
    conf.setInt("ipc.client.connect.retry.interval", 1000);
    conf.setInt("ipc.client.connect.timeout", 5000);
    conf.setInt("ipc.client.rpc-timeout.ms", 20000);
    conf.setBoolean("ipc.client.tcpnodelay", true);
  }
}
