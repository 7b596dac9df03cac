package io.github.ham.mapreduce.runner;

import java.io.IOException;

import io.github.ham.mapreduce.common.Causes;
import io.github.ham.mapreduce.common.HamConfig;
import io.github.ham.mapreduce.common.HamLocalFileSystem;
import io.github.ham.mapreduce.common.fs.FastPaths;
import io.github.ham.mapreduce.common.jobfiles.KeptIndex;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.mapred.IndexRecord;
import org.apache.hadoop.mapred.MapOutputFile;
import org.apache.hadoop.mapreduce.TaskID;

/**
 * Map output in one directory per attempt on the shared file system:
 * {@code file.out} and {@code file.out.index}, plus spills while the map runs. The directory is
 * {@link HamConfig#TASK_OUTPUT_DIR} from the task's configuration (mapreduce.task.local.output.class
 * points here), or given explicitly when a reducer reads a map's output; then it also keeps
 * the reduce's record of the index its check read ({@link KeptIndex}).
 */
public class SharedMapOutputFile extends MapOutputFile implements KeptIndex {
  private record Kept(int partition, IndexRecord record) {
  }

  private Path dir;
  /** Set by the check's threads, read by the fetchers' after the check was awaited. */
  private volatile Kept kept;

  public SharedMapOutputFile() {
  }

  public SharedMapOutputFile(Path dir, Configuration conf) {
    this.dir = dir;
    super.setConf(conf);
  }

  @Override
  public void setConf(Configuration conf) {
    super.setConf(conf);
    if (dir == null && conf != null && conf.get(HamConfig.TASK_OUTPUT_DIR) != null) {
      dir = new Path(conf.get(HamConfig.TASK_OUTPUT_DIR));
    }
  }

  private Path file(String name) throws IOException {
    if (dir == null) {
      throw new IOException(HamConfig.TASK_OUTPUT_DIR + " is not set in the task configuration");
    }
    return FastPaths.child(dir, name);
  }

  @Override
  public Path getOutputFile() throws IOException {
    return file(HamLocalFileSystem.MAP_OUTPUT);
  }

  @Override
  public Path getOutputFileForWrite(long size) throws IOException {
    return file(HamLocalFileSystem.MAP_OUTPUT);
  }

  @Override
  public Path getOutputFileForWriteInVolume(Path existing) {
    return FastPaths.child(existing.getParent(), HamLocalFileSystem.MAP_OUTPUT);
  }

  @Override
  public Path getOutputIndexFile() throws IOException {
    return file(HamLocalFileSystem.MAP_OUTPUT_INDEX);
  }

  @Override
  public Path getOutputIndexFileForWrite(long size) throws IOException {
    return file(HamLocalFileSystem.MAP_OUTPUT_INDEX);
  }

  @Override
  public Path getOutputIndexFileForWriteInVolume(Path existing) {
    return FastPaths.child(existing.getParent(), HamLocalFileSystem.MAP_OUTPUT_INDEX);
  }

  @Override
  public Path getSpillFile(int spillNumber) throws IOException {
    return file("spill" + spillNumber + ".out");
  }

  @Override
  public Path getSpillFileForWrite(int spillNumber, long size) throws IOException {
    return getSpillFile(spillNumber);
  }

  @Override
  public Path getSpillIndexFile(int spillNumber) throws IOException {
    return file("spill" + spillNumber + ".out.index");
  }

  @Override
  public Path getSpillIndexFileForWrite(int spillNumber, long size) throws IOException {
    return getSpillIndexFile(spillNumber);
  }

  @Override
  public Path getInputFile(int mapId) throws IOException {
    return file(String.format("map_%d.out", mapId));
  }

  @Override
  public Path getInputFileForWrite(TaskID mapId, long size) throws IOException {
    return getInputFile(mapId.getId());
  }

  @Override
  public void keepIndex(int partition, IndexRecord record) {
    kept = new Kept(partition, record);
  }

  @Override
  public IndexRecord keptIndex(int partition) {
    Kept k = kept;
    return k != null && k.partition() == partition ? k.record() : null;
  }

  @Override
  public void removeAll() throws IOException {
    if (dir != null) {
      FileSystem.getLocal(getConf()).delete(dir, true);
    }
  }

  /**
   * Whether a reduce's failure may come from reading map output: a shuffle error, or a
   * checksum, EOF or index error anywhere in its causes (a failure in the user's reducer
   * does not make the runner read every segment again).
   */
  static boolean readingMapOutput(Throwable t) {
    return Causes.any(t,
        c -> c instanceof org.apache.hadoop.mapreduce.task.reduce.Shuffle.ShuffleError
        || c instanceof org.apache.hadoop.fs.ChecksumException
        || c instanceof java.io.EOFException
        || c instanceof IndexOutOfBoundsException);
  }
}
