package io.github.ham.mapreduce.driver.launch;

import java.io.IOException;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

import io.github.ham.mapreduce.common.HamConfig;
import io.github.ham.mapreduce.common.protocol.NetworkChoice;
import io.github.ham.mapreduce.driver.launch.NodeState;
import io.github.ham.mapreduce.driver.launch.RunnerExit;
import io.github.ham.mapreduce.driver.launch.RunnerLauncher;
import io.github.ham.mapreduce.driver.launch.RunnerSpec;
import io.github.ham.mapreduce.driver.report.JobEvents;
import io.github.ham.mapreduce.driver.schedule.RunnerKind;
import io.github.ham.mapreduce.driver.schedule.TaskScheduler;

import org.apache.hadoop.conf.Configuration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the job's task runners going, for each kind of runner the job needs (one kind for all
 * tasks, or map runners and reduce runners): starts them when their tasks are due (reduce
 * runners once no map is waiting, so their JVMs start during the last maps), notices the ones
 * that are lost (their process exited, or they went silent), hands their attempts back to the
 * scheduler, and starts replacements within the relaunch budget (ham.runner.max.relaunches):
 * one runner on a healthy node in place of a lost one, or the whole set when none is left.
 * Runners told to exit because their kind has no more tasks are retired, not lost.
 */
public final class RunnerSupervisor {
  private static final Logger LOG = LoggerFactory.getLogger(RunnerSupervisor.class);
  private final Configuration conf;
  /** Called once the allocation is found over: no runner can come back, the job stops. */
  private final Runnable allocationEnded;
  private final RunnerLauncher launcher;
  private final RunnerTracker tracker;
  private final TaskScheduler scheduler;
  private final JobEvents events;
  private final Map<RunnerKind, RunnerSpec> specs = new EnumMap<>(RunnerKind.class);
  /** The generations started for each kind: launches and single replacements. */
  private final Map<RunnerKind, List<Integer>> generations = new EnumMap<>(RunnerKind.class);
  private final int maxRelaunches;
  private final long heartbeatTimeout;
  private final long startTimeout;
  /** ham.network, or empty. */
  private final String network;
  /** How often {@link #check} looks for timed-out attempts and silent runners. */
  static final long SCAN_EVERY_MS = 250;
  private long scannedAt = Long.MIN_VALUE / 2;
  /**
   * How often {@link #check} reads the runner steps' output for exits: each look opens a log
   * in the job's directory on the shared file system, and check runs on every attempt's end
   * (a fifth of the job thread's CPU at 6,000 tasks a second in a profile of the load case).
   */
  static final long EXITS_EVERY_MS = 50;
  private long exitsPolledAt = Long.MIN_VALUE / 2;
  /** Exits read outside {@link #check}'s own look, for its next round. */
  private final List<RunnerExit> heldExits = new ArrayList<>();
  /** Relaunches and replacements counted against ham.runner.max.relaunches. */
  private int relaunchesUsed;

  public RunnerSupervisor(Configuration conf, RunnerLauncher launcher, RunnerTracker tracker,
      TaskScheduler scheduler, JobEvents events, List<RunnerSpec> specs,
      Runnable allocationEnded) {
    this.conf = conf;
    this.allocationEnded = allocationEnded;
    this.launcher = launcher;
    this.tracker = tracker;
    this.scheduler = scheduler;
    this.events = events;
    for (RunnerSpec s : specs) {
      this.specs.put(s.kind(), s);
      this.generations.put(s.kind(), new ArrayList<>());
    }
    this.maxRelaunches = conf.getInt(HamConfig.MAX_RUNNER_LAUNCHES,
        HamConfig.DEFAULT_MAX_RUNNER_LAUNCHES);
    this.heartbeatTimeout = conf.getLong(HamConfig.HEARTBEAT_TIMEOUT_MS,
        HamConfig.DEFAULT_HEARTBEAT_TIMEOUT_MS);
    this.startTimeout = conf.getLong(HamConfig.RUNNER_START_TIMEOUT_MS,
        HamConfig.DEFAULT_RUNNER_START_TIMEOUT_MS);
    this.network = conf.getTrimmed(HamConfig.NETWORK, "");
  }

