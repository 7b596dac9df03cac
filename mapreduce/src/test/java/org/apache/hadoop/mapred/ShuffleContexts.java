package org.apache.hadoop.mapred;

import java.lang.reflect.Proxy;
import java.util.Map;

import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocalDirAllocator;
import org.apache.hadoop.util.Progress;

/** A reduce's shuffle context as ReduceTask.run builds it, for shuffle tests without a job. */
public final class ShuffleContexts {
  private ShuffleContexts() {
  }

  /** The context of reduce 0 of {@code maps} maps, reading {@code local} (null: none). */
  public static ShuffleConsumerPlugin.Context of(JobConf conf, int maps,
      Map<TaskAttemptID, MapOutputFile> local, Counters counters) throws Exception {
    TaskAttemptID rid = TaskAttemptID.forName("attempt_1_0001_r_000000_0");
    ReduceTask task = new ReduceTask("job.xml", rid, 0, maps, 1);
    task.setConf(conf);
    task.setShuffleSecret(new javax.crypto.spec.SecretKeySpec(new byte[20], "HmacSHA1"));
    // The driver's side: no map-completion events (the map outputs are given), status taken.
    TaskUmbilicalProtocol umbilical = (TaskUmbilicalProtocol) Proxy.newProxyInstance(
        ShuffleContexts.class.getClassLoader(), new Class<?>[] {TaskUmbilicalProtocol.class},
        (proxy, method, args) -> switch (method.getName()) {
          case "getMapCompletionEvents" ->
              new MapTaskCompletionEventsUpdate(TaskCompletionEvent.EMPTY_ARRAY, false);
          case "statusUpdate" -> {
            AMFeedback feedback = new AMFeedback();
            feedback.setTaskFound(true);
            yield feedback;
          }
          case "hashCode" -> 1;
          case "equals" -> false;
          case "toString" -> "umbilical";
          default -> null;
        });
    MROutputFiles files = new MROutputFiles();
    files.setConf(conf);
    return new ShuffleConsumerPlugin.Context(rid, conf, FileSystem.getLocal(conf), umbilical,
        new LocalDirAllocator("mapreduce.cluster.local.dir"), Reporter.NULL, null, null, null,
        counters.findCounter("t", "spilled"), counters.findCounter("t", "combineIn"),
        counters.findCounter("t", "shuffledMaps"), counters.findCounter("t", "shuffleBytes"),
        counters.findCounter("t", "failedShuffle"), counters.findCounter("t", "merged"),
        task.taskStatus, new Progress(), new Progress(), task, files, local);
  }
}
