package io.github.ham.mapreduce.driver.ipc;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.InetSocketAddress;

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
 * Hadoop's client, at its defaults, closed it as the held answer came.
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
    Configuration conf = new Configuration();
    RPC.setProtocolEngine(conf, Held.class, WritableRpcEngine.class);
    RPC.Server server = new RPC.Builder(conf).setProtocol(Held.class)
        .setInstance(new HeldImpl()).setBindAddress("127.0.0.1").setPort(0).setNumHandlers(1)
        .build();
    server.start();
    Configuration runner = new Configuration();
    RPC.setProtocolEngine(runner, Held.class, WritableRpcEngine.class);
    RunnerClientConf.apply(runner);
    InetSocketAddress address = new InetSocketAddress("127.0.0.1", server.getPort());
    Held proxy = RPC.getProxy(Held.class, Held.versionID, address, runner);
    try {
      int first = proxy.portAfter(DriverUmbilical.MAX_HOLD_MS + 500);
      int next = proxy.portAfter(0);
      assertEquals(first, next, "the call after a held one made a new connection");
    } finally {
      RPC.stopProxy(proxy);
      server.stop();
    }
  }
}
