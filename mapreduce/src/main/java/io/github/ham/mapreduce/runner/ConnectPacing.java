package io.github.ham.mapreduce.runner;

import java.util.Map;
import java.util.Random;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * When a runner first calls the driver, and how long it waits to call again after a call
 * failed. All the runners of a step start within a second or so of each other; on a large
 * allocation that is thousands of connections, each a SASL handshake on the driver's reader
 * threads (0.35-0.5 ms of its CPU: bench/README.md, "What the scale case shows"). Without
 * jitter they come at once and their retries come in waves (Hadoop's IPC client retries after
 * a fixed second): so a runner first waits a random share of its step's spread
 * ({@link #STEP_RATE_PER_S} runners a second: 10,000 runners over up to a second, 100 over
 * 10 ms), and after a failed call waits an exponentially growing, jittered pause. Public for
 * the scale bench's simulated runners, which connect as runners do.
 */
public final class ConnectPacing {
  private static final Logger LOG = LoggerFactory.getLogger(ConnectPacing.class);
  /** The rate the runners of one step spread their first calls to: connections a second. */
  static final int STEP_RATE_PER_S = 10_000;
  /** The pause after a first failed call (the mean: each pause is 0.5-1.5 times its base). */
  static final long FIRST_RETRY_MS = 250;
  /** The longest base pause between calls that fail. */
  static final long MAX_RETRY_MS = 4_000;
  /** Slurm's count of the tasks of the step a runner is one of. */
  static final String STEP_TASKS_ENV = "SLURM_STEP_NUM_TASKS";

  private final Random random;
  private int failures;

  public ConnectPacing(Random random) {
    this.random = random;
  }

  /**
   * Waits, before runner {@code runnerId}'s first call, its share of its step's spread (the
   * step from Slurm's environment), saying so in its log; returns its pacing for failed calls.
   */
  public static ConnectPacing firstCall(String runnerId) throws InterruptedException {
    ConnectPacing pacing = new ConnectPacing(new Random());
    int step = stepRunners(System.getenv());
    long delay = pacing.firstCallDelayMs(step);
    LOG.info("Task runner {} started; first call in {} ms (one of {} runners of its step)",
        runnerId, delay, step);
    Thread.sleep(delay);
    return pacing;
  }

  /** The runners of this runner's step, from Slurm's environment (1 outside a step). */
  public static int stepRunners(Map<String, String> env) {
    try {
      return Math.max(1, Integer.parseInt(env.getOrDefault(STEP_TASKS_ENV, "1").trim()));
    } catch (NumberFormatException e) {
      return 1;
    }
  }

  /** Over how long the first calls of a step of {@code stepRunners} runners are spread. */
  public static long spreadMs(int stepRunners) {
    return (long) stepRunners * 1000 / STEP_RATE_PER_S;
  }

  /** How long to wait before the first call, one of {@code stepRunners} runners. */
  public long firstCallDelayMs(int stepRunners) {
    long spread = spreadMs(stepRunners);
    return spread > 0 ? random.nextLong(spread + 1) : 0;
  }

  /** The pause before the next call after one more failed call. */
  public long nextRetryMs() {
    long base = Math.min(MAX_RETRY_MS, FIRST_RETRY_MS << Math.min(failures, 16));
    failures++;
    return base / 2 + random.nextLong(base);
  }

  /** A call got through: the next failure starts the pauses again from the first. */
  public void reset() {
    failures = 0;
  }
}
