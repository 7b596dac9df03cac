package io.github.ham.mapreduce.driver;

import java.io.IOException;
import java.net.InetAddress;
import java.util.Locale;

import io.github.ham.mapreduce.common.HamConfig;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.CommonConfigurationKeysPublic;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.ipc.RPC;
import org.apache.hadoop.ipc.Server;
import org.apache.hadoop.mapred.JobID;
import org.apache.hadoop.mapred.TaskUmbilicalProtocol;
import org.apache.hadoop.mapreduce.security.TokenCache;
import org.apache.hadoop.mapreduce.security.token.JobTokenIdentifier;
import org.apache.hadoop.mapreduce.security.token.JobTokenSecretManager;
import org.apache.hadoop.security.Credentials;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.security.token.Token;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The job's authenticated IPC endpoint: a fresh job token (as MRAppMaster's JobImpl creates
 * one) and a Hadoop RPC server for the umbilical that accepts only callers holding it.
 */
final class UmbilicalServer {
  private static final Logger LOG = LoggerFactory.getLogger(UmbilicalServer.class);
  private final Server server;
  private final Token<JobTokenIdentifier> token;
  private final String host;

  private UmbilicalServer(Server server, Token<JobTokenIdentifier> token, String host) {
    this.server = server;
    this.token = token;
    this.host = host;
  }

  /** Creates the job token (also put into {@code credentials}) and starts the server. */
  static UmbilicalServer start(Configuration conf, JobID id, Credentials credentials,
      TaskUmbilicalProtocol umbilical) throws IOException {
    JobTokenSecretManager secrets = new JobTokenSecretManager();
    Token<JobTokenIdentifier> token = new Token<>(
        new JobTokenIdentifier(new Text(id.toString())), secrets);
    secrets.addTokenForJob(id.toString(), token);
    TokenCache.setJobToken(token, credentials);
    // With security off, a Hadoop server also accepts SIMPLE (unauthenticated) connections
    // beside TOKEN. Declaring TOKEN as the server's own method leaves TOKEN the only one, so a
    // client without the job token is turned away at connection set-up, before any call.
    Configuration serverConf = new Configuration(conf);
    serverConf.set(CommonConfigurationKeysPublic.HADOOP_SECURITY_AUTHENTICATION,
        UserGroupInformation.AuthenticationMethod.TOKEN.name().toLowerCase(Locale.ROOT));
    Server server = new RPC.Builder(serverConf).setProtocol(TaskUmbilicalProtocol.class)
        .setInstance(umbilical)
        .setBindAddress(conf.getTrimmed(HamConfig.DRIVER_BIND_HOST,
            HamConfig.DEFAULT_DRIVER_BIND_HOST))
        .setPort(0)
        .setNumHandlers(Math.max(4, conf.getInt(HamConfig.DRIVER_HANDLERS,
            HamConfig.DEFAULT_DRIVER_HANDLERS)))
        .setVerbose(false).setSecretManager(secrets).build();
    server.start();
    String host = conf.getTrimmed(HamConfig.DRIVER_HOST);
    if (host == null || host.isEmpty()) {
      host = InetAddress.getLocalHost().getHostAddress();
    }
    LOG.info("HAM umbilical for {} listening on {}:{}", id, host,
        server.getListenerAddress().getPort());
    return new UmbilicalServer(server, token, host);
  }

  /** The address runners connect to. */
  String host() {
    return host;
  }

  int port() {
    return server.getListenerAddress().getPort();
  }

  /** The job token as runners receive it (in their environment, never on a command line). */
  String encodedToken() throws IOException {
    return token.encodeToUrlString();
  }

  void stop() {
    server.stop();
  }
}
