package io.github.ham.mapreduce.common.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import io.github.ham.mapreduce.common.ids.RunnerId;

import org.junit.jupiter.api.Test;

/** What a runner tells the driver: its id, and the maps whose output it could not read. */
class RunnerMessagesTest {
  @Test
  void runnerIdsNameNodeAndSlot() {
    assertEquals("node2/g0-p3/1234", RunnerId.of("node2", "g0-p3", 1234));
    assertEquals("g0-p3", RunnerId.slotOf("node2/g0-p3/1234"));
    assertEquals("node2", RunnerId.nodeOf("node2/g0-p3/1234"));
    assertEquals("g0-p3", RunnerId.slotOf("g0-p3"));
    assertEquals(null, RunnerId.nodeOf("g0-p3"));
  }

  @Test
  void aSlotIsWhatSplittingTheIdOnSlashesGives() {
    for (String id : List.of("node2/g0-p3/1234", "a.b/c/d/e", "g0-p3", "a/b", "/b/c", "//c",
        "a/b/c/", "a/b/c//", "/", "", "/abc", "a//c", "x/y/")) {
      String[] parts = id.split("/");
      assertEquals(parts.length >= 3 ? parts[parts.length - 2] : id, RunnerId.slotOf(id), id);
    }
  }


  @Test
  void badMapOutputReports() {
    String report = BadMapOutput.describe(java.util.Map.of(
        "attempt_1_0001_m_000001_0", "java.io.EOFException\nmore"))
        + "org.apache.hadoop.mapreduce.task.reduce.Shuffle$ShuffleError: ...\n"
        + BadMapOutput.MARKER + "attempt_1_0001_m_000001_0 (again)\n"
        + BadMapOutput.MARKER + "attempt_1_0001_m_000002_3 (checksum)\n";
    assertEquals(List.of("attempt_1_0001_m_000001_0", "attempt_1_0001_m_000002_3"),
        BadMapOutput.parse(report));
    assertTrue(BadMapOutput.parse("java.io.IOException: boom").isEmpty());
    assertTrue(BadMapOutput.parse(null).isEmpty());
  }
}