  /** Starts a whole generation of runners of {@code kind}; they are tracked from now on. */
  private void launch(RunnerKind kind) throws IOException {
    generations.get(kind).add(startGeneration(launcher, tracker, specs.get(kind)));
  }

  /** Starts a whole generation of runners as {@code spec} says, tracked; returns it. */
  public static int startGeneration(RunnerLauncher launcher, RunnerTracker tracker, RunnerSpec spec)
      throws IOException {
    int gen = launcher.launch(spec);
    long now = System.currentTimeMillis();
    for (String slot : launcher.slots(gen)) {
      tracker.started(slot, null, spec.kind(), now);
    }
    LOG.info("Started {} {} runner(s) per node (generation {}): {}", spec.perNode(),
        spec.kind(), gen, String.join(" ", spec.jvmOptions()));
    return gen;
  }

  /** Generation {@code gen} of {@code kind}, started before this supervisor, is its own. */
  public void adopt(RunnerKind kind, int gen) {
    generations.get(kind).add(gen);
  }

  /** Whether runners of {@code kind} should be there now. */
  private boolean wanted(RunnerKind kind) {
    return scheduler.hasWork(kind) && (kind != RunnerKind.REDUCE || scheduler.mapsAssigned());
  }

  private boolean processAlive(RunnerKind kind) {
    for (int gen : generations.get(kind)) {
      if (launcher.alive(gen)) {
        return true;
      }
    }
    return false;
  }

  /** Set by kill(): the job is ending and its runners must not come back. */
  private volatile boolean killed;

  /** One round: lost runners, replacements, and launches of the kinds whose tasks are due. */
  public void check(long now) throws IOException {
    // The timeouts (an attempt's progress and contact, a runner's) are seconds long, and a
    // look at them goes through every running attempt and runner: once per SCAN_EVERY_MS, not
    // on every pass (the job's supervision passes up to 100 times a second while attempts
    // end, and the runners' calls wait for the tracker meanwhile).
    boolean scan = now - scannedAt >= SCAN_EVERY_MS || now < scannedAt;
    if (scan) {
      scannedAt = now;
      events.ended(scheduler.expire(now));
    }
    if (killed || scheduler.isFinished()) {
      return;
    }
    List<RunnerTracker.Lost> lost = new ArrayList<>();
    List<RunnerExit> exits = new ArrayList<>(heldExits);
    heldExits.clear();
    if (now - exitsPolledAt >= EXITS_EVERY_MS || now < exitsPolledAt) {
      exitsPolledAt = now;
      exits.addAll(launcher.pollExits());
    }
    for (RunnerExit exit : exits) {
      if (!network.isEmpty() && exit.exitStatus() == NetworkChoice.EXIT_NOT_ON_NETWORK) {
        // A node without the job's network: a replacement there would exit the same way, and
        // the job is not to fall back to another network (the runners' log says what it has).
        scheduler.stop(NetworkChoice.jobFailure(network, exit.node()));
        return;
      }
      RunnerTracker.Lost l = tracker.exited(exit);
      if (l != null) {
        lost.add(l);
      }
    }
    if (scan) {
      lost.addAll(tracker.expire(now, heartbeatTimeout, startTimeout));
    }
    if (!lost.isEmpty() && launcher.allocationEnded()) {
      // scancel or the time limit took the runners (and will take this JVM): replacing them
      // would fail, and failing the job would lose what a resume can keep.
      LOG.warn("Task runners lost: the Slurm allocation has ended; the job stops");
      kill();
      allocationEnded.run();
      return;
    }
    for (RunnerTracker.Lost l : lost) {
      runnerLost(l, now);
    }
    for (RunnerKind kind : specs.keySet()) {
      if (!scheduler.isFinished() && wanted(kind) && !tracker.anyLive(kind)) {
        noneLeft(kind, now);
      }
    }
  }

