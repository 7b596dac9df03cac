package io.github.ham.mapreduce.runner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;

import org.junit.jupiter.api.Test;

/** A step's runners spread their first calls, and pause longer and unevenly after failures. */
class ConnectPacingTest {
  @Test
  void aStepsFirstCallsSpreadInProportionToItsRunners() {
    ConnectPacing pacing = new ConnectPacing(new Random(1));
    assertEquals(0, pacing.firstCallDelayMs(1), "one runner, or a few, do not wait");
    assertEquals(0, pacing.firstCallDelayMs(9));
    assertEquals(1000, ConnectPacing.spreadMs(10_000));
    long min = Long.MAX_VALUE;
    long max = 0;
    long sum = 0;
    int n = 10_000;
    for (int i = 0; i < n; i++) {
      long d = pacing.firstCallDelayMs(10_000);
      min = Math.min(min, d);
      max = Math.max(max, d);
      sum += d;
    }
    assertTrue(min >= 0 && min < 10, "some start at once: " + min);
    assertTrue(max <= 1000 && max > 990, "the last within the spread: " + max);
    assertTrue(Math.abs(sum / n - 500) < 25, "uniform over it: mean " + sum / n);
    for (int i = 0; i < 1000; i++) {
      assertTrue(pacing.firstCallDelayMs(100) <= 10, "100 runners spread over 10 ms");
    }
  }

  @Test
  void pausesAfterFailuresGrowToACapEachJittered() {
    ConnectPacing pacing = new ConnectPacing(new Random(2));
    long base = ConnectPacing.FIRST_RETRY_MS;
    for (int i = 0; i < 12; i++) {
      long pause = pacing.nextRetryMs();
      assertTrue(pause >= base / 2 && pause < base + base / 2,
          "failure " + i + ": " + pause + " outside 0.5-1.5 x " + base);
      base = Math.min(ConnectPacing.MAX_RETRY_MS, base * 2);
    }
    assertEquals(ConnectPacing.MAX_RETRY_MS, base);
    pacing.reset();
    long first = pacing.nextRetryMs();
    assertTrue(first < ConnectPacing.FIRST_RETRY_MS * 3 / 2, "a call got through: " + first);
  }

  @Test
  void runnersThatFailTogetherDoNotComeBackTogether() {
    List<Long> pauses = new ArrayList<>();
    for (int runner = 0; runner < 50; runner++) {
      pauses.add(new ConnectPacing(new Random(runner)).nextRetryMs());
    }
    assertNotEquals(1, pauses.stream().distinct().count(), "Hadoop's fixed second: " + pauses);
    long spread = pauses.stream().mapToLong(Long::longValue).max().getAsLong()
        - pauses.stream().mapToLong(Long::longValue).min().getAsLong();
    assertTrue(spread > ConnectPacing.FIRST_RETRY_MS / 2, "spread " + spread);
  }

  @Test
  void theStepsSizeComesFromSlurm() {
    assertEquals(1, ConnectPacing.stepRunners(Map.of()));
    assertEquals(4096, ConnectPacing.stepRunners(Map.of("SLURM_STEP_NUM_TASKS", "4096")));
    assertEquals(1, ConnectPacing.stepRunners(Map.of("SLURM_STEP_NUM_TASKS", "0")));
    assertEquals(1, ConnectPacing.stepRunners(Map.of("SLURM_STEP_NUM_TASKS", "many")));
  }
}
