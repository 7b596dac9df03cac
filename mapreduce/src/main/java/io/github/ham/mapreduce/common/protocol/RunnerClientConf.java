package io.github.ham.mapreduce.common.protocol;

import org.apache.hadoop.conf.Configuration;

/**
 * How a runner's IPC client reaches the driver, for the runners and for the scale bench's
 * simulated ones alike (so that the bench measures what runners do): it gives up on an
 * unreachable driver quickly, since a runner must exit within about 10-20 s of losing it. A
 * refused connection is retried once after Hadoop's second: Hadoop's Task retries its commit
 * calls ten times without a pause, so this second is all the slack they have; the runner's own
 * loop pauses after a failed call with jitter (the runner's ConnectPacing).
 *
 * <p>Its connection lives as long as the runner. Hadoop's client closes a connection with no
 * call outstanding once {@code ipc.client.connection.maxidletime} (10 s by default) has passed
 * since its receiver last began to read, and a call the driver held counts from its start: a
 * runner whose call for a task was held for the driver's limit (10 s) found its connection
 * closed as the answer came, and its next call made a new one, a SASL handshake on the
 * driver's reader each time (about 5 times the CPU of the call itself; an idle runner cost the
 * driver one handshake every 10 s).
 */
public final class RunnerClientConf {
  private RunnerClientConf() {
  }

  /** Longer than any hold of a runner's call by the driver (DriverUmbilical.MAX_HOLD_MS). */
  public static final int KEEP_IDLE_CONNECTION_MS = 120_000;

  /** Sets the runner's IPC client keys in {@code conf}. */
  public static void apply(Configuration conf) {
    conf.setInt("ipc.client.connect.max.retries", 1);
    conf.setInt("ipc.client.connect.max.retries.on.timeouts", 2);
    conf.setInt("ipc.client.connect.retry.interval", 1000);
    conf.setInt("ipc.client.connect.timeout", 5000);
    conf.setInt("ipc.client.rpc-timeout.ms", 20000);
    conf.setBoolean("ipc.client.tcpnodelay", true);
    conf.setInt("ipc.client.connection.maxidletime", KEEP_IDLE_CONNECTION_MS);
  }
}
