package io.github.ham.mapreduce.driver;

import java.io.File;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.StandardCopyOption;
import java.security.PrivilegedExceptionAction;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

import com.fasterxml.jackson.databind.ObjectMapper;

import io.github.ham.mapreduce.common.HamConfig;
import io.github.ham.mapreduce.common.ids.RunnerId;
import io.github.ham.mapreduce.common.protocol.RunnerClientConf;
import io.github.ham.mapreduce.common.protocol.RunnerUmbilical;
import io.github.ham.mapreduce.runner.ConnectPacing;
import io.github.ham.mapreduce.runner.IdleBackoff;
import io.github.ham.mapreduce.runner.TaskEndCalls;

import org.apache.hadoop.ipc.RPC;
import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapred.JvmTask;
import org.apache.hadoop.mapred.SimTaskStatus;
import org.apache.hadoop.mapred.Task;
import org.apache.hadoop.mapred.TaskAttemptID;
import org.apache.hadoop.mapred.TaskUmbilicalProtocol;
import org.apache.hadoop.mapreduce.JobID;
import org.apache.hadoop.mapreduce.security.token.JobTokenIdentifier;
import org.apache.hadoop.net.NetUtils;
import org.apache.hadoop.security.SecurityUtil;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.security.token.Token;

/**
 * Scale bench (test code): one JVM of simulated task runners. The driver's local launcher
 * starts it in place of a {@code TaskRunner} JVM (see {@link ScaleBench}: its
 * {@code ham.runner.java} swaps the main class), with the same arguments and environment (the
 * job token in {@code $HAM_JOB_TOKEN}). Each thread is one runner: its own UGI holding the
 * job token, so its own IPC connection and SASL handshake, the IPC client settings of
 * {@code TaskRunner}, and its loop: getTask (held by the driver while it has nothing, with the
 * runner's {@link IdleBackoff} after an empty answer),
 * then for each attempt, without running it, what a map task says to the umbilical at its
 * end: commitPending + canCommit (a map-only job writing output), its last statusUpdate (with
 * a real map's counters) and done, through the runner's own {@link TaskEndCalls} (so in the
 * calls TaskRunner makes: commitPending with canCommit, and done with the next getTask).
 *
 * <p>With {@value #PER_CONNECTION} above 1, that many runners share a connection (and a UGI):
 * the driver still sees each runner's calls under its own id, but fewer connections.
 *
 * <p>Settings come as system properties (ham.runner.java.opts): {@value #RUNNERS} runners in
 * all over {@value #JVMS} JVMs (this one is the launcher's slot g0-p&lt;K&gt;), results and
 * gates in {@value #DIR}. First the JVM ends {@value #WARMUP} attempts against a stand-in in
 * itself ({@link SimWarmUp}) and says so in {@code DIR/warm-K}. The threads connect once
 * {@code DIR/connect} exists, and ask for
 * tasks once {@code DIR/go} exists; {@code DIR/connected-K} says this JVM's threads are
 * connected; {@code DIR/runners-K.json} holds what they saw. {@value #HANG} runners of JVM 0
 * go silent with an attempt in hand once that JVM has been given a quarter of its share of the
 * maps, or 2 if fewer (the JVMs' runners do not share the maps evenly: with half its share, and
 * on a loaded machine with a quarter of 60 maps, JVM 0 was given too few to hang any)
 * (a hung node), each announced in {@code DIR/hung-<attempt>} with the time of its last call.
 */
public final class SimRunners {
  static final String RUNNERS = "ham.scale.runners";
  static final String JVMS = "ham.scale.jvms";
  static final String MAPS = "ham.scale.maps";
  static final String DIR = "ham.scale.dir";
  static final String COMMIT = "ham.scale.commit";
  static final String HANG = "ham.scale.hang";
  static final String PER_NODE = "ham.scale.runners.per.node";
  static final String TASK_MS = "ham.scale.task.ms";
  static final String CONNECT_RAMP_MS = "ham.scale.connect.ramp.ms";
  static final String PER_CONNECTION = "ham.scale.runners.per.connection";
  /** Attempts this JVM ends against a stand-in before it connects ({@link SimWarmUp}). */
  static final String WARMUP = "ham.scale.sim.warmup";
  /** The RPCs a runner makes, for the latency histograms. */
  static final List<String> CALLS = List.of("getTask", "getTask_first", "getTask_idle",
      "commitPending",
      "canCommit", "statusUpdate", "done", "connect");
  /** Round trips to the driver per task (first getTask aside), as TaskEndCalls makes them. */
  static int rpcsPerTask(boolean commit) {
    return commit ? 2 : 1;
  }

