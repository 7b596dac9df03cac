package io.github.ham.mapreduce.common;

/**
 * Configuration keys shared by the HAM launcher (which renders them into mapred-site.xml)
 * and the Java runtime. Every key the runtime reads is defined here, with its default.
 * This class is the source of the cross-language contract: {@code io.github.ham.mapreduce.Contract}
 * prints its constants and tests/unit/test_contract.py checks the launcher's copies
 * (launcher/ham/contract.py) against them.
 */
public final class HamConfig {
  /** Value of mapreduce.framework.name that selects HAM. */
  public static final String FRAMEWORK_NAME = "ham";

  /** Absolute per-job directory on the shared file system. */
  public static final String JOB_DIR = "ham.job.dir";
  /** Address runners connect to (an IP reachable from the compute nodes). */
  public static final String DRIVER_HOST = "ham.driver.host";
  /** Address the umbilical server binds to. */
  public static final String DRIVER_BIND_HOST = "ham.driver.bind.host";
  public static final String DEFAULT_DRIVER_BIND_HOST = "0.0.0.0";
  /**
   * The network runners reach the driver over (the launcher's setting {@code network}, which
   * also picks the driver's address on it): an interface name (ib0) or an IPv4 subnet
   * (10.1.0.0/16); unset: any. Read by each runner when it starts, from the job directory's
   * conf/mapred-site.xml ({@link NetworkChoice}).
   */
  public static final String NETWORK = "ham.network";
  /** Java executable for the runner JVMs. */
  public static final String RUNNER_JAVA = "ham.runner.java";
  /** Class path of the runner JVMs (conf dir, HAM jar, Hadoop lib/*). */
  public static final String RUNNER_CLASSPATH = "ham.runner.classpath";
  /**
   * HAM's own JVM options of the runners, before the task's (mapreduce.{map,reduce}.java.opts
   * and the heap YARN derives from memory.mb), so that the task's -Xmx wins.
   */
  public static final String RUNNER_JAVA_OPTS = "ham.runner.java.opts";
  /**
   * Serial GC and C1 only: many runner JVMs share a node's cores. NewRatio=1 (a young
   * generation of half the heap instead of a third) lets a map task's new sort buffer
   * (mapreduce.task.io.sort.mb, 100 MB by default; later maps reuse it unless
   * REUSE_SORT_BUFFER is off or the job names another collector) be allocated in eden: with
   * the default ratio the initial eden (~100 MB) is too small, the buffer is promoted or
   * allocated in the old generation, and a runner spends ~85 ms of GC per task (a young
   * collection copying the live buffer, and a full collection every third task); with it,
   * ~3 ms. The launcher's runner_java_opts setting has the same default (the contract test
   * checks it).
   */
  public static final String DEFAULT_RUNNER_JAVA_OPTS =
      "-XX:+UseSerialGC -XX:TieredStopAtLevel=1 -XX:NewRatio=1";
  /** srun executable. */
  public static final String SRUN = "ham.srun";
  public static final String DEFAULT_SRUN = "srun";
  /** Runners per node; 0 = from the allocation's CPUs and the tasks' vcores. */
  public static final String RUNNERS_PER_NODE = "ham.runners.per.node";
  public static final int DEFAULT_RUNNERS_PER_NODE = 0;
  /** "srun" (default) or "local": spawn runner JVMs as local processes (developer testing). */
  public static final String LAUNCHER = "ham.launcher";
  public static final String LAUNCHER_SRUN = "srun";
  public static final String LAUNCHER_LOCAL = "local";
  public static final String DEFAULT_LAUNCHER = LAUNCHER_SRUN;
  /** Number of runner JVMs for the local launcher; 0 = same rule as per node. */
  public static final String LOCAL_RUNNERS = "ham.local.runners";
  public static final int DEFAULT_LOCAL_RUNNERS = 0;
  /** scontrol executable (node health before a runner is replaced). */
  public static final String SCONTROL = "ham.scontrol";
  public static final String DEFAULT_SCONTROL = "scontrol";
  /**
   * How many times runners are started again, in all: the whole set when none is left, or one
   * runner in place of a lost one.
   */
  public static final String MAX_RUNNER_LAUNCHES = "ham.runner.max.relaunches";
  public static final int DEFAULT_MAX_RUNNER_LAUNCHES = 3;
  /** An attempt with no contact (status or ping) for this long is considered lost. */
  public static final String HEARTBEAT_TIMEOUT_MS = "ham.heartbeat.timeout.ms";
  public static final long DEFAULT_HEARTBEAT_TIMEOUT_MS = 30_000L;
  /**
   * A runner that has not reached the driver this long after it was started is lost (its JVM
   * hung or stopped before it said hello; the heartbeat timeout covers runners only once they
   * have). Generous: a JVM starting under srun on a busy node takes seconds.
   */
  public static final String RUNNER_START_TIMEOUT_MS = "ham.runner.start.timeout.ms";
  public static final long DEFAULT_RUNNER_START_TIMEOUT_MS = 120_000L;
  /**
   * Start the job's first runners when its client asks for the job's id, while it stages the
   * job (driver.EarlyRunners); they are stopped if the job is not submitted within the timeout.
   */
  public static final String RUNNERS_EARLY = "ham.runners.early";
  public static final boolean DEFAULT_RUNNERS_EARLY = true;
  public static final String RUNNERS_EARLY_TIMEOUT_MS = "ham.runners.early.timeout.ms";
  public static final long DEFAULT_RUNNERS_EARLY_TIMEOUT_MS = 120_000L;
  /** A runner exits when it cannot reach the driver for this long. */
  public static final String RUNNER_DRIVER_TIMEOUT_MS = "ham.runner.driver.timeout.ms";
  public static final long DEFAULT_RUNNER_DRIVER_TIMEOUT_MS = 10_000L;
  /**
   * How long a runner given a task waits for the job's directory on the shared file system to
   * answer again before it sets the task up (a server restarting or failing over answers
   * ENOTCONN or EIO on some file systems, where Lustre's clients block): a blip costs a wait,
   * not the task's attempts. 0: do not wait. Either way a runner whose job directory still does
   * not answer exits after that task (its node is no place for the next one).
   */
  public static final String RUNNER_FS_WAIT_MS = "ham.runner.fs.wait.ms";
  public static final long DEFAULT_RUNNER_FS_WAIT_MS = 300_000L;
  /** Milliseconds to wait for the runner step to exit at job end before killing it. */
  public static final String STEP_EXIT_WAIT_MS = "ham.step.exit.wait.ms";
  public static final long DEFAULT_STEP_EXIT_WAIT_MS = 5_000L;
  /**
   * Warm runners across the jobs of one session: at a job's successful end its runners park
   * (registered in the session's tmp/ham-warm) for this long, and a later job of the session
   * that would start the same runners claims them instead of starting an srun step
   * (driver.launch.WarmRunners, runner.WarmPark). 0: off (runners exit at their job's end).
   */
  public static final String RUNNER_WARM_IDLE_MS = "ham.runner.warm.idle.ms";
  public static final long DEFAULT_RUNNER_WARM_IDLE_MS = 10_000L;
  /**
   * The directory on each node under which the runners make their working directories (the
   * task's job.xml, the distributed cache's links, whatever a task writes to its current
   * directory), as a NodeManager's container directories are node-local: the runner of a
   * Slurm job uses &lt;dir&gt;/ham-&lt;user&gt;/&lt;Slurm job id&gt;/... and removes its own
   * directory when it exits (the SPANK plugin's epilog what a killed runner left). "none": in
   * the job's directory on the shared file system (nodes without local storage), as with the
   * local launcher, and for a runner that cannot use its node's (someone else's name in /tmp).
   */
  public static final String RUNNER_LOCAL_DIR = "ham.runner.local.dir";
  public static final String DEFAULT_RUNNER_LOCAL_DIR = "/tmp";
  /**
   * A running attempt is not speculated before it has run this long (and twice the mean
   * duration of its type's finished tasks): short jobs are not worth a second attempt.
   */
  public static final String SPECULATIVE_MIN_MS = "ham.speculative.min.ms";
  public static final long DEFAULT_SPECULATIVE_MIN_MS = 10_000L;
  /**
   * Whether a runner fails an attempt (and ends itself) when it and its children use more
   * physical memory than the task's mapreduce.{map,reduce}.memory.mb, as a NodeManager does
   * (yarn.nodemanager.pmem-check-enabled), and how often it looks
   * (yarn.nodemanager.container-monitor.interval-ms).
   */
  public static final String MEMORY_CHECK = "ham.memory.check.enabled";
  public static final boolean DEFAULT_MEMORY_CHECK = true;
  public static final String MEMORY_CHECK_INTERVAL_MS = "ham.memory.check.interval.ms";
  public static final long DEFAULT_MEMORY_CHECK_INTERVAL_MS = 3_000L;
  /**
   * Whether a job stopped before it finished (time limit, scancel, Ctrl-C, its client killed)
   * keeps what `ham submit --resume` needs: its map outputs, its staging, its output moved
   * aside. Off: a stopped job is cleaned up as a failed one.
   */
  public static final String RESUMABLE = "ham.resumable";
  public static final boolean DEFAULT_RESUMABLE = true;
  /** Keep the map outputs after the job (debugging); the runners' directories still go. */
  public static final String KEEP_INTERMEDIATE = "ham.keep.intermediate";
  public static final boolean DEFAULT_KEEP_INTERMEDIATE = false;
  /** Handler threads of the driver's umbilical server. */
  public static final String DRIVER_HANDLERS = "ham.driver.handlers";
  public static final int DEFAULT_DRIVER_HANDLERS = 8;

