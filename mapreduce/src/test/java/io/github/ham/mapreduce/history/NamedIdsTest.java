package io.github.ham.mapreduce.history;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import org.apache.hadoop.mapreduce.JobID;
import org.apache.hadoop.mapreduce.TaskAttemptID;
import org.apache.hadoop.mapreduce.TaskID;
import org.apache.hadoop.mapreduce.TaskType;
import org.apache.hadoop.mapreduce.jobhistory.TaskAttemptStarted;
import org.apache.hadoop.mapreduce.jobhistory.TaskAttemptStartedEvent;
import org.apache.hadoop.yarn.api.records.ApplicationAttemptId;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.junit.jupiter.api.Test;

class NamedIdsTest {
  private final JobID job = new JobID("1764123456789", 42);

  @Test
  void namesAreHadoopsOwn() {
    NamedIds named = new NamedIds(job);
    for (TaskType type : new TaskType[] {TaskType.MAP, TaskType.REDUCE}) {
      for (int index : new int[] {0, 7, 123456, 1234567}) {
        TaskAttemptID plain = new TaskAttemptID(new TaskID(job, type, index), 1003);
        TaskAttemptID a = named.attempt(plain);
        assertEquals(plain.toString(), a.toString());
        assertEquals(plain.getTaskID().toString(), a.getTaskID().toString());
        assertEquals(plain.getTaskID().toString(), named.task(plain.getTaskID()).toString());
        assertEquals(type, a.getTaskType());
        assertSame(a, named.attempt(a), "named once");
      }
    }
  }

  @Test
  void eventsPrintTheNames() {
    TaskAttemptID plain = new TaskAttemptID(new TaskID(job, TaskType.MAP, 3), 0);
    TaskAttemptID a = new NamedIds(job).attempt(plain);
    ContainerId container = ContainerId.newContainerId(ApplicationAttemptId.newInstance(
        ApplicationId.newInstance(1764123456789L, 42), 1), 2);
    TaskAttemptStarted datum = (TaskAttemptStarted) new TaskAttemptStartedEvent(a,
        TaskType.MAP, 1L, "node1", -1, -1, container, "OFF_SWITCH", "VIRGIN").getDatum();
    assertEquals(plain.toString(), datum.getAttemptId().toString());
    assertEquals(plain.getTaskID().toString(), datum.getTaskid().toString());
  }

  @Test
  void anotherJobsIdsAreLeftAsTheyAre() {
    TaskAttemptID other = new TaskAttemptID(new TaskID(new JobID("1764123456789", 43),
        TaskType.MAP, 3), 0);
    assertSame(other, new NamedIds(job).attempt(other));
  }
}
