package io.github.ham.mapreduce.driver;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.File;
import java.io.IOException;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.lang.reflect.Field;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;

import io.github.ham.mapreduce.client.HamClientProtocol;
import io.github.ham.mapreduce.common.HamConfig;
import io.github.ham.mapreduce.driver.report.StatusRecord;
import io.github.ham.mapreduce.driver.schedule.TaskScheduler;
import io.github.ham.mapreduce.runner.ConnectPacing;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileUtil;
import org.apache.hadoop.io.Writable;
import org.apache.hadoop.mapreduce.InputFormat;
import org.apache.hadoop.mapreduce.InputSplit;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.JobContext;
import org.apache.hadoop.mapreduce.JobStatus;
import org.apache.hadoop.mapreduce.Mapper;
import org.apache.hadoop.mapreduce.RecordReader;
import org.apache.hadoop.mapreduce.TaskAttemptContext;
import org.apache.hadoop.mapreduce.TaskCompletionEvent;
import org.apache.hadoop.mapreduce.lib.output.NullOutputFormat;

/**
 * Scale bench (test code; bench/hambench/scale.py runs it): a real HAM driver, in this JVM as
 * in a {@code hadoop jar} client, for a synthetic job of {@code --maps} empty splits, served to
 * {@code --runners} simulated runners ({@link SimRunners}) in {@code --jvms} JVMs (default: one
 * per 1,000 runners) that speak
 * the real umbilical protocol with the job token and do no task work. Measures the driver:
 * dispatches/s, its CPU per dispatch (the whole process, and by thread), heap per pending task,
 * per connected runner and per finished task (after full GCs), RSS, the status record's
 * write cost at the job's end, RPC latencies as the runners see them, and how long it takes to
 * notice a runner gone silent ({@code --hang}).
 *
 * <p>The only seam: the driver's own local launcher ({@code ham.launcher=local},
 * {@code ham.local.runners=--jvms}), with {@code ham.runner.java} a 3-line script that starts
 * the JVM with {@link SimRunners} in place of TaskRunner (same arguments, options,
 * environment). No Slurm, no product code changed for the bench.
 *
 * <p>Usage: {@code ScaleBench --maps N --runners R [--jvms J] [--warmup MAPS] [--sim-warmup N]
 * [--hang K] [--heartbeat-ms MS] [--commit true|false] [--reduces 0|1] [--task-ms MS]
 * [--conf key=value]... --work DIR --out FILE}
 */
public final class ScaleBench {
  private static final ObjectMapper JSON =
      new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
  static final String RUNNER_MAIN = "io.github.ham.mapreduce.runner.TaskRunner";
  private static final Handshakes HANDSHAKES = Handshakes.attach();

  private int maps = 1000;
  private int runners = 100;
  private int jvms = 0;
  private int warmup = 0;
  /** Attempts each simulated-runner JVM ends against a stand-in before it connects. */
  private int simWarmup = 0;
  /** Added to this JVM's niceness for the runner JVMs. */
  private int runnerNice = 9;
  /** The runners connect over this long (as JVMs started by one step come up). */
  private long connectRampMs = -1;
  /** Runners per IPC connection; 0: 1 up to 1,000 runners, then as many as keep 1,000. */
  private int perConnection = 0;
  private int hang = 0;
  private long heartbeatMs = HamConfig.DEFAULT_HEARTBEAT_TIMEOUT_MS;
  private boolean commit = true;
  private int reduces = 0;
  private long taskMs = 0;
  private File work;
  private File out;
  private final Map<String, String> extra = new LinkedHashMap<>();

