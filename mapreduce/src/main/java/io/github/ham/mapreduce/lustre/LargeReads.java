package io.github.ham.mapreduce.lustre;

import java.io.Closeable;
import java.io.IOException;

/**
 * Another way for a lustre:// stream to serve a large read than read(2) into the caller's
 * array: {@link MappedReads} or {@link DirectReads}, one per stream, chosen by the file system.
 */
interface LargeReads extends Closeable {
  /**
   * Copies up to {@code len} bytes of the file at {@code pos} into {@code b}; returns how many,
   * or -1 to leave this read to read(2) (at or past the file's end, or not this way's to serve).
   */
  int read(long pos, byte[] b, int off, int len) throws IOException;
}
