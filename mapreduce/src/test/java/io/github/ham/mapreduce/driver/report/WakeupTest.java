package io.github.ham.mapreduce.driver.report;

import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

class WakeupTest {
  @Test
  void aSignalBeforeTheWaitIsKept() {
    Wakeup w = new Wakeup(0);
    w.signal();
    // Lost, the wait would last its 10 minutes.
    assertTimeoutPreemptively(Duration.ofSeconds(60), () -> w.await(600_000));
  }

  @Test
  void aSignalWhileTheLoopRestsIsKept() {
    Wakeup w = new Wakeup(200);
    assertTimeoutPreemptively(Duration.ofSeconds(60), () -> {
      w.signal();
      w.await(600_000);  // returns at once: signalled
      w.signal();        // while the loop would rest out its gap
      w.await(600_000);
    });
  }

  @Test
  void signalsInAStreamWakeTheLoopOncePerGap() throws Exception {
    long gapMs = 50;
    Wakeup w = new Wakeup(gapMs);
    AtomicInteger passes = new AtomicInteger();
    Thread loop = new Thread(() -> {
      try {
        while (true) {
          w.await(600_000);
          passes.incrementAndGet();
        }
      } catch (InterruptedException e) {
        // done
      }
    });
    loop.start();
    long start = System.nanoTime();
    int signals = 0;
    while (System.nanoTime() - start < 500_000_000L) {
      w.signal();
      signals++;
    }
    long elapsedMs = (System.nanoTime() - start) / 1_000_000;
    loop.interrupt();
    loop.join();
    // One pass per gap at most (and the first at once); without the gap, one per signal.
    assertTrue(passes.get() <= elapsedMs / gapMs + 2,
        passes.get() + " passes in " + elapsedMs + " ms of " + signals + " signals");
    assertTrue(passes.get() >= 2, passes.get() + " passes: the signals were lost");
  }
}
