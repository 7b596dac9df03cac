package io.github.ham.mapreduce.driver.ipc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.FileOutputStream;
import java.io.OutputStream;
import java.lang.reflect.Proxy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import io.github.ham.mapreduce.common.HamConfig;
import io.github.ham.mapreduce.common.protocol.DriverControl;
import io.github.ham.mapreduce.common.protocol.RunnerClientConf;
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
    return read(xml);
  }

  private static Configuration read(File xml) {
    Configuration read = new Configuration(false);
    read.addResource(new org.apache.hadoop.fs.Path(xml.toURI()));
    read.get(HamConfig.DRIVER_HOST);  // loads it
    return read;
  }

  private static final String READERS = "ipc.server.read.threadpool.size";
  private static final String BACKLOG = "ipc.server.listen.queue.size";

  /**
   * Hadoop's core-default.xml names the reader count and the backlog (1 and 256), so a job's
   * configuration never lacks them: HAM's own apply unless something other than Hadoop's
   * defaults set them (a job.xml repeats each key's sources, so a default stays a default).
   */
  @Test
  void hamsReadersAndBacklogWhenOnlyHadoopsDefaultsNameThem(@TempDir Path dir) throws Exception {
    Configuration defaults = conf(true);
    assertEquals("1", defaults.get(READERS));
    for (Configuration c : List.of(defaults, throughJobXml(defaults, dir))) {
      Configuration server = UmbilicalServer.serverConf(c, 16);
      assertEquals(4, server.getInt(READERS, 0));
      assertEquals(UmbilicalServer.LISTEN_QUEUE, server.getInt(BACKLOG, 0));
      assertEquals(1, UmbilicalServer.serverConf(c, 2).getInt(READERS, 0));
      assertEquals("token", server.get("hadoop.security.authentication"));
    }
  }

  @Test
  void theJobsOwnReadersAndBacklogStand(@TempDir Path dir) throws Exception {
    Configuration asked = conf(true);
    asked.setInt(READERS, 2);  // as -D or the job's code
    asked.setInt(BACKLOG, 100);
    Configuration server = UmbilicalServer.serverConf(throughJobXml(asked, dir), 16);
    assertEquals(2, server.getInt(READERS, 0));
    assertEquals(100, server.getInt(BACKLOG, 0));
    // A job file written without sources, or by another name, is the job's choice too.
    File bare = dir.resolve("bare/job.xml").toFile();
    bare.getParentFile().mkdirs();
    Files.writeString(bare.toPath(), "<configuration><property><name>" + READERS
        + "</name><value>1</value></property></configuration>");
    assertEquals(1, UmbilicalServer.serverConf(read(bare), 16).getInt(READERS, 0));
    // Hadoop's default with its sources, in a file that is no submitted job's (-conf).
    File named = dir.resolve("wordcount-job.xml").toFile();
    try (OutputStream out = new FileOutputStream(named)) {
      conf(true).writeXml(out);
    }
    assertEquals(1, UmbilicalServer.serverConf(read(named), 16).getInt(READERS, 0));
  }

  @Test
  void theServerKeepsAnIdleConnectionAsLongAsARunnerDoes() {
    Configuration server = UmbilicalServer.serverConf(conf(true), 2);
    // Hadoop's server closes a connection idle for twice the key, its client for once.
    assertTrue(server.getInt("ipc.client.connection.maxidletime", 0)
        >= RunnerClientConf.KEEP_IDLE_CONNECTION_MS);
  }

  @Test
  void theServerStartsWithThatConfiguration() throws Exception {
    assertEquals(UmbilicalServer.readers(Runtime.getRuntime().availableProcessors()),
        readersStarted(conf(true)));
    Configuration three = conf(true);
    three.setInt(READERS, 3);
    assertEquals(3, readersStarted(three));
  }
}
