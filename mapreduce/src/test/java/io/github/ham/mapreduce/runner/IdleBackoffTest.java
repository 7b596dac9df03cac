package io.github.ham.mapreduce.runner;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** A runner asks again at once after a held call, and backs off after quick empty answers. */
class IdleBackoffTest {
  @Test
  void afterAHeldCallTheRunnerAsksAgainAtOnce() {
    IdleBackoff idle = new IdleBackoff();
    assertEquals(0, idle.pauseMs(10_000));
    assertEquals(0, idle.pauseMs(IdleBackoff.HELD_MS));
  }

  @Test
  void quickEmptyAnswersBackOffUpToASecond() {
    IdleBackoff idle = new IdleBackoff();
    assertEquals(100, idle.pauseMs(1));
    assertEquals(200, idle.pauseMs(1));
    for (int i = 0; i < 20; i++) {
      idle.pauseMs(1);
    }
    assertEquals(1000, idle.pauseMs(1));
    idle.reset();
    assertEquals(100, idle.pauseMs(1), "a task came: the pause starts again");
    idle.pauseMs(1);
    assertEquals(0, idle.pauseMs(5_000));
    assertEquals(100, idle.pauseMs(1), "a held call resets it too");
  }
}
