package io.github.ham.mapreduce.driver.ipc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import io.github.ham.mapreduce.common.protocol.RunnerClientConf;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.ipc.RPC;
import org.apache.hadoop.ipc.Server;
import org.apache.hadoop.ipc.VersionedProtocol;
import org.apache.hadoop.ipc.WritableRpcEngine;
import org.junit.jupiter.api.Test;

/**
 * A runner's connection outlives the driver's longest hold of its call: the call after a held
 * one goes over the same connection (a new one is a SASL handshake on the driver's reader).
 * Hadoop's client, at its defaults, closes it as the held answer comes (the control).
 */
class HeldCallConnectionTest {
  /** Answers after {@code holdMs} with the port the call came from (one per connection). */
  public interface Held extends VersionedProtocol {
    long versionID = 1L;

    int portAfter(long holdMs);
  }

  public static final class HeldImpl implements Held {
    @Override
    public int portAfter(long holdMs) {
      try {
        Thread.sleep(holdMs);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return Server.getRemotePort();
    }

    @Override
    public long getProtocolVersion(String protocol, long clientVersion) {
      return versionID;
    }

    @Override
    public org.apache.hadoop.ipc.ProtocolSignature getProtocolSignature(String protocol,
        long clientVersion, int clientMethodsHash) {
      return new org.apache.hadoop.ipc.ProtocolSignature(versionID, null);
    }
  }

  @Test
  void theCallAfterTheLongestHoldGoesOverTheSameConnection() throws Exception {
    assertTrue(RunnerClientConf.KEEP_IDLE_CONNECTION_MS
        > DriverUmbilical.MAX_HOLD_MS + WaitingRunners.TICK_MS);
    Configuration conf = new Configuration();
    RPC.setProtocolEngine(conf, Held.class, WritableRpcEngine.class);
    RPC.Server server = new RPC.Builder(conf).setProtocol(Held.class)
        .setInstance(new HeldImpl()).setBindAddress("127.0.0.1").setPort(0).setNumHandlers(2)
        .build();
    server.start();
    InetSocketAddress address = new InetSocketAddress("127.0.0.1", server.getPort());
    Configuration runner = new Configuration();
    RPC.setProtocolEngine(runner, Held.class, WritableRpcEngine.class);
    RunnerClientConf.apply(runner);
    // The control: a client at Hadoop's defaults, beside it (the two holds run at once).
    Configuration defaults = new Configuration();
    RPC.setProtocolEngine(defaults, Held.class, WritableRpcEngine.class);
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try {
      Future<int[]> control = pool.submit(() -> twoCalls(address, defaults));
      int[] ports = twoCalls(address, runner);
      assertEquals(ports[0], ports[1], "the call after a held one made a new connection");
      int[] controlPorts = control.get();
      assertNotEquals(controlPorts[0], controlPorts[1],
          "at Hadoop's defaults the held call's connection is closed: nothing was tested");
    } finally {
      pool.shutdownNow();
      server.stop();
    }
  }

  /** The ports of a call held for the driver's longest hold and of the call after it. */
  private static int[] twoCalls(InetSocketAddress address, Configuration conf)
      throws java.io.IOException, InterruptedException {
    Held proxy = RPC.getProxy(Held.class, Held.versionID, address, conf);
    try {
      int first = proxy.portAfter(DriverUmbilical.MAX_HOLD_MS + 500);
      // A runner asks again at once, and races the client's receiver thread, which closes an
      // idle connection as soon as it has read the answer (it nearly always won: the scale
      // harness saw a handshake for nearly every held answer). A pause lets it always win.
      Thread.sleep(1000);
      return new int[] {first, proxy.portAfter(0)};
    } finally {
      RPC.stopProxy(proxy);
    }
  }
}
