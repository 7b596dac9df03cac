package io.github.ham.mapreduce.runner;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Map;
import java.util.function.BooleanSupplier;

import io.github.ham.mapreduce.common.HamConfig;
import io.github.ham.mapreduce.common.protocol.WarmClaims;
import io.github.ham.mapreduce.common.protocol.WarmClaims.Claim;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A runner between jobs (ham.runner.warm.idle.ms): when its job's driver says there is no more
 * work, the runner parks instead of exiting. It listens on a port of its own, on the address
 * its node reaches the driver from, writes its registry entry (node, address, port, a random
 * nonce, its launch key) into the session's 0700 warm-runner directory, and waits: for a claim
 * from a driver of the same session (which read the nonce there: only the user can), for
 * `ham run`'s stop, for the idle time to pass, or for the directory to go (the session's
 * teardown removed it). Then it removes its entry and serves the claiming job, or exits.
 *
 * <p>While it serves a claimed job it keeps the claim's connection: if that closes without the
 * driver's release (the job was killed, its driver died), the runner exits at once, as the
 * runners of a killed srun step would.
 */
final class WarmPark {
  private static final Logger LOG = LoggerFactory.getLogger(WarmPark.class);
  /** How often a parked runner looks whether its session's directory is still there. */
  private static final int LOOK_MS = 1000;
  private static final String STOPPED = "Stopped by the session's end; exiting";
  private final File root;
  private final String key;
  private final String node;
  private long idleMs;
  /** The session's stop, kept open until the JVM exits (see await). */
  @SuppressWarnings("unused")
  private static Socket stopping;
  /** The claim being served: its connection, and whether its loss stops the runner. */
  private Socket claimed;
  private volatile boolean armed;

  /** What a runner's run of a job returns when the driver said there is no more work. */
  static final int TOLD_TO_EXIT = Integer.MIN_VALUE;

  /**
   * A job a runner serves: its driver, id, token and runtime directory, and the slot a claim
   * gave the runner (null: its working directory's name, as its launch gave it).
   */
  record Job(String driverHost, int port, String jobId, String token, String runtimeDir,
      String slot) {
  }

  /** A runner's run of one job: an exit status, or {@link #TOLD_TO_EXIT}. */
  interface JobRun {
    int run(Job job) throws Exception;
  }

  /**
   * Serves {@code first}, the job the runner was started for, then, with a {@code park} (its
   * step asked for warm runners), each later job that claims it while it is parked.
   */
  static int serve(Job first, WarmPark park, JobRun run, BooleanSupplier exiting)
      throws Exception {
    Job job = first;
    while (true) {
      int code = run.run(job);
      if (code != TOLD_TO_EXIT) {
        return code;
      }
      Claim next = park == null || exiting.getAsBoolean() ? null
          : park.await(job.driverHost(), job.runtimeDir());
      if (next == null) {
        return 0;
      }
      job = new Job(next.driverHost(), next.port(), next.jobId(), next.token(),
          next.runtimeDir(), next.slot());
    }
  }

  private WarmPark(File root, String key, String node, long idleMs) {
    this.root = root;
    this.key = key;
    this.node = node;
    this.idleMs = idleMs;
  }

  /** The park of a runner whose step asked for one (see HamConfig.ENV_WARM_DIR), else null. */
  static WarmPark fromEnv(Map<String, String> env, String node) {
    String dir = env.get(HamConfig.ENV_WARM_DIR);
    String key = env.get(HamConfig.ENV_WARM_KEY);
    long idle;
    try {
      idle = Long.parseLong(env.getOrDefault(HamConfig.ENV_WARM_IDLE_MS, "0"));
    } catch (NumberFormatException e) {
      idle = 0;
    }
    return dir == null || key == null || idle <= 0 ? null
        : new WarmPark(new File(dir), key, node, idle);
  }

