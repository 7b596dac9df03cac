package io.github.ham.mapreduce.common.protocol;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.util.List;
import java.util.Properties;

/**
 * How parked runners and the drivers that claim them talk (runner.WarmPark,
 * driver.launch.WarmRunners; `ham run`'s teardown stops them, launcher/ham/warm.py). Pure
 * formats and the registry's layout, in the session's {@code tmp/} (removed with the session's
 * intermediate data by `ham run` and the SPANK epilog):
 * <pre>
 *   tmp/ham-warm/            0700
 *     parked/&lt;node&gt;-&lt;pid&gt;.runner   a parked runner: node, address, port, nonce, key, job
 *     work/&lt;jobid&gt;/g&lt;gen&gt;-p&lt;i&gt;      the working directories of the runners such a job started
 * </pre>
 * A claim is one line over TCP to the runner's address and port: {@link #CLAIM}, the nonce of
 * its registry entry (which only the user can read), then the driver's host, port, job id, the
 * slot the runner takes, the job's runtime directory, its token and the next idle time,
 * tab-separated. The runner answers {@link #OK}; the connection then stays open for the job:
 * the driver sends {@link #RELEASE} when the job ended well (the runner may park again), and a
 * connection closed without it means "stop now" (the job was killed, or its driver is gone).
 */
public final class WarmClaims {
  /** Under the session directory: removed with the session's intermediate data. */
  public static final String DIR = "tmp/ham-warm";
  public static final String PARKED = "parked";
  /** What the session's end renames {@link #PARKED} to before it stops each runner there. */
  public static final String PARKED_CLOSED = PARKED + ".closed";
  public static final String WORK = "work";
  public static final String SUFFIX = ".runner";
  public static final String CLAIM = "HAMCLAIM";
  /** `ham run`'s teardown: the runner exits. */
  public static final String STOP = "HAMSTOP";
  public static final String OK = "OK";
  public static final String RELEASE = "RELEASE";
  /** The longest line either side reads (a token is a few hundred bytes). */
  public static final int MAX_LINE = 8192;

  private WarmClaims() {
  }

  /** The warm-runner directory of the session {@code sessionDir} (ham.job.dir). */
  public static File root(File sessionDir) {
    return new File(sessionDir, DIR);
  }

  /** A claim: what a parked runner needs to serve another job. */
  public record Claim(String driverHost, int port, String jobId, String slot, String runtimeDir,
      String token, long idleMs) {

    public String line(String nonce) {
      for (String f : List.of(driverHost, jobId, slot, runtimeDir, token)) {
        if (f.indexOf('\t') >= 0 || f.indexOf('\n') >= 0) {
          throw new IllegalArgumentException("tab or newline in a claim: " + f);
        }
      }
      return String.join("\t", CLAIM, nonce, driverHost, Integer.toString(port), jobId, slot,
          runtimeDir, token, Long.toString(idleMs)) + "\n";
    }

    /** The claim in {@code line} if it carries {@code nonce}, else null. */
    public static Claim parse(String line, String nonce) {
      String[] f = line.split("\t", -1);
      if (f.length != 9 || !f[0].equals(CLAIM) || !sameNonce(f[1], nonce)) {
        return null;
      }
      try {
        return new Claim(f[2], Integer.parseInt(f[3]), f[4], f[5], f[6], f[7],
            Long.parseLong(f[8]));
      } catch (NumberFormatException e) {
        return null;
      }
    }
  }

  /** Whether {@code line} is `ham run`'s stop for the runner with {@code nonce}. */
  public static boolean isStop(String line, String nonce) {
    String[] f = line.split("\t", -1);
    return f.length == 2 && f[0].equals(STOP) && sameNonce(f[1], nonce);
  }

  private static boolean sameNonce(String given, String nonce) {
    return MessageDigest.isEqual(given.getBytes(StandardCharsets.UTF_8),
        nonce.getBytes(StandardCharsets.UTF_8));
  }

  /** A parked runner's registry entry. */
  public record Entry(String node, String address, int port, String nonce, String key,
      String job) {

    public Properties properties() {
      Properties p = new Properties();
      p.setProperty("node", node);
      p.setProperty("address", address);
      p.setProperty("port", Integer.toString(port));
      p.setProperty("nonce", nonce);
      p.setProperty("key", key);
      p.setProperty("job", job);
      return p;
    }

    /** The entry in {@code f}, or null if it is unreadable or incomplete. */
    public static Entry read(File f) {
      Properties p = new Properties();
      try (var in = Files.newInputStream(f.toPath())) {
        p.load(in);
        return new Entry(p.getProperty("node"), p.getProperty("address"),
            Integer.parseInt(p.getProperty("port")), p.getProperty("nonce"),
            p.getProperty("key"), p.getProperty("job", ""));
      } catch (IOException | RuntimeException e) {
        return null;
      }
    }

    /** Written whole (a temporary file renamed), readable by the user only. */
    public void write(File f) throws IOException {
      File tmp = new File(f.getParentFile(), "." + f.getName() + ".tmp");
      Files.deleteIfExists(tmp.toPath());
      Files.createFile(tmp.toPath(), java.nio.file.attribute.PosixFilePermissions.asFileAttribute(
          java.nio.file.attribute.PosixFilePermissions.fromString("rw-------")));
      try (var out = Files.newOutputStream(tmp.toPath())) {
        properties().store(out, null);
      }
      Files.move(tmp.toPath(), f.toPath(), StandardCopyOption.ATOMIC_MOVE);
    }
  }
}