  private final String host;
  private final int port;
  private final JobID jobId;
  private final File dir;
  private final int jvm;
  private final int threads;
  private final int firstRunner;
  private final int perNode;
  private final boolean commit;
  private final long taskMs;
  private final int hang;
  private final int hangAfter;
  /**
   * Runners sharing one IPC connection (one UGI): 1 is each its own, as real runners; more
   * when the machine cannot hold a connection thread per runner besides the runner's own.
   */
  private final int perConnection;
  private final Map<Integer, UserGroupInformation> owners =
      new java.util.concurrent.ConcurrentHashMap<>();
  private final Token<JobTokenIdentifier> token = new Token<>();
  private final JobConf conf = new JobConf();
  private final long pid = ProcessHandle.current().pid();

  private final Map<String, Histogram> latency = histograms();
  private final AtomicInteger connected = new AtomicInteger();
  private final AtomicInteger connectFailures = new AtomicInteger();
  private final AtomicInteger errors = new AtomicInteger();
  private final AtomicInteger tasks = new AtomicInteger();
  private final AtomicInteger reruns = new AtomicInteger();
  private final AtomicInteger idlePolls = new AtomicInteger();
  private final AtomicInteger hung = new AtomicInteger();
  private final AtomicInteger dispatched = new AtomicInteger();
  /** Runners told to exit (no more work). */
  private final AtomicInteger told = new AtomicInteger();
  private final AtomicLong firstDispatch = new AtomicLong(Long.MAX_VALUE);
  private final AtomicLong lastDone = new AtomicLong();
  /** Done attempts per 10 ms since go. */
  private final AtomicLongArray doneHist = new AtomicLongArray(1 << 17);
  private final List<String> failures = Collections.synchronizedList(new ArrayList<>());
  private volatile long go;
  private final CountDownLatch started = new CountDownLatch(1);
  /** Threads gone silent on purpose (hung runners). */
  private final java.util.Set<Thread> parked = java.util.concurrent.ConcurrentHashMap.newKeySet();

  private SimRunners(String host, int port, JobID jobId) throws IOException {
    this.host = host;
    this.port = port;
    this.jobId = jobId;
    this.dir = new File(System.getProperty(DIR));
    String slot = new File(".").getCanonicalFile().getName();  // g0-p<K>, from the launcher
    this.jvm = Integer.parseInt(slot.substring(slot.indexOf("-p") + 2));
    int runners = Integer.getInteger(RUNNERS, 1);
    int jvms = Integer.getInteger(JVMS, 1);
    this.threads = runners / jvms + (jvm < runners % jvms ? 1 : 0);
    this.firstRunner = jvm * (runners / jvms) + Math.min(jvm, runners % jvms);
    this.perNode = Integer.getInteger(PER_NODE, 32);
    this.commit = Boolean.parseBoolean(System.getProperty(COMMIT, "true"));
    this.taskMs = Long.getLong(TASK_MS, 0L);
    this.hang = jvm == 0 ? Integer.getInteger(HANG, 0) : 0;
    this.hangAfter = Math.min(2, Integer.getInteger(MAPS, 0) / jvms / 4);
    this.perConnection = Math.max(1, Integer.getInteger(PER_CONNECTION, 1));
    RunnerClientConf.apply(conf);  // as TaskRunner's
    UserGroupInformation.setConfiguration(conf);
    SecurityUtil.setConfiguration(conf);
    token.decodeFromUrlString(System.getenv(HamConfig.ENV_JOB_TOKEN));
  }

  /** An empty latency histogram per RPC a runner makes. */
  private static Map<String, Histogram> histograms() {
    Map<String, Histogram> out = new LinkedHashMap<>();
    for (String c : CALLS) {
      out.put(c, new Histogram());
    }
    return out;
  }

  public static void main(String[] args) throws Exception {
    if (!new File(".").getCanonicalFile().getName().startsWith("g0-")) {
      // A replacement the driver started for a lost runner: the simulated runners are all in
      // the first generation (ham.runner.max.relaunches=0 allows none but those whose task
      // the driver ended), so it leaves at once.
      System.exit(0);
    }
    SimRunners sim = new SimRunners(args[0], Integer.parseInt(args[1]), JobID.forName(args[2]));
    System.exit(sim.run());
  }

