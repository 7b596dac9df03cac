package io.github.ham.mapreduce.driver.ipc;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.reflect.Proxy;
import java.util.HashSet;
import java.util.Set;

import io.github.ham.mapreduce.common.HamConfig;
import io.github.ham.mapreduce.common.protocol.DriverControl;
import io.github.ham.mapreduce.common.protocol.RunnerUmbilical;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.mapred.JobID;
import org.junit.jupiter.api.Test;

/** The driver's IPC server as a job's thousands of runners meet it. */
class UmbilicalServerTest {
  private static <T> T none(Class<T> protocol) {
    return protocol.cast(Proxy.newProxyInstance(protocol.getClassLoader(),
        new Class<?>[] {protocol}, (proxy, method, args) -> null));
  }

  private static Set<Thread> readerThreads() {
    Set<Thread> out = new HashSet<>();
    for (Thread t : Thread.getAllStackTraces().keySet()) {
      if (t.isAlive() && t.getName().startsWith("Socket Reader #")) {
        out.add(t);
      }
    }
    return out;
  }

  /** The reader threads the server started with {@code conf}. */
  private static int readersStarted(Configuration conf) throws Exception {
    Set<Thread> before = readerThreads();
    UmbilicalServer server = new UmbilicalServer(conf, JobID.forName("job_1700000000000_0001"));
    server.start(none(RunnerUmbilical.class), none(DriverControl.class));
    try {
      Set<Thread> started = readerThreads();
      started.removeAll(before);
      return started.size();
    } finally {
      server.stop();
    }
  }

  private static Configuration conf() {
    Configuration conf = new Configuration(false);
    conf.set(HamConfig.DRIVER_BIND_HOST, "127.0.0.1");
    conf.set(HamConfig.DRIVER_HOST, "127.0.0.1");
    return conf;
  }

  @Test
  void readsConnectionsWithSeveralThreadsUnlessTheJobSaysHowMany() throws Exception {
    assertEquals(UmbilicalServer.READERS, readersStarted(conf()));
    assertEquals(4, UmbilicalServer.READERS);  // more than Hadoop's one
    Configuration one = conf();
    one.setInt("ipc.server.read.threadpool.size", 1);
    assertEquals(1, readersStarted(one));
  }
}
