package io.github.ham.mapreduce.common.protocol;

import java.io.IOException;

import org.apache.hadoop.mapred.JvmTask;
import org.apache.hadoop.mapred.TaskAttemptID;
import org.apache.hadoop.mapred.TaskStatus;
import org.apache.hadoop.mapred.TaskUmbilicalProtocol;
import org.apache.hadoop.mapreduce.security.token.JobTokenSelector;
import org.apache.hadoop.security.token.TokenInfo;

/**
 * The protocol between HAM's task runners and the driver: Hadoop's umbilical, the job's
 * credentials ({@link RunnerSupport}), and two calls that each say in one round trip what a
 * task says in several. A task's end is its last statusUpdate, done, and then its runner's
 * getTask (three calls); a task with output to commit first says commitPending and asks
 * canCommit (two more). Each call costs the driver's IPC reader and handler threads about the
 * same whatever it carries, so calls per task, not bytes, bound how many tasks a second one
 * driver can hand out. One proxy of this interface is one connection (one SASL handshake) per
 * runner for all of it.
 */
@TokenInfo(JobTokenSelector.class)
public interface RunnerUmbilical extends TaskUmbilicalProtocol, RunnerSupport {
  /** Shadows the two parents' versions: this protocol's own. */
  long versionID = 1L;

  /**
   * {@code attempt} is done (with {@code last}, its final status, if not null: progress and
   * counters), then the next task for {@code runnerId}, as getTask answers.
   */
  JvmTask doneAndGetTask(TaskAttemptID attempt, TaskStatus last, String runnerId)
      throws IOException;

  /** commitPending with {@code status}, then canCommit: whether the attempt may commit now. */
  boolean commitPendingAndCanCommit(TaskAttemptID attempt, TaskStatus status)
      throws IOException;
}