  private int run() throws Exception {
    // Gone with the driver: its JVM started this one (through the launcher's script, which
    // exec'ed it), as a real runner leaves when the driver is unreachable.
    ProcessHandle driver = ProcessHandle.current().parent().orElse(null);
    Thread watchdog = new Thread(() -> {
      while (driver != null && driver.isAlive()) {
        try {
          Thread.sleep(1000);
        } catch (InterruptedException e) {
          return;
        }
      }
      Runtime.getRuntime().halt(3);
    }, "sim-watchdog");
    watchdog.setDaemon(true);
    watchdog.start();
    InetSocketAddress address = NetUtils.createSocketAddrForHost(host, port);
    SecurityUtil.setTokenService(token, address);
    int warmTasks = Integer.getInteger(WARMUP, 0);
    long w0 = System.currentTimeMillis();
    if (warmTasks > 0) {
      Map<String, Histogram> discarded = histograms();  // the warm-up's latencies are not kept
      try {
        SimWarmUp.run(conf, org.apache.hadoop.mapred.JobID.downgrade(jobId), warmTasks,
            Math.min(threads, 4), (u, attempt, seq) -> endAttempt(u, attempt, seq, discarded));
      } catch (Exception e) {
        write("warm-" + jvm, Map.of("error", e.toString()));  // ScaleBench fails the run
        throw e;
      }
    }
    write("warm-" + jvm, Map.of("warmup_tasks", warmTasks,
        "warmup_ms", System.currentTimeMillis() - w0));
    await(new File(dir, "connect"));
    CountDownLatch ready = new CountDownLatch(threads);
    List<Thread> workers = new ArrayList<>();
    for (int i = 0; i < threads; i++) {
      int index = firstRunner + i;
      Thread t = new Thread(() -> runner(address, index, ready), "sim-runner-" + index);
      t.setDaemon(true);
      workers.add(t);
      t.start();
    }
    ready.await();
    write("connected-" + jvm, Map.of("connected", connected.get(),
        "connect_failures", connectFailures.get()));
    go = Long.parseLong(await(new File(dir, "go")).trim());
    started.countDown();
    // Until every runner is done (told to exit, or gone); once the first was told to exit,
    // at most 20 s more: the results must be written before the driver stops this JVM.
    long deadline = Long.MAX_VALUE;
    for (Thread t : workers) {
      while (t.isAlive() && !parked.contains(t) && System.currentTimeMillis() < deadline) {
        t.join(100);
        if (deadline == Long.MAX_VALUE && told.get() > 0) {
          deadline = System.currentTimeMillis() + 20_000;
        }
      }
    }
    int stragglers = 0;
    for (Thread t : workers) {
      stragglers += t.isAlive() && !parked.contains(t) ? 1 : 0;
    }
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("jvm", jvm);
    out.put("runners", threads);
    out.put("connected", connected.get());
    out.put("connect_failures", connectFailures.get());
    out.put("tasks", tasks.get());
    out.put("reruns", reruns.get());
    out.put("idle_polls", idlePolls.get());
    out.put("errors", errors.get());
    out.put("failures", failures.subList(0, Math.min(10, failures.size())));
    out.put("hung", Math.min(hang, hung.get()));
    out.put("stragglers", stragglers);
    out.put("go_ms", go);
    out.put("first_dispatch_ms", firstDispatch.get() == Long.MAX_VALUE ? 0 : firstDispatch.get());
    out.put("last_done_ms", lastDone.get());
    int last = doneHist.length() - 1;
    while (last >= 0 && doneHist.get(last) == 0) {
      last--;
    }
    List<Long> hist = new ArrayList<>();
    for (int i = 0; i <= last; i++) {
      hist.add(doneHist.get(i));
    }
    out.put("done_per_10ms", hist);
    Map<String, Object> lat = new LinkedHashMap<>();
    for (Map.Entry<String, Histogram> e : latency.entrySet()) {
      lat.put(e.getKey(), e.getValue().buckets());
    }
    out.put("latency_us_log2x4", lat);
    write("runners-" + jvm + ".json", out);
    return 0;
  }

