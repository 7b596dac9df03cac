package io.github.ham.mapreduce.driver.schedule;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.apache.hadoop.mapred.JobID;
import org.apache.hadoop.mapred.TaskAttemptID;
import org.junit.jupiter.api.Test;

import io.github.ham.mapreduce.common.ids.AttemptKey;
import io.github.ham.mapreduce.common.ids.TaskKey;

class AttemptIdsTest {
  @Test
  void namesAreHadoopsOwn() {
    for (JobID job : new JobID[] {new JobID("1700000000000", 7), new JobID("42", 123456)}) {
      AttemptIds ids = new AttemptIds(job);
      for (int index : new int[] {0, 7, 9, 10, 99_999, 100_000, 999_999, 1_000_000,
          12_345_678, Integer.MAX_VALUE}) {
        for (boolean isMap : new boolean[] {true, false}) {
          TaskKey task = new TaskKey(isMap, index);
          assertEquals(ids.task(task).toString(), ids.taskName(task));
          assertEquals("x" + ids.task(task), ids.appendTaskName(new StringBuilder("x"), task)
              .toString());
          for (int attempt : new int[] {0, 3, 1000}) {
            AttemptKey key = new AttemptKey(task, attempt);
            assertEquals(ids.attempt(key).toString(), ids.attemptName(key));
            assertEquals("x" + ids.attempt(key), ids.appendAttemptName(new StringBuilder("x"),
                key).toString());
            assertEquals(key, ids.keyOf(TaskAttemptID.forName(ids.attemptName(key))));
          }
        }
      }
    }
  }

  @Test
  void anotherJobsAttemptIsNotOurs() {
    AttemptIds ids = new AttemptIds(new JobID("1700000000000", 7));
    assertNull(ids.keyOf(TaskAttemptID.forName("attempt_1700000000000_0008_m_000001_0")));
    assertNull(ids.keyOf(TaskAttemptID.forName("attempt_1700000000001_0007_m_000001_0")));
    assertNull(ids.keyOf(TaskAttemptID.forName("attempt_17000000000000_0007_m_000001_0")));
    assertNull(ids.keyOf(TaskAttemptID.forName("attempt_170000000000_0007_m_000001_0")));
  }
}