  /**
   * Parks after a job of {@code lastJob} whose driver was at {@code driverHost}: the claim of
   * the next job, or null (idle time over, stopped, the session's directory gone): exit.
   */
  Claim await(String driverHost, String lastJob) throws IOException {
    release();
    File parked = new File(root, WarmClaims.PARKED);
    if (idleMs <= 0 || !parked.isDirectory()) {
      return null;
    }
    String nonce = HexFormat.of().formatHex(randomBytes());
    InetAddress address = addressTowards(driverHost);
    File entry = new File(parked, node + "-" + ProcessHandle.current().pid() + WarmClaims.SUFFIX);
    try (ServerSocket server = new ServerSocket()) {
      server.bind(new InetSocketAddress(address, 0), 64);
      server.setSoTimeout(LOOK_MS);
      try {
        new WarmClaims.Entry(node, address.getHostAddress(), server.getLocalPort(), nonce, key,
            lastJob).write(entry);
      } catch (IOException e) {
        LOG.info("Cannot park (the session is ending: {}); exiting", e.toString());
        return null;
      }
      LOG.info("Parked for {} ms at {}:{} (warm runner)", idleMs, address.getHostAddress(),
          server.getLocalPort());
      long deadline = System.currentTimeMillis() + idleMs;
      while (System.currentTimeMillis() < deadline) {
        Socket s;
        try {
          s = server.accept();
        } catch (SocketTimeoutException e) {
          if (!parked.isDirectory()) {
            // Renamed by the session's end (ham.warm.stop_parked), which then tells each
            // runner to stop: this look may come first, and it is the same end.
            LOG.info(new File(root, WarmClaims.PARKED_CLOSED).isDirectory()
                ? STOPPED : "The session's warm-runner directory is gone; exiting");
            return null;
          }
          continue;
        }
        String line = readLine(s);
        if (line != null && WarmClaims.isStop(line, nonce)) {
          LOG.info(STOPPED);
          // Left open: the kernel closes it when this JVM is gone, which is how `ham run`
          // (ham.warm.stop_parked) knows the runner has exited before it returns.
          stopping = s;
          return null;
        }
        Claim claim = line == null ? null : Claim.parse(line, nonce);
        if (claim == null) {
          s.close();  // not ours to take: wrong nonce or garbage
          continue;
        }
        OutputStream out = s.getOutputStream();
        out.write((WarmClaims.OK + "\n").getBytes(StandardCharsets.UTF_8));
        out.flush();
        arm(s);
        idleMs = claim.idleMs();
        LOG.info("Claimed by job {} as runner {}", claim.jobId(), claim.slot());
        return claim;
      }
      LOG.info("Not claimed within {} ms; exiting", idleMs);
      return null;
    } finally {
      Files.deleteIfExists(entry.toPath());
    }
  }

  private static byte[] randomBytes() {
    byte[] b = new byte[24];
    new SecureRandom().nextBytes(b);
    return b;
  }

  /**
   * This node's address on its route to the driver (a UDP socket's connect sends nothing): the
   * one a driver of the same session reaches it at.
   */
  static InetAddress addressTowards(String driverHost) throws IOException {
    try (DatagramSocket probe = new DatagramSocket()) {
      probe.connect(InetAddress.getByName(driverHost), 9);
      InetAddress local = probe.getLocalAddress();
      return local.isAnyLocalAddress() ? InetAddress.getLoopbackAddress() : local;
    }
  }

  private static String readLine(Socket s) {
    try {
      s.setSoTimeout(2000);
      BufferedReader in = new BufferedReader(new InputStreamReader(s.getInputStream(),
          StandardCharsets.UTF_8), 512);
      StringBuilder b = new StringBuilder();
      int c;
      while ((c = in.read()) >= 0 && c != '\n') {
        if (b.length() >= WarmClaims.MAX_LINE) {
          return null;
        }
        b.append((char) c);
      }
      return c < 0 ? null : b.toString();
    } catch (IOException e) {
      return null;
    }
  }

  /** The claim's connection ends the runner if it closes before the driver releases it. */
  private void arm(Socket s) throws IOException {
    s.setSoTimeout(0);
    claimed = s;
    armed = true;
    Thread t = new Thread(() -> watch(s), "ham-warm-claim");
    t.setDaemon(true);
    t.start();
  }

  private void watch(Socket s) {
    String line = null;
    try {
      BufferedReader in = new BufferedReader(new InputStreamReader(s.getInputStream(),
          StandardCharsets.UTF_8));
      line = in.readLine();
    } catch (IOException e) {
      // closed: below
    }
    if (WarmClaims.RELEASE.equals(line)) {
      armed = false;
      return;
    }
    if (armed) {
      LOG.error("The driver that claimed this runner closed its claim (the job was stopped, "
          + "or its driver is gone); exiting");
      System.exit(1);
    }
  }

  /** The claimed job is over for this runner: its connection no longer matters. */
  void release() {
    armed = false;
    if (claimed != null) {
      try {
        claimed.close();
      } catch (IOException e) {
        LOG.debug("Closing the claim's connection", e);
      }
      claimed = null;
    }
  }
}