  /**
   * Before a reduce starts, its runner checks every map output it will read (index CRC, data
   * file long enough: one small read and one stat per map) and reports the bad ones so their
   * maps run again. Off: the same problems are found after the shuffle fails (one reduce
   * attempt, not counted, is lost), saving those metadata operations.
   */
  public static final String PRECHECK_MAP_OUTPUT = "ham.reduce.precheck.map.output";
  public static final boolean DEFAULT_PRECHECK_MAP_OUTPUT = true;

  /**
   * A runner's maps keep their sort buffer (mapreduce.task.io.sort.mb) for its next map instead
   * of allocating a new one (org.apache.hadoop.mapred.HamMapOutputBuffer, named as the map
   * output collector when the job keeps Hadoop's default one).
   */
  public static final String REUSE_SORT_BUFFER = "ham.runner.reuse.sort.buffer";
  public static final boolean DEFAULT_REUSE_SORT_BUFFER = true;

  /** Set per attempt in the task's configuration: where its map output goes. */
  public static final String TASK_OUTPUT_DIR = "ham.task.output.dir";

  /** Environment: the job token (Token.encodeToUrlString), never on the command line. */
  public static final String ENV_JOB_TOKEN = "HAM_JOB_TOKEN";
  /** Environment: the per-job runtime directory (jobs/&lt;jobid&gt;). */
  public static final String ENV_JOB_RUNTIME_DIR = "HAM_JOB_RUNTIME_DIR";
  /**
   * Environment of a step whose runners park at their job's end (ham.runner.warm.idle.ms): the
   * session's warm-runner directory, the runners' launch key, and how long they stay parked.
   */
  public static final String ENV_WARM_DIR = "HAM_WARM_DIR";
  public static final String ENV_WARM_KEY = "HAM_WARM_KEY";
  public static final String ENV_WARM_IDLE_MS = "HAM_WARM_IDLE_MS";