  /** One simulated runner, as TaskRunner's main and loop, minus the task's work. */
  private void runner(InetSocketAddress address, int index, CountDownLatch ready) {
    String node = "sim" + (index / perNode);
    String runnerId = RunnerId.of(node, "g0-p" + jvm + "t" + index, pid);
    UserGroupInformation owner = owners.computeIfAbsent(index / perConnection, k -> {
      UserGroupInformation u = UserGroupInformation.createRemoteUser(jobId.toString());
      u.addToken(token);
      return u;
    });
    RunnerUmbilical umbilical = null;
    ConnectPacing pacing = new ConnectPacing(java.util.concurrent.ThreadLocalRandom.current());
    try {
      // As a runner of a step of them all (ConnectPacing), unless the bench asks for a ramp
      // of its own (each runner starts at a uniform random time within it).
      long ramp = Long.getLong(CONNECT_RAMP_MS, -1L);
      Thread.sleep(ramp < 0 ? pacing.firstCallDelayMs(Integer.getInteger(RUNNERS, 1))
          : ramp > 0 ? java.util.concurrent.ThreadLocalRandom.current().nextLong(ramp) : 0);
      long t0 = System.nanoTime();
      for (int tries = 0; ; tries++) {
        try {
          // As TaskRunner: one proxy. It asks for the job's credentials with its first task;
          // these runners connect once the job runs (the gates), so they ask at once.
          umbilical = owner.doAs((PrivilegedExceptionAction<RunnerUmbilical>) () ->
              RPC.getProxy(RunnerUmbilical.class, RunnerUmbilical.versionID, address, conf));
          umbilical.getJobCredentials();
          break;
        } catch (IOException e) {
          // A real runner that cannot connect exits and is replaced; a simulated one tries
          // again (a few times), so that the job has the runners it was sized for.
          connectFailures.incrementAndGet();
          if (tries >= 9) {
            failures.add("connect: " + e);
            return;
          }
          Thread.sleep(pacing.nextRetryMs());
        }
      }
      latency.get("connect").add(System.nanoTime() - t0);
      connected.incrementAndGet();
    } catch (Exception e) {
      failures.add("connect: " + e);
      return;
    } finally {
      ready.countDown();
    }
    try {
      // Until go, a call every 5 s keeps the connection (a real runner is never idle that
      // long: it asks for a task at least every second).
      org.apache.hadoop.mapred.JobID job = org.apache.hadoop.mapred.JobID.downgrade(jobId);
      while (!started.await(5, java.util.concurrent.TimeUnit.SECONDS)) {
        if (index % perConnection != 0) {
          continue;  // one runner per connection keeps it
        }
        try {
          umbilical.getMapCompletionEvents(job, 0, 1, new TaskAttemptID());
        } catch (IOException e) {
          failures.add("keepalive: " + e);
        }
      }
      loop(umbilical, runnerId);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      RPC.stopProxy(umbilical);
    }
  }

