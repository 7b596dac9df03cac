package io.github.ham.mapreduce.driver.ipc;

import java.io.IOException;
import java.net.InetAddress;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.Locale;
import java.util.Set;

import javax.crypto.KeyGenerator;

import io.github.ham.mapreduce.common.HamConfig;
import io.github.ham.mapreduce.common.protocol.ControlFile;
import io.github.ham.mapreduce.common.protocol.DriverControl;
import io.github.ham.mapreduce.common.protocol.RunnerClientConf;
import io.github.ham.mapreduce.common.protocol.RunnerSupport;
import io.github.ham.mapreduce.common.protocol.RunnerUmbilical;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.CommonConfigurationKeys;
import org.apache.hadoop.fs.CommonConfigurationKeysPublic;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.ipc.RPC;
import org.apache.hadoop.ipc.RPC.Server;
import org.apache.hadoop.mapred.JobID;
import org.apache.hadoop.mapred.TaskUmbilicalProtocol;
import org.apache.hadoop.mapreduce.CryptoUtils;
import org.apache.hadoop.mapreduce.MRJobConfig;
import org.apache.hadoop.mapreduce.security.TokenCache;
import org.apache.hadoop.mapreduce.security.token.JobTokenIdentifier;
import org.apache.hadoop.mapreduce.security.token.JobTokenSecretManager;
import org.apache.hadoop.security.Credentials;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.security.token.Token;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The job's authenticated IPC endpoint: one Hadoop RPC server with two protocols and two
 * tokens, and no other way in. Runners hold the job token (as MRAppMaster's JobImpl creates
 * one) and may call the umbilical; clients of the job's user hold the client token (from the
 * job's control file, readable by the user alone) and may call {@link DriverControl}. Each
 * protocol checks which of the two its caller holds.
 */
public final class UmbilicalServer {
  private static final Logger LOG = LoggerFactory.getLogger(UmbilicalServer.class);
  /** The listen backlog, unless the job sets ipc.server.listen.queue.size. */
  static final int LISTEN_QUEUE = 4096;
  /** Most reader threads, unless the job sets ipc.server.read.threadpool.size (Hadoop's: 1). */
  static final int MAX_READERS = 4;
  /** The resources Hadoop loads its defaults from, as Configuration names them. */
  private static final Set<String> HADOOP_DEFAULTS = Set.of("core-default.xml",
      "hdfs-default.xml", "mapred-default.xml", "yarn-default.xml");
  private final Configuration conf;
  private final JobID id;
  private final JobTokenSecretManager secrets = new JobTokenSecretManager();
  private final Token<JobTokenIdentifier> token;
  private final Token<JobTokenIdentifier> clientToken;
  private Server server;
  private String host;

  /**
   * Creates the job token (as MRAppMaster's JobImpl creates one; the runners hold it) and the
   * client token. Nothing of the job's own is needed: the server may start before the job is
   * submitted (runners started early, see {@link DriverServices}).
   */
  public UmbilicalServer(Configuration conf, JobID id) {
    this.conf = conf;
    this.id = id;
    this.token = new Token<>(new JobTokenIdentifier(new Text(id.toString())), secrets);
    secrets.addTokenForJob(id.toString(), token);
    this.clientToken = new Token<>(new JobTokenIdentifier(new Text(clientIdentity(id))),
        secrets);
    secrets.addTokenForJob(clientIdentity(id), clientToken);
  }

  /**
   * Adds to the job's {@code credentials}, which the runners receive, the job token and, with
   * mapreduce.job.encrypted-intermediate-data in {@code job}, the key of the intermediate data
   * (as MRAppMaster does).
   */
  public void addTo(Credentials credentials, Configuration job) throws IOException {
    TokenCache.setJobToken(token, credentials);
    if (CryptoUtils.isEncryptedSpillEnabled(job)) {
      try {
        KeyGenerator keys = KeyGenerator.getInstance("HmacSHA1");
        keys.init(job.getInt(MRJobConfig.MR_ENCRYPTED_INTERMEDIATE_DATA_KEY_SIZE_BITS,
            MRJobConfig.DEFAULT_MR_ENCRYPTED_INTERMEDIATE_DATA_KEY_SIZE_BITS));
        TokenCache.setEncryptedSpillKey(keys.generateKey().getEncoded(), credentials);
      } catch (NoSuchAlgorithmException e) {
        throw new IOException(e);
      }
    }
  }

  /** The identity of callers holding the job's client token. */
  public static String clientIdentity(JobID id) {
    return "ham-client-" + id;
  }

  /** The secret the driver and the runners share, which never crosses the network. */
  public byte[] jobTokenPassword() {
    return token.getPassword();
  }

