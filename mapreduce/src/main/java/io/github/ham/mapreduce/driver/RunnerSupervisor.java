package io.github.ham.mapreduce.driver;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

import io.github.ham.mapreduce.common.HamConfig;
import io.github.ham.mapreduce.driver.slurm.NodeState;
import io.github.ham.mapreduce.driver.slurm.RunnerExit;
import io.github.ham.mapreduce.driver.slurm.RunnerLauncher;

import org.apache.hadoop.conf.Configuration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the job's task runners going: starts them, notices the ones that are lost (their
 * process exited, or they went silent), hands their attempts back to the scheduler, and starts
 * replacements within the relaunch budget (ham.runner.max.relaunches): one runner on a healthy
 * node in place of a lost one, or the whole set when none is left.
 */
final class RunnerSupervisor {
  private static final Logger LOG = LoggerFactory.getLogger(RunnerSupervisor.class);
  private final RunnerLauncher launcher;
  private final RunnerTracker tracker;
  private final TaskScheduler scheduler;
  private final JobEvents events;
  private final int maxRelaunches;
  private final long heartbeatTimeout;
  /** Relaunches and replacements counted against ham.runner.max.relaunches. */
  private int relaunchesUsed;

  RunnerSupervisor(Configuration conf, RunnerLauncher launcher, RunnerTracker tracker,
      TaskScheduler scheduler, JobEvents events) {
    this.launcher = launcher;
    this.tracker = tracker;
    this.scheduler = scheduler;
    this.events = events;
    this.maxRelaunches = conf.getInt(HamConfig.MAX_RUNNER_LAUNCHES,
        HamConfig.DEFAULT_MAX_RUNNER_LAUNCHES);
    this.heartbeatTimeout = conf.getLong(HamConfig.HEARTBEAT_TIMEOUT_MS,
        HamConfig.DEFAULT_HEARTBEAT_TIMEOUT_MS);
  }

  /** Starts a whole generation of runners; they are tracked from now on. */
  void launchAll() throws IOException {
    launcher.launch();
    long now = System.currentTimeMillis();
    for (String slot : launcher.lastGenerationSlots()) {
      tracker.started(slot, null, now);
    }
  }

  /** One round: lost runners, replacements, and a relaunch when every runner is gone. */
  void check(long now) throws IOException {
    if (launcher.anyAlive() && !scheduler.isFinished()) {
      List<RunnerTracker.Lost> lost = new ArrayList<>();
      for (RunnerExit exit : launcher.pollExits()) {
        RunnerTracker.Lost l = tracker.exited(exit);
        if (l != null) {
          lost.add(l);
        }
      }
      lost.addAll(tracker.expire(now, heartbeatTimeout));
      for (RunnerTracker.Lost l : lost) {
        runnerLost(l, now);
      }
      if (tracker.live() == 0 && !scheduler.isFinished()) {
        // Every runner is lost and none was replaced, but some processes linger (silent
        // runners): nobody would take the pending tasks. Handle it as "all runners gone".
        LOG.warn("No task runner is left; stopping the lingering runner processes");
        launcher.kill();
      }
    }
    if (!launcher.anyAlive() && !scheduler.isFinished()) {
      launcher.pollExits();
      tracker.allLost();
      events.ended(scheduler.killRunning("The task runners exited", now));
      if (relaunchesUsed >= maxRelaunches) {
        scheduler.stop("The task runners exited " + launcher.launches()
            + " times; last output:\n" + launcher.outputTail());
      } else {
        LOG.warn("All task runners exited; relaunching. Last output:\n{}",
            launcher.outputTail());
        relaunchesUsed++;
        launchAll();
      }
    }
  }

  /**
   * One runner is gone (its process exited, or it was silent for the heartbeat timeout): its
   * running attempts are failed (they run again elsewhere), and a replacement starts on the
   * same node if the node is healthy and ham.runner.max.relaunches allows.
   */
  private void runnerLost(RunnerTracker.Lost lost, long now) throws IOException {
    String name = lost.runnerId() != null ? lost.runnerId() : lost.slot();
    if (lost.runnerId() != null) {
      events.ended(scheduler.runnerLost(lost.runnerId(),
          "Task runner " + name + " lost: " + lost.reason(), now));
    }
    NodeState health = NodeState.UNKNOWN;
    if (lost.node() != null && (lost.expected() || relaunchesUsed < maxRelaunches)) {
      health = launcher.nodeState(lost.node());
    }
    RunnerTracker.Decision decision = RunnerTracker.decide(scheduler.isFinished(), lost.node(),
        relaunchesUsed, maxRelaunches, health, lost.expected());
    if (decision != RunnerTracker.Decision.REPLACE) {
      LOG.warn("Task runner {} on {} lost ({}); not replaced: {}", name, lost.node(),
          lost.reason(), decision);
      return;
    }
    String slot = launcher.replace(lost.node());
    tracker.started(slot, lost.node(), System.currentTimeMillis());
    if (!lost.expected()) {
      relaunchesUsed++;
    }
    LOG.warn("Task runner {} on {} lost ({}); started replacement runner {} on {} ({})",
        name, lost.node(), lost.reason(), slot, lost.node(), lost.expected()
            ? "the driver ended its task; not counted against " + HamConfig.MAX_RUNNER_LAUNCHES
            : "relaunch " + relaunchesUsed + " of " + maxRelaunches);
  }

  /** Stops every runner now (the job failed or was killed: nothing may write any more). */
  void kill() {
    launcher.kill();
  }

  /** Lets the runners exit on their own for up to {@code waitMs}, then stops them. */
  void stop(long waitMs) {
    launcher.stop(waitMs);
  }

  int runnersStarted() {
    return launcher.runnersStarted();
  }

  int launches() {
    return launcher.launches();
  }
}
