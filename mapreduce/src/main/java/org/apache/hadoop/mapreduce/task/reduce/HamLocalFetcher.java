package org.apache.hadoop.mapreduce.task.reduce;

import java.io.IOException;
import java.util.HashSet;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;

import javax.crypto.SecretKey;

import io.github.ham.mapreduce.common.jobfiles.KeptIndex;

import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.IOUtils;
import org.apache.hadoop.mapred.IndexRecord;
import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapred.MapOutputFile;
import org.apache.hadoop.mapred.Reporter;
import org.apache.hadoop.mapred.SpillRecord;
import org.apache.hadoop.mapreduce.CryptoUtils;
import org.apache.hadoop.mapreduce.TaskAttemptID;
import org.apache.hadoop.mapreduce.security.IntermediateEncryptedStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hadoop's {@link LocalFetcher} (3.4.2, Apache License 2.0; same copy of each map's segment
 * into the merge manager) that stops: Hadoop's retries a map whose copy failed for as long as
 * its JVM lives, ignoring interrupts, and keeps the memory it reserved for it. Under YARN the
 * JVM ends with the failed reduce; a HAM runner serves the next task, so a failed shuffle would
 * leave a thread re-reading the map from the shared file system and filling the next attempts'
 * logs. This one reports the error once and ends, gives back the failed copy's reservation,
 * and ends when shut down or interrupted. A map's index that the reduce's check already read
 * is not read again ({@link KeptIndex}).
 */
class HamLocalFetcher<K, V> extends Fetcher<K, V> {
  private static final Logger LOG = LoggerFactory.getLogger(HamLocalFetcher.class);
  private static final MapHost LOCALHOST = new MapHost("local", "local");

  private final JobConf job;
  private final Map<TaskAttemptID, MapOutputFile> localMapFiles;
  private volatile boolean stop;

  HamLocalFetcher(JobConf job, TaskAttemptID reduceId, ShuffleSchedulerImpl<K, V> scheduler,
      MergeManager<K, V> merger, Reporter reporter, ShuffleClientMetrics metrics,
      ExceptionReporter exceptionReporter, SecretKey shuffleKey,
      Map<TaskAttemptID, MapOutputFile> localMapFiles) {
    super(job, reduceId, scheduler, merger, reporter, metrics, exceptionReporter, shuffleKey);
    this.job = job;
    this.localMapFiles = localMapFiles;
    setName("localfetcher#" + id);
    setDaemon(true);
  }

  @Override
  public void shutDown() throws InterruptedException {
    stop = true;
    super.shutDown();
  }

  @Override
  public void run() {
    Set<TaskAttemptID> maps = new HashSet<>(localMapFiles.keySet());
    while (!maps.isEmpty() && !stop && !isInterrupted()) {
      try {
        merger.waitForResource();  // an in-memory merge is on: wait for it
        metrics.threadBusy();
        copyWhatFits(maps);
        metrics.threadFree();
      } catch (InterruptedException e) {
        return;
      } catch (Throwable t) {
        exceptionReporter.reportException(t);
        return;
      }
    }
  }

  /** Copies maps until the merge manager says wait (then back to run's loop). */
  private void copyWhatFits(Set<TaskAttemptID> maps) throws IOException {
    Iterator<TaskAttemptID> iter = maps.iterator();
    while (iter.hasNext() && !stop) {
      if (copyMapOutput(iter.next())) {
        iter.remove();
      } else {
        break;
      }
    }
  }

  /** One map's segment to the merge manager; false when it says wait. */
  private boolean copyMapOutput(TaskAttemptID mapTaskId) throws IOException {
    MapOutputFile files = localMapFiles.get(mapTaskId);
    Path mapOutputFileName = files.getOutputFile();
    IndexRecord ir = files instanceof KeptIndex k ? k.keptIndex(reduce) : null;
    if (ir == null) {
      ir = new SpillRecord(files.getOutputIndexFile(), job).getIndex(reduce);
    }
    long compressedLength = ir.partLength - CryptoUtils.cryptoPadding(job);
    long decompressedLength = ir.rawLength - CryptoUtils.cryptoPadding(job);
    MapOutput<K, V> mapOutput = merger.reserve(mapTaskId, decompressedLength, id);
    if (mapOutput == null) {
      LOG.info("fetcher#" + id + " - MergeManager returned Status.WAIT ...");
      return false;
    }
    LOG.info("localfetcher#" + id + " about to shuffle output of map " + mapOutput.getMapId()
        + " decomp: " + decompressedLength + " len: " + compressedLength + " to "
        + mapOutput.getDescription());
    FileSystem localFs = FileSystem.getLocal(job).getRaw();
    FSDataInputStream inStream = localFs.open(mapOutputFileName);
    try {
      inStream.seek(ir.startOffset);
      inStream = IntermediateEncryptedStream.wrapIfNecessary(job, inStream, mapOutputFileName);
      mapOutput.shuffle(LOCALHOST, inStream, compressedLength, decompressedLength, metrics,
          reporter);
    } catch (IOException | RuntimeException | Error e) {
      mapOutput.abort();  // its reservation back to the merge manager
      throw e;
    } finally {
      IOUtils.cleanupWithLogger(LOG, inStream);
    }
    scheduler.copySucceeded(mapTaskId, LOCALHOST, compressedLength, 0, 0, mapOutput);
    return true;
  }
}