  /** Starts serving the runners' protocols (to runners) and control (to clients). */
  public void start(RunnerUmbilical umbilical, DriverControl control) throws IOException {
    Configuration serverConf = serverConf(conf, Runtime.getRuntime().availableProcessors());
    server = new RPC.Builder(serverConf).setProtocol(TaskUmbilicalProtocol.class)
        .setInstance(umbilical)
        .setBindAddress(conf.getTrimmed(HamConfig.DRIVER_BIND_HOST,
            HamConfig.DEFAULT_DRIVER_BIND_HOST))
        .setPort(0)
        .setNumHandlers(Math.max(4, conf.getInt(HamConfig.DRIVER_HANDLERS,
            HamConfig.DEFAULT_DRIVER_HANDLERS)))
        .setVerbose(false).setSecretManager(secrets).build();
    server.addProtocol(RPC.RpcKind.RPC_WRITABLE, RunnerSupport.class, umbilical);
    server.addProtocol(RPC.RpcKind.RPC_WRITABLE, RunnerUmbilical.class, umbilical);
    server.addProtocol(RPC.RpcKind.RPC_WRITABLE, DriverControl.class, control);
    server.start();
    host = conf.getTrimmed(HamConfig.DRIVER_HOST);
    if (host == null || host.isEmpty()) {
      host = InetAddress.getLocalHost().getHostAddress();
    }
    LOG.info("HAM umbilical for {} listening on {}:{}", id, host, port());
  }

  /** The IPC server's configuration: the job's {@code conf}, for a driver with {@code cores}. */
  static Configuration serverConf(Configuration conf, int cores) {
    // With security off, a Hadoop server also accepts SIMPLE (unauthenticated) connections
    // beside TOKEN. Declaring TOKEN as the server's own method leaves TOKEN the only one, so a
    // client without a token is turned away at connection set-up, before any call.
    Configuration serverConf = new Configuration(conf);
    serverConf.set(CommonConfigurationKeysPublic.HADOOP_SECURITY_AUTHENTICATION,
        UserGroupInformation.AuthenticationMethod.TOKEN.name().toLowerCase(Locale.ROOT));
    // Every runner of a job connects within a second or two of its step's start (thousands
    // on a large allocation): with Hadoop's backlog of 256 the kernel drops the connection
    // requests beyond it, and runners time out connecting (ipc.client.connect.timeout) and
    // retry or exit. The kernel caps the backlog at net.core.somaxconn.
    setUnlessJobDoes(serverConf, CommonConfigurationKeysPublic.IPC_SERVER_LISTEN_QUEUE_SIZE_KEY,
        LISTEN_QUEUE);
    // A reader thread decodes its connections' calls and runs their SASL handshakes: with
    // Hadoop's one, a job's thousands of runners connecting at once queue behind it (10,000
    // simulated runners on 1,000 connections: 21.5 s to connect with one, 18.2-18.8 s with
    // four, a 10 s ramp included; bench/results/scale-readers). But each reader wakes for
    // fewer calls: four cost about a quarter more CPU a dispatch than one (bench/README.md,
    // "The driver's readers"), so a reader per 4 of the CPUs the driver's JVM may use (in an
    // allocation, those Slurm gave the job on the driver's node).
    setUnlessJobDoes(serverConf, CommonConfigurationKeys.IPC_SERVER_RPC_READ_THREADS_KEY,
        readers(cores));
    // The server closes a connection with no call for twice this (once it has more than
    // ipc.client.idlethreshold, 4,000): never before the runner's own client would, which
    // keeps it across the driver's holds (RunnerClientConf); a runner silent for longer then
    // learns it at its next call, not from a connection it believes open.
    serverConf.setInt(CommonConfigurationKeysPublic.IPC_CLIENT_CONNECTION_MAXIDLETIME_KEY,
        RunnerClientConf.KEEP_IDLE_CONNECTION_MS);
    return serverConf;
  }

  /** The reader threads for a driver with {@code cores} cores: one per 4, 1 to 4. */
  static int readers(int cores) {
    return Math.max(1, Math.min(MAX_READERS, cores / 4));
  }

  /**
   * Sets {@code key} to HAM's {@code value} unless the job set it. Not {@code setIfUnset}: every
   * configuration a job has loads {@code core-default.xml}, which names both keys (Hadoop's
   * backlog of 256 and one reader), so no key of it is ever unset. A key that came from one of
   * Hadoop's {@code *-default.xml} resources, then at most through submitted job files (a
   * {@code job.xml} lists the sources before it, and its own name comes last), is Hadoop's
   * default; any other source (a site file, {@code -D}, the job's code, a {@code job.xml}
   * written without sources) is the job's choice.
   */
  static void setUnlessJobDoes(Configuration conf, String key, int value) {
    String[] sources = conf.getPropertySources(key);
    if (sources == null || HADOOP_DEFAULTS.contains(sources[0])
        && Arrays.stream(sources).skip(1).allMatch(UmbilicalServer::isJobFile)) {
      conf.setInt(key, value);
    }
  }

  /** A submitted job's configuration file (a staged job.xml, or a runner's copy of it). */
  private static boolean isJobFile(String source) {
    return source.equals("job.xml") || source.endsWith("/job.xml");
  }

  /** The address runners connect to. */
  public String host() {
    return host;
  }

  public int port() {
    return server.getListenerAddress().getPort();
  }

  /** The job token as runners receive it (in their environment, never on a command line). */
  public String encodedToken() throws IOException {
    return token.encodeToUrlString();
  }

  /** How the user's other processes reach this job's driver. */
  public ControlFile controlFile() throws IOException {
    return new ControlFile(host, port(), clientToken.encodeToUrlString());
  }

  public void stop() {
    if (server != null) {
      server.stop();
    }
  }
}
