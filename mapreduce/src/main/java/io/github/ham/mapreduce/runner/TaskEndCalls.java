package io.github.ham.mapreduce.runner;

import java.io.IOException;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;

import io.github.ham.mapreduce.common.protocol.RunnerUmbilical;

import org.apache.hadoop.mapred.AMFeedback;
import org.apache.hadoop.mapred.HamBridge;
import org.apache.hadoop.mapred.JobID;
import org.apache.hadoop.mapred.JvmTask;
import org.apache.hadoop.mapred.TaskAttemptID;
import org.apache.hadoop.mapred.TaskStatus;
import org.apache.hadoop.mapred.TaskUmbilicalProtocol;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The umbilical a task sees in a runner: every call goes to the driver as it is, except those a
 * task makes as it ends, which are held and said together in fewer round trips
 * ({@link RunnerUmbilical}). A stock Task ends with statusUpdate (its final counters), done,
 * and, with output to commit, commitPending then canCommit until allowed; the runner then asks
 * for its next task. Here:
 * <ul>
 * <li>a status the task's own thread sends (the final one, and those at a phase change) is held
 * and goes with the attempt's done or commitPending; a later status from the task's reporter
 * thread (its heartbeat, every few seconds, never held) replaces it, and the driver keeps only
 * an attempt's latest progress and counters, so nothing it uses is lost;</li>
 * <li>done is held until the runner asks for its next task ({@link #nextTask}), and both go in
 * one call; if that call fails the done is said again with the next one (the driver counts an
 * attempt's done once);</li>
 * <li>commitPending asks canCommit at once, and the task's first canCommit gets that answer.</li>
 * </ul>
 * A task whose attempt the driver has ended learns it from its reporter's next heartbeat, as
 * before, or from the answer to its end. One instance per runner thread: the thread that
 * creates it is the one that runs its tasks. Public for the scale bench's simulated runners,
 * which end their attempts through it as TaskRunner does.
 */
public final class TaskEndCalls implements InvocationHandler {
  private static final Logger LOG = LoggerFactory.getLogger(TaskEndCalls.class);
  private final RunnerUmbilical driver;
  private final JobID jobId;
  private final long pid;
  private final String runnerId;
  private final Thread taskThread = Thread.currentThread();
  private final TaskUmbilicalProtocol forTask;

  /** The last status the task's thread sent, and its attempt: said with that attempt's end. */
  private TaskAttemptID heldFor;
  private TaskStatus held;
  /** An attempt done, and its final status, until the runner's next getTask carries them. */
  private TaskAttemptID done;
  private TaskStatus doneStatus;
  /** An attempt the driver allowed to commit when it said commitPending. */
  private TaskAttemptID mayCommit;

  public TaskEndCalls(RunnerUmbilical driver, JobID jobId, long pid, String runnerId) {
    this.driver = driver;
    this.jobId = jobId;
    this.pid = pid;
    this.runnerId = runnerId;
    this.forTask = (TaskUmbilicalProtocol) Proxy.newProxyInstance(
        TaskUmbilicalProtocol.class.getClassLoader(),
        new Class<?>[] {TaskUmbilicalProtocol.class}, this);
  }

  /** What the runner passes to Task.run. */
  public TaskUmbilicalProtocol forTask() {
    return forTask;
  }

  /** The runner's next task (or wait / stop), saying the last attempt's end with the request. */
  public JvmTask nextTask() throws IOException {
    TaskAttemptID ended;
    TaskStatus last;
    synchronized (this) {
      ended = done;
      last = doneStatus;
    }
    JvmTask next = ended == null ? HamBridge.getTask(driver, jobId, pid, runnerId)
        : driver.doneAndGetTask(ended, last, runnerId);
    synchronized (this) {
      if (done == ended) {
        done = null;
        doneStatus = null;
      }
    }
    return next;
  }

  /**
   * The runner exits without asking for another task: a held end is said now (its last status,
   * then done), or the driver would take the attempt for lost with its runner and run it again
   * (a map-only task that committed would commit twice).
   */
  public void sayHeldEnd() {
    TaskAttemptID ended;
    TaskStatus last;
    synchronized (this) {
      ended = done;
      last = doneStatus;
      done = null;
      doneStatus = null;
    }
    if (ended == null) {
      return;
    }
    try {
      if (last != null) {
        driver.statusUpdate(ended, last);
      }
      driver.done(ended);
    } catch (IOException e) {
      LOG.warn("Cannot tell the driver that {} is done: {}", ended, e.toString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
    switch (method.getName()) {
      case "statusUpdate":
        if (args[1] != null && Thread.currentThread() == taskThread) {
          synchronized (this) {
            heldFor = (TaskAttemptID) args[0];
            // The task clears and updates its status object after the call returns.
            held = (TaskStatus) ((TaskStatus) args[1]).clone();
          }
          AMFeedback found = new AMFeedback();
          found.setTaskFound(true);
          return found;
        }
        if (args[1] != null) {
          release((TaskAttemptID) args[0]);
        }
        break;
      case "commitPending": {
        TaskAttemptID attempt = (TaskAttemptID) args[0];
        release(attempt);
        boolean allowed = driver.commitPendingAndCanCommit(attempt, (TaskStatus) args[1]);
        synchronized (this) {
          mayCommit = allowed ? attempt : null;
        }
        return null;
      }
      case "canCommit":
        synchronized (this) {
          if (args[0].equals(mayCommit)) {
            mayCommit = null;
            return true;
          }
        }
        break;
      case "done":
        synchronized (this) {
          done = (TaskAttemptID) args[0];
          doneStatus = done.equals(heldFor) ? held : null;
          heldFor = null;
          held = null;
        }
        return null;
      case "fatalError", "fsError", "shuffleError", "preempted":
        release((TaskAttemptID) args[0]);
        synchronized (this) {
          if (args[0].equals(done)) {
            done = null;  // its failure, not its end, is what the driver hears
            doneStatus = null;
          }
        }
        break;
      default:
        break;
    }
    try {
      return method.invoke(driver, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }

  /** A newer report of {@code attempt} supersedes the status held for it. */
  private synchronized void release(TaskAttemptID attempt) {
    if (attempt.equals(heldFor)) {
      heldFor = null;
      held = null;
    }
  }
}
