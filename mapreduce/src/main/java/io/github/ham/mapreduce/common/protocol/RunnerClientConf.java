package io.github.ham.mapreduce.common.protocol;

import org.apache.hadoop.conf.Configuration;

/**
 * How a runner's IPC client reaches the driver, for the runners and for the scale bench's
 * simulated ones alike (so that the bench measures what runners do): it gives up on an
 * unreachable driver quickly, since a runner must exit within about 10-20 s of losing it. A
 * refused connection is not retried here after Hadoop's fixed second: the runner's own pauses
 * are jittered (the runner's ConnectPacing), so that a step's runners do not come back at once.
 */
public final class RunnerClientConf {
  private RunnerClientConf() {
  }

  /** Sets the runner's IPC client keys in {@code conf}. */
  public static void apply(Configuration conf) {
    conf.setInt("ipc.client.connect.max.retries", 0);
    conf.setInt("ipc.client.connect.max.retries.on.timeouts", 2);
    conf.setInt("ipc.client.connect.retry.interval", 1000);
    conf.setInt("ipc.client.connect.timeout", 5000);
    conf.setInt("ipc.client.rpc-timeout.ms", 20000);
    conf.setBoolean("ipc.client.tcpnodelay", true);
  }
}