  private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
  private final com.sun.management.OperatingSystemMXBean os =
      (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
  /** (time ms, process CPU ns) every 50 ms from go. */
  private final List<long[]> cpuSeries = new ArrayList<>();
  /** Thread id -> (name, CPU ns), last seen. */
  private final Map<Long, Object[]> threadCpu = new ConcurrentHashMap<>();
  private final Map<String, Long> threadCpuAtGo = new HashMap<>();
  private volatile boolean sampling = true;

  public static void main(String[] args) throws Exception {
    ScaleBench b = new ScaleBench();
    b.parse(args);
    Map<String, Object> result = b.run();
    System.out.println(JSON.writeValueAsString(result.get("metrics")));
    System.exit(0);
  }

  void parse(String[] args) {
    for (int i = 0; i < args.length; i += 2) {
      String v = args[i + 1];
      switch (args[i]) {
        case "--maps" -> maps = Integer.parseInt(v);
        case "--runners" -> runners = Integer.parseInt(v);
        case "--jvms" -> jvms = Integer.parseInt(v);
        case "--warmup" -> warmup = Integer.parseInt(v);
        case "--sim-warmup" -> simWarmup = Integer.parseInt(v);
        case "--runner-nice" -> runnerNice = Integer.parseInt(v);
        case "--connect-ramp-ms" -> connectRampMs = Long.parseLong(v);
        case "--runners-per-connection" -> perConnection = Integer.parseInt(v);
        case "--hang" -> hang = Integer.parseInt(v);
        case "--heartbeat-ms" -> heartbeatMs = Long.parseLong(v);
        case "--commit" -> commit = Boolean.parseBoolean(v);
        case "--reduces" -> reduces = Integer.parseInt(v);
        case "--task-ms" -> taskMs = Long.parseLong(v);
        case "--work" -> work = new File(v).getAbsoluteFile();
        case "--out" -> out = new File(v).getAbsoluteFile();
        case "--conf" -> extra.put(v.substring(0, v.indexOf('=')), v.substring(v.indexOf('=') + 1));
        default -> throw new IllegalArgumentException("unknown option " + args[i]);
      }
    }
    if (work == null) {
      throw new IllegalArgumentException("--work DIR is required");
    }
  }

  @SuppressWarnings("unchecked")
  Map<String, Object> run() throws Exception {
    FileUtil.fullyDelete(work);
    Files.createDirectories(work.toPath());
    Map<String, Object> cold = null;
    if (warmup > 0) {
      // The same JVM runs a first job, so that the one measured runs on warm (JIT-compiled)
      // code as a long job's driver does; its own rate is reported as cold_dispatches_per_s.
      cold = job(warmup, Math.min(runners, 1000), 0, "warmup", null);
    }
    Map<String, Object> result = job(maps, runners, hang, "job", out);
    if (cold != null) {
      Map<String, Object> m = (Map<String, Object>) result.get("metrics");
      m.put("cold_maps", warmup);
      m.put("cold_dispatches_per_s", ((Map<String, Object>) cold.get("metrics"))
          .get("dispatches_per_s"));
      m.put("cold_driver_cpu_ms_per_dispatch", ((Map<String, Object>) cold.get("metrics"))
          .get("driver_cpu_ms_per_dispatch"));
      if (out != null) {
        JSON.writeValue(out, result);
      }
    }
    return result;
  }

  /** One job of {@code maps} maps on {@code runners} simulated runners, measured. */
  private Map<String, Object> job(int maps, int runners, int hang, String name, File out)
      throws Exception {
    int jvms = this.jvms > 0 ? this.jvms : Math.max(1, (runners + 999) / 1000);
    File gates = new File(work, name + "-gates");
    Files.createDirectories(gates.toPath());
    File wrapper = new File(work, "sim-runner.sh");
    String java = System.getProperty("java.home") + "/bin/java";
    // The simulated runners share this machine with the driver, where real ones have nodes of
    // their own: they run niced below it (the driver's CPU is what is measured).
    Files.writeString(wrapper.toPath(), "#!/bin/sh\n"
        + "# ham.runner.java of the scale bench: the runner JVM, with the simulated runners'\n"
        + "# main class in place of TaskRunner (same options, class path, arguments).\n"
        + "for a do shift; [ \"$a\" = " + RUNNER_MAIN + " ] && a=" + SimRunners.class.getName()
        + "; set -- \"$@\" \"$a\"; done\n"
        + "exec nice -n " + runnerNice + " '" + java + "' \"$@\"\n");
    wrapper.setExecutable(true);
    threadCpu.clear();
    threadCpuAtGo.clear();
    synchronized (cpuSeries) {
      cpuSeries.clear();
    }
    sampling = true;

    Configuration conf = new Configuration();
    conf.set("fs.defaultFS", "file:///");
    conf.set("mapreduce.framework.name", HamConfig.FRAMEWORK_NAME);
    conf.set(HamConfig.JOB_DIR, new File(work, name).getPath());
    conf.set("yarn.app.mapreduce.am.staging-dir", new File(work, name + "-staging").getPath());
    conf.set("mapreduce.jobtracker.staging.root.dir", new File(work, name + "-staging").getPath());
    conf.set("mapreduce.cluster.local.dir", new File(work, "local").getPath());
    conf.set("hadoop.tmp.dir", new File(work, "tmp").getPath());
    conf.set(HamConfig.DRIVER_HOST, "127.0.0.1");
    conf.set(HamConfig.DRIVER_BIND_HOST, "127.0.0.1");
    conf.set(HamConfig.LAUNCHER, HamConfig.LAUNCHER_LOCAL);
    conf.setInt(HamConfig.LOCAL_RUNNERS, jvms);
    conf.set(HamConfig.RUNNER_JAVA, wrapper.getPath());
    conf.set(HamConfig.RUNNER_CLASSPATH, absolute(System.getProperty("java.class.path")));
    conf.set(HamConfig.RUNNER_JAVA_OPTS, String.join(" ", "-XX:+UseSerialGC", "-Xss256k",
        "-XX:TieredStopAtLevel=1",
        "-D" + SimRunners.RUNNERS + "=" + runners, "-D" + SimRunners.JVMS + "=" + jvms,
        "-D" + SimRunners.MAPS + "=" + maps, "-D" + SimRunners.DIR + "=" + gates,
        "-D" + SimRunners.COMMIT + "=" + commit, "-D" + SimRunners.HANG + "=" + hang,
        // The warm-up job's tasks take no time: it is there to compile the driver's code.
        "-D" + SimRunners.TASK_MS + "=" + (name.equals("warmup") ? 0 : taskMs),
        "-D" + SimRunners.WARMUP + "=" + simWarmup,
        "-D" + SimRunners.CONNECT_RAMP_MS + "=" + connectRampMs,
        "-D" + SimRunners.PER_CONNECTION + "=" + perConnection(runners)));
    // A young generation that holds a few seconds of allocation: every collection stops
    // (and scans the stacks of) a thousand runner threads and their connections' threads.
    conf.set("mapreduce.map.java.opts", "-Xmx512m -Xmn256m");
    conf.set("mapreduce.reduce.java.opts", "-Xmx512m -Xmn256m");
    conf.setLong(HamConfig.HEARTBEAT_TIMEOUT_MS, heartbeatMs);
    conf.setInt(HamConfig.MAX_RUNNER_LAUNCHES, 0);
    // Speculation on (Hadoop's default: the scheduler looks for stragglers whenever a runner
    // finds nothing pending), but no attempt runs long enough for one: a hung runner's
    // attempt is ended by the heartbeat timeout (what lost_detect_s measures), and a slow
    // answer on a loaded machine starts no second attempt.
    conf.setLong(HamConfig.SPECULATIVE_MIN_MS, 3_600_000L);
    // The runners write their results as they exit: let them (the job's end waits for it).
    conf.setLong(HamConfig.STEP_EXIT_WAIT_MS, 120_000);
    conf.setInt(EmptySplits.COUNT, maps);
    for (Map.Entry<String, String> e : extra.entrySet()) {
      conf.set(e.getKey(), e.getValue());
    }

    Job job = Job.getInstance(conf, "scale-" + maps + "x" + runners);
    job.setInputFormatClass(EmptySplits.class);
    job.setMapperClass(Mapper.class);
    job.setNumReduceTasks(reduces);
    job.setOutputFormatClass(NullOutputFormat.class);

    Map<String, Object> m = new LinkedHashMap<>();
    long heapBase = heapAfterGc();
    long rssBase = procStatus("VmRSS");
    long t0 = System.currentTimeMillis();
    int handshakes0 = HANDSHAKES.count.get();
    job.submit();
    long submitted = System.currentTimeMillis();
    while (job.getStatus().getState() == JobStatus.State.PREP) {
      Thread.sleep(5);
    }
    long running = System.currentTimeMillis();
    long heapPending = heapAfterGc();
    long rssPending = procStatus("VmRSS");

    // The runner JVMs warm up (SimWarmUp), then their runners connect (job token, SASL), then
    // wait for go.
    long simWarmupMs = 0;
    for (int k = 0; k < jvms; k++) {
      JsonNode w = JSON.readTree(awaitGate(job, gates, "warm-" + k));
      if (w.has("error")) {
        throw new IOException("runner JVM " + k + ": warm-up failed: " + w.get("error").asText());
      }
      simWarmupMs = Math.max(simWarmupMs, w.get("warmup_ms").asLong());
    }
    long connectStart = System.currentTimeMillis();
    long connectCpu0 = os.getProcessCpuTime();
    gate(gates, "connect", "1");
    int connected = 0;
    int connectFailures = 0;
    for (int k = 0; k < jvms; k++) {
      JsonNode c = JSON.readTree(awaitGate(job, gates, "connected-" + k));
      connected += c.get("connected").asInt();
      connectFailures += c.get("connect_failures").asInt();
    }
    long connectEnd = System.currentTimeMillis();
    // The driver's CPU for the connections (SASL with the job token, the first call), the
    // connect storm's cost in machine-independent units: on 2 cores shared with the runner
    // JVMs, connect_s is mostly the simulated runners' own start.
    long connectCpuNs = os.getProcessCpuTime() - connectCpu0;
    long heapConnected = heapAfterGc();

    Thread sampler = new Thread(this::sample, "scale-sampler");
    sampler.setDaemon(true);
    sampleThreads();
    for (Object[] t : threadCpu.values()) {
      threadCpuAtGo.merge(group((String) t[0]), (Long) t[1], Long::sum);
    }
    long go = System.currentTimeMillis();
    synchronized (cpuSeries) {
      cpuSeries.add(new long[] {go, os.getProcessCpuTime()});
    }
    long gcAtGo = gcMillis();
    long jitAtGo = jitMillis();
    sampler.start();
    gate(gates, "go", Long.toString(go));

    // As a `hadoop jar` client: progress, failed attempts and counters printed, in a thread.
    boolean[] ok = new boolean[1];
    Thread client = new Thread(() -> {
      try {
        ok[0] = job.monitorAndPrintJob();
      } catch (Exception e) {
        e.printStackTrace();
      }
    }, "client");
    client.start();
    Map<String, long[]> hangs = watchHangs(job, gates);
    client.join();
    long complete = System.currentTimeMillis();
    int handshakes = HANDSHAKES.count.get() - handshakes0;
    sampling = false;
    sampler.join();
    sampleThreads();

    // What the runners saw.
    int tasks = 0;
    int reruns = 0;
    int errors = 0;
    int idlePolls = 0;
    int stragglers = 0;
    long lastDone = 0;
    long firstDispatch = Long.MAX_VALUE;
    List<Long> done = new ArrayList<>();
    Map<String, long[]> latency = new LinkedHashMap<>();
    List<String> failures = new ArrayList<>();
    for (int k = 0; k < jvms; k++) {
      File f = new File(gates, "runners-" + k + ".json");
      if (!f.isFile()) {
        throw new IOException("runner JVM " + k + " left no results (see "
            + new File(work, name) + "/jobs/*/logs/runner.g0-p" + k + ".log)");
      }
      JsonNode r = JSON.readTree(f);
      tasks += r.get("tasks").asInt();
      reruns += r.get("reruns").asInt();
      errors += r.get("errors").asInt();
      idlePolls += r.get("idle_polls").asInt();
      stragglers += r.get("stragglers").asInt();
      lastDone = Math.max(lastDone, r.get("last_done_ms").asLong());
      if (r.get("first_dispatch_ms").asLong() > 0) {
        firstDispatch = Math.min(firstDispatch, r.get("first_dispatch_ms").asLong());
      }
      r.get("failures").forEach(x -> failures.add(x.asText()));
      JsonNode h = r.get("done_per_10ms");
      for (int i = 0; i < h.size(); i++) {
        while (done.size() <= i) {
          done.add(0L);
        }
        done.set(i, done.get(i) + h.get(i).asLong());
      }
      r.get("latency_us_log2x4").fields().forEachRemaining(e -> {
        long[] b = latency.computeIfAbsent(e.getKey(), x -> new long[e.getValue().size()]);
        for (int i = 0; i < b.length; i++) {
          b[i] += e.getValue().get(i).asLong();
        }
      });
    }
    // The dispatch window: go until all but the hung attempts were done (their re-runs wait
    // for the hang to be noticed).
    int firstRuns = maps - hang;
    long end = hang == 0 ? lastDone : go + timeOf(done, firstRuns);
    double window = Math.max(1, end - go) / 1000.0;
    double cpuWindow = (cpuAt(end) - cpuAt(go)) / 1e9;
    m.put("maps", maps);
    m.put("runners", runners);
    m.put("runner_jvms", jvms);
    m.put("runners_per_connection", perConnection(runners));
    m.put("succeeded", ok[0] ? 1 : 0);
    m.put("tasks_done", tasks);
    m.put("reruns", reruns);
    m.put("rpc_errors", errors);
    m.put("idle_polls", idlePolls);
    m.put("runner_stragglers", stragglers);
    m.put("rpcs_per_task", SimRunners.rpcsPerTask(commit));
    m.put("dispatches_per_s", firstRuns / window);
    long t10 = timeOf(done, (int) Math.ceil(0.1 * firstRuns));
    long t90 = timeOf(done, (int) Math.ceil(0.9 * firstRuns));
    if (t90 > t10) {
      m.put("steady_dispatches_per_s", 0.8 * firstRuns / ((t90 - t10) / 1000.0));
    }
    m.put("dispatch_window_s", window);
    m.put("first_dispatch_s", firstDispatch == Long.MAX_VALUE ? 0 : (firstDispatch - go) / 1e3);
    m.put("driver_cpu_ms_per_dispatch", cpuWindow * 1e3 / firstRuns);
    m.put("driver_cpu_util", cpuWindow / window);
    m.put("driver_cpu_bound_dispatches_per_s", firstRuns / Math.max(cpuWindow, 1e-9));
    m.put("driver_gc_ms", gcMillis() - gcAtGo);
    // The JIT compilers' time from go to the job's end: a driver still compiling its hot
    // paths spends CPU on it and runs slower code meanwhile.
    m.put("driver_jit_ms", jitMillis() - jitAtGo);
    if (lastDone - end > 1000) {
      // After the first runs: runners idle (polling) while the hung attempt waits to be
      // noticed and run again.
      m.put("tail_driver_cpu_util", (cpuAt(lastDone) - cpuAt(end)) / 1e9
          / ((lastDone - end) / 1e3));
    }
    Map<String, Long> byGroup = new LinkedHashMap<>();
    for (Object[] t : threadCpu.values()) {
      byGroup.merge(group((String) t[0]), (Long) t[1], Long::sum);
    }
    Map<String, Double> perDispatch = new LinkedHashMap<>();
    for (Map.Entry<String, Long> e : byGroup.entrySet()) {
      long ns = e.getValue() - threadCpuAtGo.getOrDefault(e.getKey(), 0L);
      perDispatch.put(e.getKey(), ns / 1e6 / firstRuns);
    }
    m.put("thread_cpu_ms_per_dispatch", perDispatch);
    m.put("submit_s", (submitted - t0) / 1e3);
    m.put("prepare_s", (running - submitted) / 1e3);
    m.put("connect_s", (connectEnd - connectStart) / 1e3);
    m.put("connect_driver_cpu_s", connectCpuNs / 1e9);
    int connections = (runners + perConnection(runners) - 1) / perConnection(runners);
    m.put("driver_cpu_ms_per_connection", connectCpuNs / 1e6 / connections);
    m.put("sim_warmup_tasks", simWarmup);
    m.put("sim_warmup_s", simWarmupMs / 1e3);
    m.put("runners_connected", connected);
    // Each connection is one SASL handshake: a runner's connection lasts as long as the runner,
    // however long its calls are held (RunnerClientConf), so this is 1 but for reconnects.
    m.put("handshakes", handshakes);
    m.put("handshakes_per_connection", (double) handshakes / connections);
    m.put("connect_failures", connectFailures);
    m.put("job_end_s", (complete - lastDone) / 1e3);
    m.put("heap_per_pending_task_B", (double) (heapPending - heapBase) / maps);
    m.put("heap_per_runner_B", (double) (heapConnected - heapPending) / runners);
    m.put("rss_pending_MB", rssPending / 1024.0);
    m.put("rss_per_pending_task_B", (rssPending - rssBase) * 1024.0 / maps);
    for (Map.Entry<String, long[]> e : latency.entrySet()) {
      long n = 0;
      for (long x : e.getValue()) {
        n += x;
      }
      if (n > 0) {
        m.put("rpc_" + e.getKey() + "_p50_ms", percentile(e.getValue(), 0.5));
        m.put("rpc_" + e.getKey() + "_p99_ms", percentile(e.getValue(), 0.99));
        m.put("rpc_" + e.getKey() + "_max_ms", percentile(e.getValue(), 1.0));
      }
    }
    if (!hangs.isEmpty()) {
      double sum = 0;
      double max = 0;
      int seen = 0;
      for (long[] h : hangs.values()) {
        if (h[1] > 0) {
          sum += (h[1] - h[0]) / 1e3;
          max = Math.max(max, (h[1] - h[0]) / 1e3);
          seen++;
        }
      }
      m.put("lost_runners", hangs.size());
      m.put("lost_detected", seen);
      m.put("heartbeat_timeout_s", heartbeatMs / 1e3);
      if (seen > 0) {
        m.put("lost_detect_s", sum / seen);
        m.put("lost_detect_max_s", max);
        m.put("lost_detect_over_timeout_s", sum / seen - heartbeatMs / 1e3);
      }
    }
    recordCost(m, job.getJobID().toString());
    long heapEnd = heapAfterGc();
    m.put("heap_per_finished_task_B", (double) (heapEnd - heapBase) / maps);
    m.put("rss_peak_MB", procStatus("VmHWM") / 1024.0);
    m.put("heap_max_MB", Runtime.getRuntime().maxMemory() / 1048576.0);

    Map<String, Object> result = new LinkedHashMap<>();
    result.put("metrics", m);
    result.put("failures", failures.subList(0, Math.min(20, failures.size())));
    Map<String, Object> config = new LinkedHashMap<>();
    config.put("maps", maps);
    config.put("runners", runners);
    config.put("jvms", jvms);
    config.put("hang", hang);
    config.put("heartbeat_ms", heartbeatMs);
    config.put("commit", commit);
    config.put("reduces", reduces);
    config.put("task_ms", taskMs);
    config.put("warmup_maps", warmup);
    config.put("runner_nice", runnerNice);
    // -1: the runners' own spread (ConnectPacing), as one step of them all.
    config.put("connect_ramp_ms", connectRampMs >= 0 ? connectRampMs
        : ConnectPacing.spreadMs(runners));
    config.put("runners_per_connection", perConnection(runners));
    config.put("conf", extra);
    result.put("config", config);
    List<Long> series = new ArrayList<>();
    for (long x : done) {
      series.add(x);
    }
    result.put("done_per_10ms", series);
    // The driver's CPU (ms) in each second from go, beside done_per_10ms: how its cost per
    // dispatch changes over the job (JIT warm-up, work that grows or shrinks with the job).
    List<Long> cpu = new ArrayList<>();
    for (long t = go; t < go + 10L * done.size(); t += 1000) {
      cpu.add((cpuAt(t + 1000) - cpuAt(t)) / 1_000_000);
    }
    result.put("driver_cpu_ms_per_s", cpu);
    if (out != null) {
      JSON.writeValue(out, result);
    }
    return result;
  }

  /**
   * The status record written as the driver writes it (the same call as its supervision loop),
   * at the job's end, when it holds every attempt: median of 5 writes, and its size.
   */
  @SuppressWarnings("unchecked")
  private void recordCost(Map<String, Object> m, String id) throws Exception {
    Field jobs = HamClientProtocol.class.getDeclaredField("JOBS");
    jobs.setAccessible(true);
    HamJob job = ((Map<?, HamJob>) jobs.get(null)).get(id);
    StatusRecord record = (StatusRecord) field(job, "record");
    JobReport report = (JobReport) field(job, "report");
    TaskScheduler scheduler = (TaskScheduler) field(job, "scheduler");
    List<Double> build = new ArrayList<>();
    List<Double> write = new ArrayList<>();
    List<Double> snapshot = new ArrayList<>();
    JobStatus.State state = job.status().getState();
    // By reflection: the record's types changed with the driver (a Map, then a Content), and
    // the bench measures both.
    java.lang.reflect.Method build0 = JobReport.class.getDeclaredMethod("record",
        JobStatus.State.class, boolean.class);
    java.lang.reflect.Method write0 = StatusRecord.class.getDeclaredMethod("write",
        build0.getReturnType());
    build0.setAccessible(true);
    write0.setAccessible(true);
    for (int i = 0; i < 5; i++) {
      long a = System.nanoTime();
      scheduler.attempts();
      long b = System.nanoTime();
      Object r = build0.invoke(report, state, false);
      long c = System.nanoTime();
      write0.invoke(record, r);
      long d = System.nanoTime();
      snapshot.add((b - a) / 1e6);
      build.add((c - b) / 1e6);
      write.add((d - c) / 1e6);
    }
    m.put("record_attempts_snapshot_ms", median(snapshot));
    m.put("record_build_ms", median(build));
    m.put("record_write_ms", median(write));
    m.put("record_total_ms", median(build) + median(write));
    m.put("record_bytes", record.file().length());
  }

  private int perConnection(int runners) {
    return perConnection > 0 ? perConnection : Math.max(1, (runners + 999) / 1000);
  }

  /** Waits for a file a runner JVM writes in {@code gates}; the job ending first fails. */
  private static File awaitGate(Job job, File gates, String name) throws Exception {
    File f = new File(gates, name);
    while (!f.isFile()) {
      if (job.isComplete()) {
        throw new IOException("the job ended before its runners wrote " + name + ": "
            + job.getStatus().getFailureInfo());
      }
      Thread.sleep(10);
    }
    return f;
  }

  /** Opens a gate the runners wait for: the file appears whole (written aside, renamed). */
  private static void gate(File gates, String name, String content) throws IOException {
    File tmp = new File(gates, "." + name);
    Files.writeString(tmp.toPath(), content);
    Files.move(tmp.toPath(), new File(gates, name).toPath(),
        java.nio.file.StandardCopyOption.ATOMIC_MOVE);
  }

  /** A class path whose entries do not depend on the working directory. */
  private static String absolute(String classPath) {
    List<String> out = new ArrayList<>();
    for (String e : classPath.split(File.pathSeparator)) {
      out.add(e.isEmpty() ? e : new File(e).getAbsolutePath());
    }
    return String.join(File.pathSeparator, out);
  }

  private static Object field(Object o, String name) throws ReflectiveOperationException {
    Field f = o.getClass().getDeclaredField(name);
    f.setAccessible(true);
    return f.get(o);
  }

  private static double median(List<Double> xs) {
    List<Double> s = new ArrayList<>(xs);
    s.sort(null);
    return s.get(s.size() / 2);
  }

  /** Hung runners (DIR/hung-*) and when the driver ended their attempts: attempt -> (last contact, ended). */
  private Map<String, long[]> watchHangs(Job job, File gates) throws Exception {
    Map<String, long[]> hangs = new LinkedHashMap<>();
    int cursor = 0;
    while (!job.isComplete()) {
      File[] found = gates.listFiles((d, n) -> n.startsWith("hung-"));
      for (File f : found == null ? new File[0] : found) {
        String attempt = f.getName().substring(5);
        if (!hangs.containsKey(attempt)) {
          hangs.put(attempt, new long[] {JSON.readTree(f).get("last_contact_ms").asLong(), 0});
        }
      }
      boolean pending = hangs.values().stream().anyMatch(h -> h[1] == 0);
      if (pending) {
        TaskCompletionEvent[] events = job.getTaskCompletionEvents(cursor, 100_000);
        long now = System.currentTimeMillis();
        cursor += events.length;
        for (TaskCompletionEvent e : events) {
          long[] h = hangs.get(e.getTaskAttemptId().toString());
          if (h != null && h[1] == 0) {
            h[1] = now;
          }
        }
      }
      // Every 0.1 s: lost_detect_s is seconds (the heartbeat timeout), and this thread's CPU
      // counts as the driver's (at every 10 ms it was 2% of a core in an async-profiler run).
      Thread.sleep(100);
    }
    return hangs;
  }

  /** The time (ms after go) by which {@code n} attempts were done, from 10 ms buckets. */
  private static long timeOf(List<Long> done, int n) {
    long sum = 0;
    for (int i = 0; i < done.size(); i++) {
      sum += done.get(i);
      if (sum >= n) {
        return (i + 1) * 10L;
      }
    }
    return done.size() * 10L;
  }

  private long cpuAt(long t) {
    synchronized (cpuSeries) {
      long[] prev = cpuSeries.get(0);
      for (long[] s : cpuSeries) {
        if (s[0] >= t) {
          if (s[0] == prev[0]) {
            return s[1];
          }
          return prev[1] + (s[1] - prev[1]) * (t - prev[0]) / (s[0] - prev[0]);
        }
        prev = s;
      }
      return prev[1];
    }
  }

  private void sample() {
    long lastThreads = 0;
    while (sampling) {
      try {
        Thread.sleep(50);
      } catch (InterruptedException e) {
        return;
      }
      long now = System.currentTimeMillis();
      synchronized (cpuSeries) {
        cpuSeries.add(new long[] {now, os.getProcessCpuTime()});
      }
      if (now - lastThreads >= 500) {
        sampleThreads();
        lastThreads = now;
      }
    }
  }

  private void sampleThreads() {
    for (ThreadInfo t : threads.getThreadInfo(threads.getAllThreadIds())) {
      if (t == null) {
        continue;
      }
      long cpu = threads.getThreadCpuTime(t.getThreadId());
      if (cpu >= 0) {
        threadCpu.put(t.getThreadId(), new Object[] {t.getThreadName(), cpu});
      }
    }
  }

  /** Threads by role: the IPC server's, the driver's own, the client's, the rest. */
  static String group(String name) {
    if (name.startsWith("IPC Server handler")) {
      return "ipc_handlers";
    }
    if (name.startsWith("Socket Reader")) {
      return "ipc_readers";
    }
    if (name.startsWith("IPC Server Responder")) {
      return "ipc_responder";
    }
    if (name.startsWith("IPC Server listener")) {
      return "ipc_listener";
    }
    if (name.startsWith("HamJob-")) {
      return "supervisor";
    }
    if (name.startsWith("ham-history")) {
      return "history";
    }
    if (name.equals("client") || name.equals("main")) {
      return "client";
    }
    if (name.startsWith("scale-")) {
      return "bench";
    }
    return "other";
  }

  private static double percentile(long[] buckets, double q) {
    long n = 0;
    for (long x : buckets) {
      n += x;
    }
    long want = (long) Math.ceil(q * n);
    long sum = 0;
    for (int i = 0; i < buckets.length; i++) {
      sum += buckets[i];
      if (sum >= want && buckets[i] > 0) {
        return Math.pow(2, (i + 1) / 4.0) / 1000.0;  // the bucket's upper bound, in ms
      }
    }
    return 0;
  }

  private long heapAfterGc() {
    for (int i = 0; i < 3; i++) {
      System.gc();
    }
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
  }

  private static long jitMillis() {
    java.lang.management.CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
    return jit != null && jit.isCompilationTimeMonitoringSupported()
        ? jit.getTotalCompilationTime() : 0;
  }

  private static long gcMillis() {
    long ms = 0;
    for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
      ms += Math.max(0, gc.getCollectionTime());
    }
    return ms;
  }

