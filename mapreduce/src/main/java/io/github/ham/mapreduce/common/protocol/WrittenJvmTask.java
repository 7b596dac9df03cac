package io.github.ham.mapreduce.common.protocol;

import java.io.DataOutput;
import java.io.IOException;

import org.apache.hadoop.mapred.JvmTask;

/**
 * A JvmTask whose bytes the driver made beforehand (a map task from its job's template,
 * io.github.ham.mapreduce.driver.ipc.MapTaskBytes). The umbilical names this class with the bytes,
 * and a runner reads them as Hadoop's JvmTask reads its own (this class's no-argument
 * constructor, JvmTask's readFields): what it gets is the same MapTask.
 */
public class WrittenJvmTask extends JvmTask {
  private byte[] bytes;

  /** How a runner makes one, to read a task into. */
  public WrittenJvmTask() {
  }

  /** A task written as JvmTask.write would write it. */
  public WrittenJvmTask(byte[] bytes) {
    this.bytes = bytes;
  }

  @Override
  public void write(DataOutput out) throws IOException {
    if (bytes == null) {
      super.write(out);
    } else {
      out.write(bytes);
    }
  }
}
