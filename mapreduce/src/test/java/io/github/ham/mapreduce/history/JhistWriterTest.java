package io.github.ham.mapreduce.history;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.apache.hadoop.mapreduce.TaskAttemptID;
import org.apache.hadoop.mapreduce.TaskType;
import org.apache.hadoop.mapreduce.jobhistory.HistoryEvent;
import org.apache.hadoop.mapreduce.jobhistory.TaskAttemptStartedEvent;
import org.apache.hadoop.mapreduce.jobhistory.TaskStartedEvent;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.junit.jupiter.api.Test;

class JhistWriterTest {
  private static HistoryEvent started(String attempt) {
    TaskAttemptID a = TaskAttemptID.forName(attempt);
    return new TaskAttemptStartedEvent(a, a.getTaskType(), 5, "node1", -1, -1,
        ContainerId.fromString("container_1700000000000_0001_01_000002"), "OFF_SWITCH",
        "VIRGIN");
  }

  @Test
  void eventTypesAreTheEventsOwn() {
    for (HistoryEvent e : new HistoryEvent[] {
        started("attempt_1700000000000_0001_m_000003_0"),
        started("attempt_1700000000000_0001_r_000001_2"),
        new TaskStartedEvent(TaskAttemptID.forName("attempt_1700000000000_0001_m_000003_0")
            .getTaskID(), 5, TaskType.MAP, "")}) {
      assertEquals(e.getEventType(), JhistWriter.typeOf(e));
    }
  }
}
