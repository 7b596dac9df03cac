package io.github.ham.mapreduce.driver.ipc;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.File;
import java.io.FileOutputStream;
import java.io.OutputStream;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;

import io.github.ham.mapreduce.common.HamConfig;
import io.github.ham.mapreduce.common.protocol.DriverControl;
import io.github.ham.mapreduce.common.protocol.RunnerUmbilical;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.mapred.JobID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

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
    return conf(false);
  }

  /** With {@code defaults}, Hadoop's core-default.xml loaded, as in every job's configuration. */
  private static Configuration conf(boolean defaults) {
    Configuration conf = new Configuration(defaults);
    conf.set(HamConfig.DRIVER_BIND_HOST, "127.0.0.1");
    conf.set(HamConfig.DRIVER_HOST, "127.0.0.1");
    return conf;
  }

  /** {@code conf} written to a job.xml and read back, as the driver reads a submitted job's. */
  private static Configuration throughJobXml(Configuration conf, Path dir) throws Exception {
    File xml = dir.resolve("job.xml").toFile();
    try (OutputStream out = new FileOutputStream(xml)) {
      conf.writeXml(out);
    }
    Configuration read = new Configuration(false);
    read.addResource(new org.apache.hadoop.fs.Path(xml.toURI()));
    read.get(HamConfig.DRIVER_HOST);  // loads it
    return read;
  }

  /**
   * Hadoop's core-default.xml names the reader count and the backlog (1 and 256), so a job's
   * configuration never lacks them: HAM's own apply unless something other than Hadoop's
   * defaults set them (a job.xml repeats each key's sources, so a default stays a default).
   */
  @Test
  void readsWithHamsThreadsWhenOnlyHadoopsDefaultSaysHowMany(@TempDir Path dir)
      throws Exception {
    Configuration defaults = conf(true);
    assertEquals("1", defaults.get("ipc.server.read.threadpool.size"));
    // Where HAM's count is Hadoop's too (fewer than 8 cores), ask for another through the
    // same path: the test must see which of the two the server took.
    Configuration asked = conf(true);
    asked.setInt("ipc.server.read.threadpool.size", 5);
    assertEquals(5, readersStarted(throughJobXml(asked, dir)));
    Configuration unset = throughJobXml(defaults, dir);
    UmbilicalServer.setUnlessJobDoes(unset, "ipc.server.read.threadpool.size", 5);
    assertEquals(5, unset.getInt("ipc.server.read.threadpool.size", 0));
    assertEquals(readers(), readersStarted(defaults));

    Configuration backlog = conf(true);
    UmbilicalServer.setUnlessJobDoes(backlog, "ipc.server.listen.queue.size",
        UmbilicalServer.LISTEN_QUEUE);
    assertEquals(UmbilicalServer.LISTEN_QUEUE, backlog.getInt("ipc.server.listen.queue.size", 0));
    Configuration own = conf(true);
    own.setInt("ipc.server.listen.queue.size", 100);
    Configuration read = throughJobXml(own, dir);
    UmbilicalServer.setUnlessJobDoes(read, "ipc.server.listen.queue.size",
        UmbilicalServer.LISTEN_QUEUE);
    assertEquals(100, read.getInt("ipc.server.listen.queue.size", 0));
  }

  /** What this machine's driver reads with unless the job says. */
  private static int readers() {
    return UmbilicalServer.readers(Runtime.getRuntime().availableProcessors());
  }

  @Test
  void readsConnectionsWithAThreadPerFourCoresUpToFour() {
    assertEquals(1, UmbilicalServer.readers(1));
    assertEquals(1, UmbilicalServer.readers(7));
    assertEquals(2, UmbilicalServer.readers(8));
    assertEquals(4, UmbilicalServer.readers(16));
    assertEquals(4, UmbilicalServer.readers(128));
  }

  @Test
  void readsConnectionsWithThatManyThreadsUnlessTheJobSaysHowMany() throws Exception {
    assertEquals(readers(), readersStarted(conf()));
    Configuration three = conf();
    three.setInt("ipc.server.read.threadpool.size", 3);
    assertEquals(3, readersStarted(three));
  }
}
