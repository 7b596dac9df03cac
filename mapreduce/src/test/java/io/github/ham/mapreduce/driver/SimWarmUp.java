package io.github.ham.mapreduce.driver;

import java.io.IOException;
import java.lang.reflect.Proxy;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.ham.mapreduce.common.protocol.RunnerSupport;
import io.github.ham.mapreduce.common.protocol.RunnerUmbilical;
import io.github.ham.mapreduce.runner.TaskEndCalls;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.io.BytesWritable;
import org.apache.hadoop.ipc.RPC;
import org.apache.hadoop.mapred.AMFeedback;
import org.apache.hadoop.mapred.HamBridge;
import org.apache.hadoop.mapred.JobID;
import org.apache.hadoop.mapred.JvmTask;
import org.apache.hadoop.mapred.TaskAttemptID;
import org.apache.hadoop.mapred.TaskID;
import org.apache.hadoop.mapred.TaskUmbilicalProtocol;
import org.apache.hadoop.mapreduce.TaskType;
import org.apache.hadoop.mapreduce.split.JobSplit.TaskSplitIndex;
import org.apache.hadoop.security.UserGroupInformation;

/**
 * Scale bench (test code): a simulated-runner JVM's calls, run against a stand-in umbilical
 * served in the same JVM before its runners connect to the driver, so that its JIT has compiled
 * them by the time the driver is measured. Without it each runner JVM starts interpreting and
 * compiling Hadoop's IPC client, the status reports and the tasks' decoding at go, on the cores
 * the driver is measured on (real runners' JVMs warm up on their own nodes): with ten runner
 * JVMs (10,000 runners) their rate climbed for 6 s after go while the driver used a third of a
 * core. The stand-in answers as the driver does (a map task for every request, commits
 * allowed), without security: the connection's SASL handshake is not warmed, and it happens
 * before go anyway.
 */
final class SimWarmUp {
  private SimWarmUp() {
  }

  /** Ends {@code attempt} as a simulated runner does; see {@link SimRunners}. */
  interface TaskEnd {
    void end(TaskUmbilicalProtocol umbilical, TaskAttemptID attempt, long seq)
        throws IOException, InterruptedException;
  }

  /**
   * Runs {@code tasks} attempts over {@code threads} threads, each a runner's loop (its
   * {@link TaskEndCalls}, then {@code end} for each attempt) against the stand-in.
   */
  static void run(Configuration conf, JobID job, int tasks, int threads, TaskEnd end)
      throws Exception {
    AtomicInteger served = new AtomicInteger();
    RunnerUmbilical stand = (RunnerUmbilical) Proxy.newProxyInstance(
        RunnerUmbilical.class.getClassLoader(), new Class<?>[] {RunnerUmbilical.class},
        (proxy, method, args) -> switch (method.getName()) {
          case "getTask", "doneAndGetTask" -> mapTask(job, served.getAndIncrement());
          case "commitPendingAndCanCommit", "canCommit" -> true;
          case "statusUpdate" -> found();
          case "getJobCredentials" -> new BytesWritable();
          case "getProtocolVersion" -> RPC.getProtocolVersion(method.getDeclaringClass());
          default -> null;
        });
    // Registered as the driver registers its umbilical (UmbilicalServer), minus the token.
    RPC.Server server = new RPC.Builder(conf).setProtocol(TaskUmbilicalProtocol.class)
        .setInstance(stand).setBindAddress("127.0.0.1").setPort(0).setNumHandlers(2)
        .setVerbose(false).build();
    server.addProtocol(RPC.RpcKind.RPC_WRITABLE, RunnerSupport.class, stand);
    server.addProtocol(RPC.RpcKind.RPC_WRITABLE, RunnerUmbilical.class, stand);
    server.start();
    try {
      InetSocketAddress address = server.getListenerAddress();
      List<Thread> workers = new ArrayList<>();
      List<Exception> failed = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int each = tasks / threads + (t < tasks % threads ? 1 : 0);
        String runnerId = "warm-" + t;
        Thread w = new Thread(() -> {
          RunnerUmbilical umbilical = null;
          try {
            // Its own user, so its own connection, as each runner of SimRunners.
            UserGroupInformation user = UserGroupInformation.createRemoteUser(runnerId);
            umbilical = user.doAs((java.security.PrivilegedExceptionAction<RunnerUmbilical>) () ->
                RPC.getProxy(RunnerUmbilical.class, RunnerUmbilical.versionID, address, conf));
            TaskEndCalls calls = new TaskEndCalls(umbilical, job, 0, runnerId);
            for (long seq = 0; seq < each; seq++) {
              JvmTask next = calls.nextTask();
              end.end(calls.forTask(), next.getTask().getTaskID(), seq);
            }
            calls.nextTask();  // the last attempt's done
          } catch (Exception e) {
            synchronized (failed) {
              failed.add(e);
            }
          } finally {
            if (umbilical != null) {
              RPC.stopProxy(umbilical);
            }
          }
        }, "sim-warmup-" + t);
        workers.add(w);
        w.start();
      }
      for (Thread w : workers) {
        w.join();
      }
      if (!failed.isEmpty()) {
        throw new IOException("simulated runners' warm-up failed", failed.get(0));
      }
    } finally {
      server.stop();
    }
  }

  private static JvmTask mapTask(JobID job, int n) {
    TaskAttemptID attempt = new TaskAttemptID(new TaskID(job, TaskType.MAP, n), 0);
    return new JvmTask(HamBridge.newMapTask("job.xml", attempt, n,
        new TaskSplitIndex("job.split", 7L * n), "warm"), false);
  }

  private static AMFeedback found() {
    AMFeedback f = new AMFeedback();
    f.setTaskFound(true);
    return f;
  }
}
