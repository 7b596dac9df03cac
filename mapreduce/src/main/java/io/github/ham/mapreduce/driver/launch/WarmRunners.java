package io.github.ham.mapreduce.driver.launch;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import io.github.ham.mapreduce.common.HamConfig;
import io.github.ham.mapreduce.common.protocol.WarmClaims;

import org.apache.hadoop.conf.Configuration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Warm runners across the jobs of one session (ham.runner.warm.idle.ms): the runners a job
 * starts park at its successful end (runner.WarmPark) in the session's warm-runner directory,
 * and a later job that would start the same runners (same launch key: java, JVM options, class
 * path, environment) claims them instead of an srun step: a full set (its runners per node on
 * every node of the allocation) or none, so that a job never runs on fewer runners than it
 * would have started.
 *
 * <p>A claim is exclusive: the driver first renames the runner's registry entry (one rename
 * wins), then tells the runner over TCP where to connect, with the job's token. The claim's
 * connection stays open while the job runs: its end tells the driver the runner exited (there
 * are no srun messages for a step another JVM started), and the driver closing it stops the
 * runner (a killed job's runners must not write any more).
 */
public final class WarmRunners {
  private static final Logger LOG = LoggerFactory.getLogger(WarmRunners.class);
  private static final int CONNECT_MS = 2000;
  private static final int ANSWER_MS = 5000;
  private final File root;
  private final long idleMs;
  private final WarmRegistry registry;
  private final List<Held> held = new ArrayList<>();

  /** A runner this job claimed: its claim's connection, watched for the runner's exit. */
  private static final class Held {
    final int generation;
    final String slot;
    final String node;
    /** Its registry entry's name: node and pid. */
    final String name;
    final Socket socket;
    volatile boolean closed;
    boolean reported;

    Held(int generation, String slot, String node, String name, Socket socket) {
      this.generation = generation;
      this.slot = slot;
      this.node = node;
      this.name = name;
      this.socket = socket;
    }
  }

  private WarmRunners(File root, long idleMs) {
    this.root = root;
    this.idleMs = idleMs;
    this.registry = new WarmRegistry(new File(root, WarmClaims.PARKED));
  }

  /** The session's warm runners if {@code conf} turns them on and has a session; else null. */
  public static WarmRunners of(Configuration conf) {
    long idle = conf.getLong(HamConfig.RUNNER_WARM_IDLE_MS, HamConfig.DEFAULT_RUNNER_WARM_IDLE_MS);
    String session = conf.getTrimmed(HamConfig.JOB_DIR, "");
    return idle <= 0 || session.isEmpty() ? null
        : new WarmRunners(WarmClaims.root(new File(session)), idle);
  }

  /** Where the runners of job {@code jobId} get their working directories (made 0700). */
  public File workRoot(String jobId) throws IOException {
    Files.createDirectories(root.toPath().getParent());  // the session's tmp/
    mkdirPrivate(root.toPath());
    mkdirPrivate(root.toPath().resolve(WarmClaims.PARKED));
    mkdirPrivate(root.toPath().resolve(WarmClaims.WORK));
    return new File(new File(root, WarmClaims.WORK), jobId);
  }

  private static void mkdirPrivate(Path p) throws IOException {
    if (!Files.isDirectory(p)) {
      try {
        Files.createDirectory(p, PosixFilePermissions.asFileAttribute(
            PosixFilePermissions.fromString("rwx------")));
      } catch (java.nio.file.FileAlreadyExistsException e) {
        // made by a job next to this one
      }
    }
  }

  /**
   * The launch key of runners started with {@code argv} (java, options, class path, main
   * class; the driver's address and job id left out) and {@code env} (the job token and
   * runtime directory left out): what a claimed runner must have been started with.
   */
  public static String key(List<String> argv, Map<String, String> env) {
    try {
      MessageDigest d = MessageDigest.getInstance("SHA-256");
      for (String a : argv) {
        d.update(a.getBytes(StandardCharsets.UTF_8));
        d.update((byte) 0);
      }
      for (Map.Entry<String, String> e : new TreeMap<>(env).entrySet()) {
        if (!e.getKey().equals(HamConfig.ENV_JOB_TOKEN)
            && !e.getKey().equals(HamConfig.ENV_JOB_RUNTIME_DIR)) {
          d.update((e.getKey() + "=" + e.getValue()).getBytes(StandardCharsets.UTF_8));
          d.update((byte) 0);
        }
      }
      return HexFormat.of().formatHex(d.digest(), 0, 16);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /** What the step's environment adds so that its runners park at the job's end. */
  public Map<String, String> stepEnv(String key) {
    Map<String, String> env = new LinkedHashMap<>();
    env.put(HamConfig.ENV_WARM_DIR, root.getAbsolutePath());
    env.put(HamConfig.ENV_WARM_KEY, key);
    env.put(HamConfig.ENV_WARM_IDLE_MS, Long.toString(idleMs));
    return env;
  }

  /**
   * Claims {@code perNode} parked runners with {@code key} on each of {@code nodes} nodes for
   * generation {@code gen} (slots g&lt;gen&gt;-p&lt;i&gt;) of the job that {@code template}
   * describes (its slot is filled in per runner); returns how many took the claim, 0 if none
   * (then nothing was claimed: start a step). Runners reserved whose claim then failed are
   * reported as exited ({@link #exits}), so that replacements start in their place.
   */
  public synchronized int claim(String key, int nodes, int perNode, int gen,
      WarmClaims.Claim template) {
    Map<String, List<WarmRegistry.Parked>> byNode = new TreeMap<>();
    for (WarmRegistry.Parked p : registry.parked()) {
      if (key.equals(p.entry().key()) && WarmRegistry.ended(p.entry().job())) {
        byNode.computeIfAbsent(p.entry().node(), n -> new ArrayList<>()).add(p);
      }
    }
    List<WarmRegistry.Parked> chosen = new ArrayList<>();
    for (List<WarmRegistry.Parked> onNode : byNode.values()) {
      if (onNode.size() >= perNode && chosen.size() < nodes * perNode) {
        chosen.addAll(onNode.subList(0, perNode));
      }
    }
    if (chosen.size() < nodes * perNode) {
      if (!byNode.isEmpty()) {
        LOG.info("Not enough parked runners for generation {} ({} per node on {} nodes): {}; "
            + "starting new ones", gen, perNode, nodes, byNode.keySet());
      }
      return 0;
    }
    List<WarmRegistry.Parked> reserved = registry.reserve(chosen, template.jobId());
    if (reserved.size() < chosen.size()) {
      registry.unreserve(reserved);
      return 0;
    }
    List<Future<Socket>> answers = new ArrayList<>();
    ExecutorService pool = Executors.newFixedThreadPool(Math.min(32, reserved.size()));
    try {
      for (int i = 0; i < reserved.size(); i++) {
        WarmRegistry.Parked p = reserved.get(i);
        WarmClaims.Claim c = new WarmClaims.Claim(template.driverHost(), template.port(),
            template.jobId(), RunnerExit.slotName(gen, i), template.runtimeDir(),
            template.token(), idleMs);
        answers.add(pool.submit(() -> send(p.entry(), c)));
      }
      int taken = 0;
      List<Held> mine = new ArrayList<>();
      for (int i = 0; i < reserved.size(); i++) {
        Socket s = null;
        try {
          s = answers.get(i).get();
        } catch (Exception e) {
          LOG.info("Parked runner {} did not take the claim: {}", reserved.get(i).file().getName(),
              e.getCause() != null ? e.getCause().toString() : e.toString());
        }
        String name = chosen.get(i).file().getName();
        Held h = new Held(gen, RunnerExit.slotName(gen, i), reserved.get(i).entry().node(),
            name.substring(0, name.length() - WarmClaims.SUFFIX.length()), s);
        if (s == null) {
          h.closed = true;
        } else {
          taken++;
        }
        mine.add(h);
      }
      if (taken == 0) {
        return 0;
      }
      for (Held h : mine) {
        held.add(h);
        if (h.socket != null) {
          watch(h);
        }
      }
      LOG.info("Claimed {} parked runner(s) for generation {} (warm runners): {}", taken, gen,
          String.join(" ", mine.stream().filter(h -> !h.closed)
              .map(h -> h.name + "=" + h.slot).toList()));
      return mine.size();
    } finally {
      pool.shutdownNow();
      for (WarmRegistry.Parked p : reserved) {
        p.file().delete();
      }
    }
  }

  /** See {@link WarmRegistry#awaitParked}. */
  public int awaitParked(String jobDir, int expected, long waitMs) {
    return registry.awaitParked(jobDir, expected, waitMs);
  }

  /** Sends one claim; the connection, once the runner said OK. */
  private static Socket send(WarmClaims.Entry e, WarmClaims.Claim c) throws IOException {
    Socket s = new Socket();
    try {
      s.connect(new InetSocketAddress(e.address(), e.port()), CONNECT_MS);
      s.setTcpNoDelay(true);
      s.setSoTimeout(ANSWER_MS);
      OutputStream out = s.getOutputStream();
      out.write(c.line(e.nonce()).getBytes(StandardCharsets.UTF_8));
      out.flush();
      InputStream in = s.getInputStream();
      byte[] ok = (WarmClaims.OK + "\n").getBytes(StandardCharsets.UTF_8);
      for (byte b : ok) {
        if (in.read() != b) {
          throw new IOException("no OK from the runner");
        }
      }
      s.setSoTimeout(0);
      return s;
    } catch (IOException ex) {
      s.close();
      throw ex;
    }
  }

  private void watch(Held h) {
    Thread t = new Thread(() -> {
      try {
        while (h.socket.getInputStream().read() >= 0) {
          // the runner says nothing more: only its end matters
        }
      } catch (IOException e) {
        // closed
      }
      h.closed = true;
    }, "ham-warm-" + h.slot);
    t.setDaemon(true);
    t.start();
  }

  /** Claimed runners gone since the last call (their claim's connection closed). */
  public synchronized List<RunnerExit> exits() {
    List<RunnerExit> out = new ArrayList<>();
    for (Held h : held) {
      if (h.closed && !h.reported) {
        h.reported = true;
        out.add(new RunnerExit(h.slot, h.node, h.socket == null
            ? "the parked runner did not take the claim" : "its claim's connection closed"));
      }
    }
    return out;
  }

  /** Whether a claimed runner of generation {@code gen} is still there. */
  public synchronized boolean alive(int gen) {
    for (Held h : held) {
      if (h.generation == gen && !h.closed) {
        return true;
      }
    }
    return false;
  }

  /** Generations that claimed runners. */
  public synchronized boolean claimed(int gen) {
    for (Held h : held) {
      if (h.generation == gen) {
        return true;
      }
    }
    return false;
  }

  /** The job ended well: its claimed runners may park again (they are told to). */
  public synchronized void release() {
    for (Held h : held) {
      if (!h.closed) {
        try {
          OutputStream out = h.socket.getOutputStream();
          out.write((WarmClaims.RELEASE + "\n").getBytes(StandardCharsets.UTF_8));
          out.flush();
        } catch (IOException e) {
          LOG.debug("Releasing {}", h.slot, e);
        }
      }
    }
  }

  /**
   * Stops the claimed runners of {@code gens} (all if null): their claim closes, and they
   * exit; waits up to 3 s for them to be gone.
   */
  public synchronized void kill(Collection<Integer> gens) {
    List<Held> victims = new ArrayList<>();
    for (Held h : held) {
      if ((gens == null || gens.contains(h.generation)) && h.socket != null) {
        victims.add(h);
        try {
          h.socket.shutdownOutput();
        } catch (IOException e) {
          h.closed = true;
        }
      }
    }
    long deadline = System.currentTimeMillis() + 3000;
    for (Held h : victims) {
      while (!h.closed && System.currentTimeMillis() < deadline) {
        try {
          Thread.sleep(20);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          break;
        }
      }
      try {
        h.socket.close();
      } catch (IOException e) {
        // gone
      }
    }
  }
}
