package io.github.ham.mapreduce.runner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;

import io.github.ham.mapreduce.common.protocol.RunnerUmbilical;

import org.apache.hadoop.mapred.AMFeedback;
import org.apache.hadoop.mapred.JobID;
import org.apache.hadoop.mapred.JvmTask;
import org.apache.hadoop.mapred.SimTaskStatus;
import org.apache.hadoop.mapred.TaskAttemptID;
import org.apache.hadoop.mapred.TaskStatus;
import org.apache.hadoop.mapred.TaskUmbilicalProtocol;
import org.junit.jupiter.api.Test;

/** What a task says as it ends reaches the driver, in fewer calls, and nothing else is held. */
class TaskEndCallsTest {
  private static final JobID JOB = new JobID("1", 1);
  private static final TaskAttemptID A = TaskAttemptID.forName("attempt_1_0001_m_000003_0");

  /** The calls the driver received: method name and arguments. */
  private final List<Object[]> calls = new ArrayList<>();
  private boolean allowCommit = true;
  private final JvmTask next = new JvmTask(null, false);

  private RunnerUmbilical driver() {
    return (RunnerUmbilical) Proxy.newProxyInstance(getClass().getClassLoader(),
        new Class<?>[] {RunnerUmbilical.class}, (p, m, args) -> {
          calls.add(new Object[] {m.getName(), args});
          return switch (m.getName()) {
            case "statusUpdate" -> {
              AMFeedback f = new AMFeedback();
              f.setTaskFound(true);
              yield f;
            }
            case "commitPendingAndCanCommit", "canCommit" -> allowCommit;
            case "doneAndGetTask", "getTask" -> next;
            default -> null;
          };
        });
  }

  private List<String> names() {
    return calls.stream().map(c -> (String) c[0]).toList();
  }

  @Test
  void aTasksLastStatusAndDoneGoWithTheNextGetTask() throws Exception {
    TaskEndCalls ends = new TaskEndCalls(driver(), JOB, 7, "node1/g0-p0/7");
    TaskUmbilicalProtocol task = ends.forTask();
    TaskStatus last = SimTaskStatus.map(A, false, 1);
    assertTrue(task.statusUpdate(A, last).getTaskFound());
    task.done(A);
    assertEquals(List.of(), names(), "held until the runner asks for its next task");
    assertSame(next, ends.nextTask());
    assertEquals(List.of("doneAndGetTask"), names());
    Object[] args = (Object[]) calls.get(0)[1];
    assertEquals(A, args[0]);
    assertEquals(last.getCounters(), ((TaskStatus) args[1]).getCounters());
    assertEquals("node1/g0-p0/7", args[2]);
    ends.nextTask();
    assertEquals("getTask", names().get(1), "the done is said once");
  }

  @Test
  void aRunnerThatExitsWithoutAskingAgainSaysTheHeldEndFirst() throws Exception {
    TaskEndCalls ends = new TaskEndCalls(driver(), JOB, 7, "r");
    TaskUmbilicalProtocol task = ends.forTask();
    TaskStatus last = SimTaskStatus.map(A, false, 1);
    task.statusUpdate(A, last);
    task.done(A);
    ends.sayHeldEnd();
    assertEquals(List.of("statusUpdate", "done"), names());
    assertEquals(last.getCounters(),
        ((TaskStatus) ((Object[]) calls.get(0)[1])[1]).getCounters());
    assertEquals(A, ((Object[]) calls.get(1)[1])[0]);
    ends.sayHeldEnd();
    ends.nextTask();
    assertEquals(List.of("statusUpdate", "done", "getTask"), names(), "said once");
  }

  @Test
  void aStatusFromAnotherThreadGoesAtOnceAndSupersedesTheHeldOne() throws Exception {
    TaskEndCalls ends = new TaskEndCalls(driver(), JOB, 7, "r");
    TaskUmbilicalProtocol task = ends.forTask();
    task.statusUpdate(A, SimTaskStatus.map(A, false, 1));  // a phase change, held
    TaskStatus heartbeat = SimTaskStatus.map(A, false, 2);
    Thread reporter = new Thread(() -> {
      try {
        task.statusUpdate(A, heartbeat);
        task.statusUpdate(A, null);  // a ping
      } catch (Exception e) {
        throw new AssertionError(e);
      }
    });
    reporter.start();
    reporter.join();
    assertEquals(List.of("statusUpdate", "statusUpdate"), names());
    task.done(A);
    ends.nextTask();
    assertEquals(null, ((Object[]) calls.get(2)[1])[1], "the held status was superseded");
  }

  @Test
  void commitPendingAsksAtOnceAndTheFirstCanCommitIsAnsweredFromIt() throws Exception {
    TaskUmbilicalProtocol task = new TaskEndCalls(driver(), JOB, 7, "r").forTask();
    task.commitPending(A, SimTaskStatus.map(A, true, 1));
    assertTrue(task.canCommit(A));
    assertEquals(List.of("commitPendingAndCanCommit"), names());
    assertTrue(task.canCommit(A));
    assertEquals(List.of("commitPendingAndCanCommit", "canCommit"), names(), "once only");

    allowCommit = false;
    calls.clear();
    task.commitPending(A, SimTaskStatus.map(A, true, 2));
    assertFalse(task.canCommit(A));
    assertEquals(List.of("commitPendingAndCanCommit", "canCommit"), names(),
        "not allowed: the task asks the driver again, as Task.commit does");
  }

  @Test
  void aFailureIsSaidAtOnceAndDropsWhatWasHeld() throws Exception {
    TaskEndCalls ends = new TaskEndCalls(driver(), JOB, 7, "r");
    TaskUmbilicalProtocol task = ends.forTask();
    task.statusUpdate(A, SimTaskStatus.map(A, false, 1));
    task.done(A);
    task.fatalError(A, "boom", false);
    ends.nextTask();
    assertEquals(List.of("fatalError", "getTask"), names());
  }
}
