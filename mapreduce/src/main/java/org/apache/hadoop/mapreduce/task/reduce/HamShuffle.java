package org.apache.hadoop.mapreduce.task.reduce;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapred.MapOutputFile;
import org.apache.hadoop.mapred.RawKeyValueIterator;
import org.apache.hadoop.mapred.Reporter;
import org.apache.hadoop.mapred.ShuffleConsumerPlugin;
import org.apache.hadoop.mapred.Task;
import org.apache.hadoop.mapred.TaskStatus;
import org.apache.hadoop.mapred.TaskUmbilicalProtocol;
import org.apache.hadoop.mapreduce.MRJobConfig;
import org.apache.hadoop.mapreduce.TaskAttemptID;
import org.apache.hadoop.util.Progress;

/**
 * Hadoop's {@link Shuffle} (3.4.2) for a reduce whose map outputs are files it reads itself
 * (ReduceTask.setLocalMapFiles: HAM's reduces read them from the shared file system), with
 * mapreduce.reduce.shuffle.parallelcopies (5) fetchers over disjoint shares of the maps
 * instead of one ({@link HamLocalFetcher}: Hadoop's LocalFetcher, which stops). One fetcher
 * reads the maps one after the other, a few round trips to the file system's servers each (an
 * open and a read of the index, an open of the output): on the test cluster's GlusterFS 42 ms a
 * map, 12.5 s of a 300-map reduce's 13 s of shuffle and merge (bench/README.md). The fetchers
 * hand their segments to one scheduler and merge manager, as YARN's HTTP fetchers do. The rest
 * is Hadoop's: the map-completion events, the wait, the final merge and its errors (a
 * {@link Shuffle.ShuffleError}), but a failed shuffle's threads are stopped, since the runner
 * JVM serves the next task. Without local map files it is Hadoop's Shuffle. The runner names it
 * in mapreduce.job.reduce.shuffle.consumer.plugin.class unless the job names a shuffle other
 * than Hadoop's (runner.TaskSetup).
 */
@SuppressWarnings({"unchecked", "rawtypes"})
public class HamShuffle<K, V> implements ShuffleConsumerPlugin<K, V>, ExceptionReporter {
  // Shuffle's own constants: how often the wait reports progress, and the events per call.
  private static final int PROGRESS_FREQUENCY = 2000;
  private static final int MAX_EVENTS_TO_FETCH = 10000;
  private static final int MIN_EVENTS_TO_FETCH = 100;
  private static final int MAX_RPC_OUTSTANDING_EVENTS = 3000000;
  /** Hadoop's default for mapreduce.reduce.shuffle.parallelcopies (its Shuffle's literal). */
  private static final int PARALLEL_COPIES = 5;

  private ShuffleConsumerPlugin<K, V> hadoops;
  private TaskAttemptID reduceId;
  private JobConf jobConf;
  private Reporter reporter;
  private ShuffleClientMetrics metrics;
  private TaskUmbilicalProtocol umbilical;
  private ShuffleSchedulerImpl<K, V> scheduler;
  private MergeManager<K, V> merger;
  private Throwable throwable;
  private String throwingThreadName;
  private Progress copyPhase;
  private TaskStatus taskStatus;
  private Task reduceTask;
  private Map<TaskAttemptID, MapOutputFile> localMapFiles;

  @Override
  public void init(ShuffleConsumerPlugin.Context context) {
    if (context.getLocalMapFiles() == null) {
      hadoops = new Shuffle<>();
      hadoops.init(context);
      return;
    }
    this.reduceId = context.getReduceId();
    this.jobConf = context.getJobConf();
    this.umbilical = context.getUmbilical();
    this.reporter = context.getReporter();
    this.metrics = ShuffleClientMetrics.create(context.getReduceId(), this.jobConf);
    this.copyPhase = context.getCopyPhase();
    this.taskStatus = context.getStatus();
    this.reduceTask = context.getReduceTask();
    this.localMapFiles = context.getLocalMapFiles();
    scheduler = new ShuffleSchedulerImpl<K, V>(jobConf, taskStatus, reduceId, this, copyPhase,
        context.getShuffledMapsCounter(), context.getReduceShuffleBytes(),
        context.getFailedShuffleCounter());
    merger = new MergeManagerImpl<K, V>(reduceId, jobConf, context.getLocalFS(),
        context.getLocalDirAllocator(), reporter, context.getCodec(),
        context.getCombinerClass(), context.getCombineCollector(),
        context.getSpilledRecordsCounter(), context.getReduceCombineInputCounter(),
        context.getMergedMapOutputsCounter(), this, context.getMergePhase(),
        context.getMapOutputFile());
  }