  /**
   * No runner of {@code kind} is left while its tasks are due: the first start, a new phase
   * after its runners retired (free), or a relaunch after they were all lost (counted).
   */
  private void noneLeft(RunnerKind kind, long now) throws IOException {
    List<Integer> gens = generations.get(kind);
    if (gens.isEmpty() || tracker.anyRetired(kind)) {
      if (!processAlive(kind)) {  // retired runners finish exiting first
        launch(kind);
      }
      return;
    }
    if (processAlive(kind)) {
      // Every runner is lost and none was replaced, but some processes linger (silent
      // runners): nobody would take the pending tasks. Handle it as "all runners gone".
      LOG.warn("No {}task runner is left; stopping the lingering runner processes",
          kind == RunnerKind.ANY ? "" : kind + " ");
      launcher.kill(gens);
    }
    // The killed runners' exits come with the next round's, when they are lost already (the
    // tracker reports a runner once); other kinds' exits read with them are not dropped.
    heldExits.addAll(launcher.pollExits());
    // Marked lost before their attempts end, as everywhere: DriverUmbilical relies on that
    // order to never leave an attempt with a lost runner.
    tracker.allLost(kind);
    for (String runner : tracker.runnerIds(kind)) {
      events.ended(scheduler.runnerLost(runner, "The task runners exited", now));
    }
    if (relaunchesUsed >= maxRelaunches) {
      scheduler.stop("The task runners exited " + launcher.launches()
          + " times; last output:\n" + launcher.outputTail());
    } else {
      LOG.warn("All {}task runners exited; relaunching. Last output:\n{}",
          kind == RunnerKind.ANY ? "" : kind + " ", launcher.outputTail());
      relaunchesUsed++;
      launch(kind);
    }
  }

  /**
   * One runner is gone (its process exited, or it was silent for the heartbeat timeout): its
   * running attempts end KILLED (they run again elsewhere), and a replacement starts on the
   * same node if the node is healthy and ham.runner.max.relaunches allows. A node that is down
   * or cut off is blacklisted: none of its runners gets another task.
   */
  private void runnerLost(RunnerTracker.Lost lost, long now) throws IOException {
    String name = lost.runnerId() != null ? lost.runnerId() : lost.slot();
    // A runner of a multi-node step that never reached the driver has no known node.
    String where = lost.node() != null ? lost.node() : "an unknown node";
    if (lost.runnerId() != null) {
      events.ended(scheduler.runnerLost(lost.runnerId(),
          "Task runner " + name + " lost: " + lost.reason(), now));
    }
    boolean finished = scheduler.isFinished() || !scheduler.hasWork(lost.kind());
    NodeState health = lost.node() == null || finished ? NodeState.UNKNOWN
        : launcher.nodeState(lost.node());
    RunnerTracker.Decision decision = RunnerTracker.decide(finished, lost.node(),
        relaunchesUsed, maxRelaunches, health, lost.expected());
    if (decision == RunnerTracker.Decision.NODE_UNREACHABLE) {
      boolean first = scheduler.nodeLost(lost.node());
      LOG.warn("Task runner {} on {} lost ({}); not replaced: {} is down or cut off (Slurm "
          + "says so or its slurmd does not answer){}", name, lost.node(), lost.reason(),
          lost.node(), first ? "; node " + lost.node() + " blacklisted for this job, its tasks "
              + "run on the other nodes" : "");
      return;
    }
    if (decision != RunnerTracker.Decision.REPLACE) {
      LOG.warn("Task runner {} on {} lost ({}); not replaced: {}", name, where, lost.reason(),
          decision);
      return;
    }
    int gen = launcher.replace(lost.node(), RunnerExit.generationOf(lost.slot()));
    generations.get(lost.kind()).add(gen);
    String slot = launcher.slots(gen).get(0);
    tracker.started(slot, lost.node(), lost.kind(), System.currentTimeMillis());
    if (!lost.expected()) {
      relaunchesUsed++;
    }
    LOG.warn("Task runner {} on {} lost ({}); started replacement runner {} on {} ({})",
        name, lost.node(), lost.reason(), slot, lost.node(), lost.expected()
            ? "an exit the driver caused or the task announced; not counted against "
                + HamConfig.MAX_RUNNER_LAUNCHES
            : "relaunch " + relaunchesUsed + " of " + maxRelaunches);
  }

  /**
   * Stops every runner now (the job failed, was killed or stopped: nothing may write any
   * more), and for good: no runner is replaced or launched afterwards.
   */
  public void kill() {
    killed = true;
    launcher.kill();
  }

  /**
   * Whether the job's runners may park for a next job (warm runners): not while an attempt
   * still runs (a speculative one when its task succeeded elsewhere), which must be stopped.
   */
  public boolean runnersIdle() {
    return !scheduler.anyRunning();
  }
}