  private void loop(RunnerUmbilical driver, String runnerId)
      throws InterruptedException {
    long lastContact = System.currentTimeMillis();
    IdleBackoff idle = new IdleBackoff();
    org.apache.hadoop.mapred.JobID job = org.apache.hadoop.mapred.JobID.downgrade(jobId);
    TaskEndCalls calls = new TaskEndCalls(driver, job, pid, runnerId);
    TaskUmbilicalProtocol umbilical = calls.forTask();
    boolean first = true;
    while (true) {
      JvmTask next;
      long t0 = System.nanoTime();
      try {
        next = calls.nextTask();
        lastContact = System.currentTimeMillis();
      } catch (IOException e) {
        errors.incrementAndGet();
        failures.add("getTask: " + e);
        if (System.currentTimeMillis() - lastContact > HamConfig.DEFAULT_RUNNER_DRIVER_TIMEOUT_MS) {
          return;
        }
        Thread.sleep(1000);
        continue;
      }
      long took = System.nanoTime() - t0;
      boolean wasFirst = first;
      first = false;  // a runner's first call, whatever it returned
      if (next != null && next.shouldDie()) {
        told.incrementAndGet();
        return;
      }
      if (next == null || next.getTask() == null) {
        latency.get("getTask_idle").add(took);
        idlePolls.incrementAndGet();
        Thread.sleep(idle.pauseMs(took / 1_000_000));
        continue;
      }
      // A runner's first task request is apart: at go every runner asks at once, and the
      // last of that burst waits for all the others to be served whatever the driver does.
      latency.get(wasFirst ? "getTask_first" : "getTask").add(took);
      idle.reset();
      Task task = next.getTask();
      TaskAttemptID attempt = task.getTaskID();
      long now = System.currentTimeMillis();
      firstDispatch.accumulateAndGet(now, Math::min);
      if (attempt.getId() > 0) {
        reruns.incrementAndGet();
      }
      int dispatched = this.dispatched.incrementAndGet();
      if (hang > 0 && dispatched > hangAfter && hung.incrementAndGet() <= hang) {
        try {
          write("hung-" + attempt, Map.of("attempt", attempt.toString(), "runner", runnerId,
              "last_contact_ms", lastContact));
        } catch (IOException e) {
          failures.add("hung: " + e);
        }
        parked.add(Thread.currentThread());
        Thread.sleep(Long.MAX_VALUE);  // silent for good; a daemon thread, gone with the JVM
      }
      try {
        if (taskMs > 0) {
          // The task's work (not in the warm-up, which ends at once): taskMs on average,
          // uniform in 0.5-1.5x, as real tasks differ; equal times would keep the runners
          // asking in waves, all of them at once, as they did at go.
          Thread.sleep(taskMs / 2 + java.util.concurrent.ThreadLocalRandom.current()
              .nextLong(taskMs + 1));
        }
        endAttempt(umbilical, attempt, tasks.get(), latency);
        long end = System.currentTimeMillis();
        lastContact = end;
        tasks.incrementAndGet();
        lastDone.accumulateAndGet(end, Math::max);
        doneHist.incrementAndGet((int) Math.min(doneHist.length() - 1,
            Math.max(0, (end - go) / 10)));
      } catch (IOException e) {
        errors.incrementAndGet();
        failures.add(attempt + ": " + e);
      }
    }
  }

  /**
   * What a map that writes output says at its end (the task's own work aside): commitPending
   * and canCommit, its last statusUpdate and done, each call's latency into {@code times}.
   */
  private void endAttempt(TaskUmbilicalProtocol umbilical, TaskAttemptID attempt, long seq,
      Map<String, Histogram> times) throws IOException, InterruptedException {
    long t0;
    if (commit) {
      t0 = System.nanoTime();
      umbilical.commitPending(attempt, SimTaskStatus.map(attempt, true, seq));
      times.get("commitPending").add(System.nanoTime() - t0);
      while (true) {
        t0 = System.nanoTime();
        boolean ok = umbilical.canCommit(attempt);
        times.get("canCommit").add(System.nanoTime() - t0);
        if (ok) {
          break;
        }
        Thread.sleep(1000);  // as Task.commit
      }
    }
    t0 = System.nanoTime();
    umbilical.statusUpdate(attempt, SimTaskStatus.map(attempt, false, seq));
    times.get("statusUpdate").add(System.nanoTime() - t0);
    t0 = System.nanoTime();
    umbilical.done(attempt);
    times.get("done").add(System.nanoTime() - t0);
  }

  private String await(File gate) throws IOException, InterruptedException {
    while (!gate.isFile()) {
      Thread.sleep(10);
    }
    return Files.readString(gate.toPath(), StandardCharsets.UTF_8);
  }

  private void write(String name, Object value) throws IOException {
    File tmp = new File(dir, "." + name + ".tmp");
    new ObjectMapper().writeValue(tmp, value);
    Files.move(tmp.toPath(), new File(dir, name).toPath(), StandardCopyOption.ATOMIC_MOVE);
  }

  /** Latencies in quarter-octave buckets of microseconds: bucket b holds [2^(b/4), 2^((b+1)/4)). */
  static final class Histogram {
    static final int BUCKETS = 4 * 26;
    private final AtomicLongArray counts = new AtomicLongArray(BUCKETS);

    void add(long nanos) {
      double us = Math.max(1.0, nanos / 1000.0);
      counts.incrementAndGet((int) Math.min(BUCKETS - 1, Math.floor(4 * Math.log(us)
          / Math.log(2))));
    }

    List<Long> buckets() {
      List<Long> out = new ArrayList<>();
      for (int i = 0; i < BUCKETS; i++) {
        out.add(counts.get(i));
      }
      return out;
    }
  }
}
