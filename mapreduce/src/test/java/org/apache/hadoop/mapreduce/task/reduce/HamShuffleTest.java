package org.apache.hadoop.mapreduce.task.reduce;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.apache.hadoop.mapreduce.TaskAttemptID;
import org.junit.jupiter.api.Test;

/** How HamShuffle deals the maps to its fetchers. */
class HamShuffleTest {
  @Test
  void everyMapGoesToExactlyOneFetcherInTurn() {
    Map<TaskAttemptID, Integer> maps = new LinkedHashMap<>();
    for (int i = 0; i < 12; i++) {
      maps.put(TaskAttemptID.forName(String.format("attempt_1_0001_m_%06d_0", i)), i);
    }
    List<Map<TaskAttemptID, Integer>> shares = HamShuffle.shares(maps, 5);
    assertEquals(5, shares.size());
    assertEquals(List.of(0, 5, 10), List.copyOf(shares.get(0).values()));
    assertEquals(List.of(4, 9), List.copyOf(shares.get(4).values()));
    List<Integer> all = new ArrayList<>();
    shares.forEach(s -> all.addAll(s.values()));
    all.sort(null);
    assertEquals(List.copyOf(maps.values()), all);
    assertEquals(List.of(Map.of()), HamShuffle.shares(Map.of(), 1), "no maps: one idle fetcher");
  }
}