  // ---- Lustre: the lustre:// file system and stripe layouts (package lustre) ------------------
  // fs.root.dir and fs.lustre.block.size are the keys of Intel's Hadoop Adapter for Lustre
  // (HAL), kept so that a site's core-site.xml from HAL keeps its meaning.

  /** The directory on the shared mount that lustre:/// stands for (HAL's key). */
  public static final String LUSTRE_ROOT = "fs.root.dir";
  /**
   * Block size of lustre:// files, which sizes input splits; 0 = from the file's stripe
   * layout (see lustre.LustreFileSystem). HAL's key.
   */
  public static final String LUSTRE_BLOCK_SIZE = "fs.lustre.block.size";
  public static final long DEFAULT_LUSTRE_BLOCK_SIZE = 0L;
  /**
   * The unit of lustre://'s direct I/O (a stripe): direct writes and reads go in aligned blocks
   * of this size, from and into a buffer of HAM's own (ham.lustre.write.direct.after,
   * ham.lustre.read.direct.after).
   */
  public static final String LUSTRE_BUFFER_SIZE = "ham.lustre.buffer.size";
  public static final int DEFAULT_LUSTRE_BUFFER_SIZE = 4 << 20;
  /**
   * The buffer in which a lustre:// stream gathers small reads and writes (records, lines)
   * into system calls; a smaller size asked for (io.file.buffer.size, 4 KB) is raised to it,
   * and requests as large go around it. Not a stripe: a job that reads or writes a record at
   * a time works in this buffer, and one of a few MiB is out of the CPU's caches by the time
   * it is read or copied. Measured on terasort's reduces (bench/lustre-trial.sh): 4 MiB buffers
   * made them ~100 ms slower each than file://'s 4 KB, 64 KiB as fast. The file system sees
   * large requests all the same: Lustre's client gathers buffered writes into RPCs of its own
   * and reads ahead, and direct I/O goes in blocks of ham.lustre.buffer.size.
   */
  public static final String LUSTRE_RECORD_BUFFER_SIZE = "ham.lustre.record.buffer.size";
  public static final int DEFAULT_LUSTRE_RECORD_BUFFER_SIZE = 64 << 10;
  /**
   * Whether large reads (256 KiB and more) of lustre:// files copy from memory mappings of the
   * file instead of calling read(2): one copy of every byte instead of two, but the bytes come
   * in by page faults, whose read-ahead the kernel drives less well than read(2)'s. Off by
   * default: cold parallel reads on the development machine went either way from one day to
   * the next (mappings 0.99-1.07 of dd against read(2)'s 0.88-0.93 one day, 0.74 against 0.86
   * the next, and 0.85 against 0.98 alternated on the same files: bench/results/rawio.md,
   * rawio-reads.md), and read(2)'s worst was the better one. A site can compare both with
   * TestDFSIO -read.
   */
  public static final String LUSTRE_READ_MMAP = "ham.lustre.read.mmap";
  public static final boolean DEFAULT_LUSTRE_READ_MMAP = false;
  /**
   * Bytes of a file created through lustre:// written through the page cache; the rest is
   * written with direct I/O (O_DIRECT) in blocks of ham.lustre.buffer.size: one copy of every
   * byte instead of two, and no write-back behind the writer (3 parallel writers here: 2.0-2.3
   * GB/s direct against 0.7 buffered, bench/results/rawio.md). Negative: never direct.
   */
  public static final String LUSTRE_WRITE_DIRECT_AFTER = "ham.lustre.write.direct.after";
  public static final long DEFAULT_LUSTRE_WRITE_DIRECT_AFTER = 16L << 20;
  /**
   * Bytes at the start of a file that lustre:// reads with read(2), through the page cache;
   * large reads (256 KiB and more) past them go with direct I/O (O_DIRECT), a block of
   * ham.lustre.buffer.size at a time into a buffer of our own: one copy of every byte instead
   * of two, and no page cache filled with pages a streaming reader never reads again (3
   * parallel cold dd readers here: 1.33-1.48 GB/s direct against 0.78-0.85 buffered,
   * bench/results/rawio-reads-direct.md). Negative: never direct. ham.lustre.read.mmap, if true,
   * comes first.
   */
  public static final String LUSTRE_READ_DIRECT_AFTER = "ham.lustre.read.direct.after";
  public static final long DEFAULT_LUSTRE_READ_DIRECT_AFTER = 16L << 20;
  /**
   * Stripe layouts of single files created through lustre://: comma-separated
   * {@code GLOB=COUNT:SIZE}, first match wins; a glob without '/' matches the file name, one
   * with '/' the whole path under the root.
   */
  public static final String LUSTRE_FILE_STRIPES = "ham.lustre.file.stripes";
  /**
   * Stripe layout (COUNT:SIZE) of a job's output directory when the job creates it; unset:
   * the directory inherits its parent's.
   */
  public static final String LUSTRE_OUTPUT_STRIPE = "ham.lustre.output.stripe";
  /**
   * Stripe layout (COUNT:SIZE) of the map output directory: every reducer reads a small
   * segment of every map's file.out, so one stripe per file keeps each read on one OST.
   */
  public static final String LUSTRE_MAP_OUTPUT_STRIPE = "ham.lustre.mapoutput.stripe";
  public static final String DEFAULT_LUSTRE_MAP_OUTPUT_STRIPE = "1:1M";
  /** lfs executable (stripe layouts are set and read with lfs setstripe / getstripe). */
  public static final String LFS = "ham.lfs";
  public static final String DEFAULT_LFS = "lfs";
  /**
   * Environment: directories (':'-separated) HAM treats as on Lustre whatever their file
   * system type, e.g. a Lustre reached through a mount that reports another type, or a test
   * with a stand-in lfs. Elsewhere the type of the mount decides (statfs magic 0x0BD00BD0).
   */
  public static final String ENV_LUSTRE_MOUNTS = "HAM_LUSTRE_MOUNTS";

  private HamConfig() {
  }
}
