package io.github.ham.mapreduce.driver.ipc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import io.github.ham.mapreduce.driver.schedule.RunnerKind;

import org.apache.hadoop.mapred.JvmTask;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Held calls are answered when there is something for them, oldest first, or at the limit. */
class WaitingRunnersTest {
  /** What the decision gives each runner now (absent: nothing for it yet). */
  private final Map<String, JvmTask> offers = new ConcurrentHashMap<>();
  private final BlockingQueue<String> answered = new ArrayBlockingQueue<>(100);
  private final Map<String, JvmTask> answers = new ConcurrentHashMap<>();
  private WaitingRunners waiting;

  private WaitingRunners start(long limitMs) {
    waiting = new WaitingRunners("test", offers::remove, limitMs);
    return waiting;
  }

  private void hold(String runner, RunnerKind kind) {
    waiting.hold(runner, kind, task -> {
      answers.put(runner, task);
      answered.add(runner);
    });
  }

  private String next() throws InterruptedException {
    return answered.poll(5, TimeUnit.SECONDS);
  }

  @AfterEach
  void close() {
    waiting.close();
  }

  @Test
  void aHeldRunnerGetsWhatComesOnceSignalled() throws Exception {
    start(60_000);
    hold("r1", RunnerKind.ANY);
    assertNull(answered.poll(WaitingRunners.TICK_MS * 2, TimeUnit.MILLISECONDS),
        "nothing for it: held");
    assertEquals(1, waiting.size());
    JvmTask task = new JvmTask(null, true);
    offers.put("r1", task);
    waiting.signal();
    assertEquals("r1", next());
    assertSame(task, answers.get("r1"));
    assertEquals(0, waiting.size());
  }

  @Test
  void theOldestHeldRunnerOfAKindIsServedFirst() throws Exception {
    start(60_000);
    hold("old", RunnerKind.MAP);
    hold("young", RunnerKind.MAP);
    JvmTask task = new JvmTask(null, true);
    // Both could take it; the oldest does, and the younger stays held.
    offers.put("young", task);
    waiting.signal();
    assertNull(answered.poll(WaitingRunners.TICK_MS * 2, TimeUnit.MILLISECONDS),
        "the younger one waits behind the oldest, which has nothing");
    offers.put("old", task);
    waiting.signal();
    assertEquals("old", next());
    assertEquals("young", next(), "then the next in line is looked at at once");
  }

  @Test
  void kindsWaitApart() throws Exception {
    start(60_000);
    hold("m", RunnerKind.MAP);
    hold("r", RunnerKind.REDUCE);
    offers.put("r", new JvmTask(null, false));
    waiting.signal();
    assertEquals("r", next(), "a reduce runner is not held behind an idle map runner");
    assertEquals(1, waiting.size());
  }

  @Test
  void aRunnerHeldForTheLimitIsToldToAskAgain() throws Exception {
    start(300);
    long t0 = System.nanoTime();
    hold("r1", RunnerKind.ANY);
    assertEquals("r1", next());
    long heldMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
    assertSame(WaitingRunners.ASK_AGAIN, answers.get("r1"));
    assertTrue(heldMs >= 300, "held for the limit: " + heldMs + " ms");
  }

  @Test
  void afterCloseNothingIsHeld() throws Exception {
    start(60_000);
    waiting.close();
    hold("r1", RunnerKind.ANY);
    assertEquals("r1", answered.poll(0, TimeUnit.SECONDS));
    assertSame(WaitingRunners.ASK_AGAIN, answers.get("r1"));
  }
}