  /**
   * How many of its {@code maps} outputs a reduce reads at once (and checks at once before,
   * MapOutputCheck): mapreduce.reduce.shuffle.parallelcopies, at least one, at most one a map.
   */
  public static int readers(JobConf conf, int maps) {
    return Math.max(1, Math.min(maps,
        conf.getInt(MRJobConfig.SHUFFLE_PARALLEL_COPIES, PARALLEL_COPIES)));
  }

  /** The maps in {@code n} shares, dealt in turn (each share a spread of the job's maps). */
  static <T> List<Map<TaskAttemptID, T>> shares(Map<TaskAttemptID, T> maps, int n) {
    List<Map<TaskAttemptID, T>> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add(new LinkedHashMap<>());
    }
    int i = 0;
    for (Map.Entry<TaskAttemptID, T> e : maps.entrySet()) {
      out.get(i++ % n).put(e.getKey(), e.getValue());
    }
    return out;
  }

  @Override
  public RawKeyValueIterator run() throws IOException, InterruptedException {
    if (hadoops != null) {
      return hadoops.run();
    }
    int eventsPerReducer = Math.max(MIN_EVENTS_TO_FETCH,
        MAX_RPC_OUTSTANDING_EVENTS / jobConf.getNumReduceTasks());
    int maxEventsToFetch = Math.min(MAX_EVENTS_TO_FETCH, eventsPerReducer);
    final EventFetcher<K, V> eventFetcher =
        new EventFetcher<K, V>(reduceId, umbilical, scheduler, this, maxEventsToFetch);
    eventFetcher.start();

    List<Fetcher<K, V>> fetchers = new ArrayList<>();
    for (Map<TaskAttemptID, MapOutputFile> share
        : shares(localMapFiles, readers(jobConf, localMapFiles.size()))) {
      Fetcher<K, V> f = new HamLocalFetcher<K, V>(jobConf, reduceId, scheduler, merger,
          reporter, metrics, this, reduceTask.getShuffleSecret(), share);
      fetchers.add(f);
      f.start();
    }

    try {
      while (!scheduler.waitUntilDone(PROGRESS_FREQUENCY)) {
        reporter.progress();
        synchronized (this) {
          if (throwable != null) {
            throw new Shuffle.ShuffleError("error in shuffle in " + throwingThreadName,
                throwable);
          }
        }
      }
    } finally {
      // As Hadoop's after the wait; after a failure too (Hadoop's leaves them, its JVM ending
      // with the task): nothing may outlive a shuffle in a runner that serves the next task.
      eventFetcher.shutDown();
      for (Fetcher<K, V> fetcher : fetchers) {
        fetcher.shutDown();
      }
      scheduler.close();
    }

    copyPhase.complete();
    taskStatus.setPhase(TaskStatus.Phase.SORT);
    reduceTask.statusUpdate(umbilical);

    RawKeyValueIterator kvIter = null;
    try {
      kvIter = merger.close();
    } catch (Throwable e) {
      throw new Shuffle.ShuffleError("Error while doing final merge ", e);
    }
    synchronized (this) {
      if (throwable != null) {
        throw new Shuffle.ShuffleError("error in shuffle in " + throwingThreadName, throwable);
      }
    }
    return kvIter;
  }

  @Override
  public void close() {
    if (hadoops != null) {
      hadoops.close();
    }
  }

  @Override
  public synchronized void reportException(Throwable t) {
    if (throwable == null) {
      throwable = t;
      throwingThreadName = Thread.currentThread().getName();
      // Wakes the wait at once (Shuffle's way).
      synchronized (scheduler) {
        scheduler.notifyAll();
      }
    }
  }
}
