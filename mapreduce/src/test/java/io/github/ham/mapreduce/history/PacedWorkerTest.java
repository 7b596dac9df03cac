package io.github.ham.mapreduce.history;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

class PacedWorkerTest {
  @Test
  void runsEverythingGivenInOrderThenEndsAndTakesNoMore() throws Exception {
    PacedWorker w = new PacedWorker("test-paced");
    List<Integer> ran = Collections.synchronizedList(new ArrayList<>());
    List<Thread> producers = new ArrayList<>();
    for (int p = 0; p < 4; p++) {
      int base = p * 10_000;
      Thread t = new Thread(() -> {
        for (int i = 0; i < 10_000; i++) {
          int v = base + i;
          w.execute(() -> ran.add(v));
        }
      });
      producers.add(t);
      t.start();
    }
    for (Thread t : producers) {
      t.join();
    }
    w.execute(() -> {
      throw new IllegalStateException("an action that fails does not end the thread");
    });
    w.execute(() -> ran.add(-1));
    w.shutdown();
    assertTrue(w.awaitTermination(30, TimeUnit.SECONDS));
    assertEquals(40_001, ran.size());
    assertEquals(-1, ran.get(40_000));
    int[] last = {-1, 9_999, 19_999, 29_999};
    for (int v : ran.subList(0, 40_000)) {  // each producer's actions in the order given
      assertEquals(last[v / 10_000] + 1, v);
      last[v / 10_000] = v;
    }
    assertThrows(RejectedExecutionException.class, () -> w.execute(() -> ran.add(0)));
    assertTrue(w.isIdle());
  }
}
