package io.github.ham.mapreduce.driver.launch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

import io.github.ham.mapreduce.common.protocol.WarmClaims;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class WarmRegistryTest {
  @TempDir
  Path dir;

  private void park(String name, String job) throws IOException {
    new WarmClaims.Entry("node1", "127.0.0.1", 1, "n", "k", job)
        .write(new File(dir.toFile(), name + WarmClaims.SUFFIX));
  }

  @Test
  void parkedRunnersAreListedInNameOrderWithoutReservedOnes() throws IOException {
    park("node2-7", "");
    park("node1-9", "");
    park("node1-3", "");
    WarmRegistry r = new WarmRegistry(dir.toFile());
    List<WarmRegistry.Parked> all = r.parked();
    assertEquals(List.of("node1-3", "node1-9", "node2-7"), all.stream()
        .map(p -> p.file().getName().replace(WarmClaims.SUFFIX, "")).toList());
    assertEquals(1, r.reserve(all.subList(0, 1), "job_1_0001").size());
    assertEquals(2, r.parked().size(), "a reserved runner is no longer listed");
  }

  @Test
  void aJobThatLosesTheFirstEntryReservesNothingSoTheWinnerGetsTheWholeSet()
      throws IOException {
    park("node1-1", "");
    park("node1-2", "");
    park("node2-1", "");
    park("node2-2", "");
    WarmRegistry r = new WarmRegistry(dir.toFile());
    List<WarmRegistry.Parked> seenByA = r.parked();
    List<WarmRegistry.Parked> seenByB = r.parked();
    // A takes the first entry; B, listing at the same time, comes next.
    assertEquals(1, r.reserve(seenByA.subList(0, 1), "job_a").size());
    assertEquals(0, r.reserve(seenByB, "job_b").size(), "B stops at the entry A holds");
    assertEquals(3, r.reserve(seenByA.subList(1, 4), "job_a").size(), "A gets the rest");
  }

  @Test
  void unreservedEntriesAreParkedAgain() throws IOException {
    park("node1-1", "");
    WarmRegistry r = new WarmRegistry(dir.toFile());
    List<WarmRegistry.Parked> got = r.reserve(r.parked(), "job_a");
    assertTrue(r.parked().isEmpty());
    r.unreserve(got);
    assertEquals(1, r.parked().size());
  }

  @Test
  void awaitParkedCountsTheJobsRunnersAndGivesUpAtTheDeadline() throws IOException {
    WarmRegistry r = new WarmRegistry(dir.toFile());
    park("node1-1", "/s/jobs/a");
    park("node1-2", "/s/jobs/b");
    assertEquals(1, r.awaitParked("/s/jobs/a", 1, 5_000));
    long t0 = System.nanoTime();
    assertEquals(1, r.awaitParked("/s/jobs/a", 2, 100), "one of two parked by the deadline");
    assertTrue(System.nanoTime() - t0 >= 100_000_000L);
    Thread late = new Thread(() -> {
      try {
        Thread.sleep(100);
        park("node2-1", "/s/jobs/a");
      } catch (Exception e) {
        throw new RuntimeException(e);
      }
    });
    late.start();
    assertEquals(2, r.awaitParked("/s/jobs/a", 2, 10_000), "the late one is seen");
  }
}
