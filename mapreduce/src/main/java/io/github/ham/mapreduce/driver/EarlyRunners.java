package io.github.ham.mapreduce.driver;

import java.io.IOException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.ham.mapreduce.common.HamConfig;
import io.github.ham.mapreduce.common.jobfiles.JobDirs;
import io.github.ham.mapreduce.driver.launch.RunnerPlatform;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapred.JobID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A job's runners, started when its client asks for the job's id (JobSubmitter's
 * getNewJobID), before the client stages the job and submits it: the driver's IPC server and
 * the first runners, from the client's configuration ({@link DriverServices#open}), in a thread
 * of their own so that staging goes on meanwhile. A runner JVM takes about a second to start
 * and reach the driver, and the client about as long to stage the job after asking for its id:
 * both now overlap. The job takes them when it is submitted if they are the runners it wants
 * ({@link #take}); if it is never submitted (its input is missing, the client ends), they are
 * stopped after ham.runners.early.timeout.ms or when the JVM exits. Off with
 * ham.runners.early=false; never for a resumed run (its job id is known from the start).
 */
public final class EarlyRunners {
  private static final Logger LOG = LoggerFactory.getLogger(EarlyRunners.class);
  private final JobID id;
  private final FutureTask<DriverServices> opening;
  /** Set by whichever comes first: the job taking the runners, or their discard. */
  private final AtomicBoolean settled = new AtomicBoolean();
  private final CountDownLatch taken = new CountDownLatch(1);
  private final Thread hook;

  private EarlyRunners(RunnerPlatform platform, Configuration conf, JobID id, JobDirs dirs) {
    this.id = id;
    this.opening = new FutureTask<>(() -> DriverServices.open(platform, conf, id, dirs, true));
    Thread opener = new Thread(opening, "ham-early-runners-" + id);
    opener.setDaemon(true);
    opener.start();
    long timeout = conf.getLong(HamConfig.RUNNERS_EARLY_TIMEOUT_MS,
        HamConfig.DEFAULT_RUNNERS_EARLY_TIMEOUT_MS);
    Thread expiry = new Thread(() -> {
      try {
        if (!taken.await(timeout, TimeUnit.MILLISECONDS)) {
          discard("not submitted within " + timeout + " ms");
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }, "ham-early-runners-expiry-" + id);
    expiry.setDaemon(true);
    expiry.start();
    this.hook = new Thread(() -> discard("the client is ending"), "ham-early-runners-hook-" + id);
    Runtime.getRuntime().addShutdownHook(hook);
  }

  /**
   * Starts the runners of job {@code id} on {@code platform} as the client's {@code conf}
   * describes them, if they can start there (an allocation, or the local launcher), HAM knows
   * the job's directory (ham.job.dir, which `ham run` sets) and ham.runners.early is on; else
   * null.
   */
  public static EarlyRunners start(RunnerPlatform platform, Configuration conf, JobID id) {
    String root = conf.getTrimmed(HamConfig.JOB_DIR, "");
    if (!conf.getBoolean(HamConfig.RUNNERS_EARLY, HamConfig.DEFAULT_RUNNERS_EARLY)
        || root.isEmpty() || !platform.available()) {
      return null;
    }
    // A copy: the client goes on setting keys in its own while it stages the job.
    return new EarlyRunners(platform, new Configuration(conf), id,
        JobDirs.of(root, id.toString()));
  }

  /**
   * The services with the runners started early, for the submitted job {@code job}, if its
   * first runners are those; else null, and they are stopped.
   */
  DriverServices take(JobConf job) throws IOException {
    removeHook();
    taken.countDown();
    if (!settled.compareAndSet(false, true)) {
      return null;  // expired before the job was submitted: already stopped
    }
    DriverServices services;
    try {
      services = opening.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("Interrupted starting the runners of " + id, e);
    } catch (ExecutionException e) {
      LOG.warn("Starting the runners of {} early failed; starting them now: {}", id,
          e.getCause().toString());
      return null;
    }
    if (services.fits(job)) {
      LOG.info("Job {} takes the runners started when it got its id", id);
      return services;
    }
    services.discard("the submitted job asks for other runners (JVM options, memory or "
        + "environment) than its client's configuration said");
    return null;
  }

  /** Stops the runners (and the server) unless the job took them. */
  private void discard(String why) {
    if (!settled.compareAndSet(false, true)) {
      return;
    }
    try {
      opening.get().discard(why);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException e) {
      // Nothing was started.
    }
  }

  private void removeHook() {
    try {
      Runtime.getRuntime().removeShutdownHook(hook);
    } catch (IllegalStateException e) {
      // The JVM is already going down; its hooks run.
    }
  }
}