  /** A field of /proc/self/status, in kB (0 if unknown). */
  private static long procStatus(String key) {
    try {
      for (String line : Files.readAllLines(new File("/proc/self/status").toPath(),
          StandardCharsets.UTF_8)) {
        if (line.startsWith(key + ":")) {
          return Long.parseLong(line.replaceAll("[^0-9]", ""));
        }
      }
    } catch (IOException | NumberFormatException e) {
      // not Linux
    }
    return 0;
  }

  /** {@value #COUNT} empty splits: a job of that many maps that read nothing. */
  public static final class EmptySplits extends InputFormat<Object, Object> {
    static final String COUNT = "ham.scale.splits";

    @Override
    public List<InputSplit> getSplits(JobContext context) {
      int n = context.getConfiguration().getInt(COUNT, 1);
      List<InputSplit> splits = new ArrayList<>(n);
      for (int i = 0; i < n; i++) {
        splits.add(new EmptySplit());
      }
      return splits;
    }

    @Override
    public RecordReader<Object, Object> createRecordReader(InputSplit split,
        TaskAttemptContext context) {
      throw new UnsupportedOperationException("the scale bench's maps are never run");
    }
  }

  public static final class EmptySplit extends InputSplit implements Writable {
    @Override
    public long getLength() {
      return 0;
    }

    @Override
    public String[] getLocations() {
      return new String[0];
    }

    @Override
    public void write(DataOutput out) {
    }

    @Override
    public void readFields(DataInput in) {
    }
  }

  /** SASL handshakes the driver's IPC server completed (Hadoop's SecurityLogger logs each). */
  private static final class Handshakes extends org.apache.log4j.AppenderSkeleton {
    final java.util.concurrent.atomic.AtomicInteger count =
        new java.util.concurrent.atomic.AtomicInteger();

    static Handshakes attach() {
      Handshakes h = new Handshakes();
      org.apache.log4j.Logger.getLogger(
          "SecurityLogger." + org.apache.hadoop.ipc.Server.class.getName()).addAppender(h);
      return h;
    }

    @Override
    protected void append(org.apache.log4j.spi.LoggingEvent e) {
      if (String.valueOf(e.getMessage()).startsWith("Auth successful")) {
        count.incrementAndGet();
      }
    }

    @Override
    public void close() {
    }

    @Override
    public boolean requiresLayout() {
      return false;
    }
  }
}
