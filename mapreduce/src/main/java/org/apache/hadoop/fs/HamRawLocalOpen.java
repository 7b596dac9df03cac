package org.apache.hadoop.fs;

import java.io.IOException;

/**
 * RawLocalFileSystem's stream for reading a file, made without the stat its open asks for
 * first (in Hadoop's package: the stream's class is package-private). HAM's local file system
 * opens with it and stats only when the open fails (io.github.ham.mapreduce.common
 * .HamLocalFileSystem).
 */
public final class HamRawLocalOpen {
  private HamRawLocalOpen() {
  }

  /** As RawLocalFileSystem.open, but for its getFileStatus first. */
  public static FSDataInputStream open(RawLocalFileSystem fs, Path f, int bufferSize)
      throws IOException {
    return new FSDataInputStream(new BufferedFSInputStream(fs.new LocalFSFileInputStream(f),
        bufferSize));
  }
}
