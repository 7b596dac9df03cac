package io.github.ham.mapreduce.lustre;

import java.io.File;
import java.io.IOException;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.StandardOpenOption;

import org.apache.hadoop.util.CleanerUtil;

/**
 * Large reads of one file through memory mappings of {@link #WINDOW} bytes, one at a time. A
 * read(2) from Java lands in a native buffer that the JVM then copies into the array (two
 * copies of every byte, and a malloc per call); a read from a mapping is one copy, from the
 * page cache into the array, as dd's read(2) makes, but the bytes arrive by page faults.
 * Used only with ham.lustre.read.mmap: cold parallel reads on the development machine were
 * faster mapped one day (0.99-1.07 of dd against read(2)'s 0.92-0.96) and slower the next
 * (0.85 against 0.98, bench/results/rawio-reads.md).
 * <p>A window is unmapped as soon as the reader leaves it (Hadoop's CleanerUtil), not left to
 * the garbage collector. Touching a mapped page past a file's end raises SIGBUS, which the
 * JVM turns into an InternalError thrown later, anywhere in the thread; so every copy first
 * checks that the file still holds the bytes (one fstat, next to a copy of 256 KiB or more)
 * and a file that shrank fails the read with an IOException, as a read(2) would. (A file cut
 * between that check and the copy still fails its task, with the InternalError.)
 */
final class MappedReads implements LargeReads {
  static final long WINDOW = 64L << 20;

  private final File file;
  private final long windowSize;
  private FileChannel channel;
  private MappedByteBuffer window;
  private long windowStart;

  MappedReads(File file) {
    this(file, WINDOW);
  }

  MappedReads(File file, long windowSize) {
    this.file = file;
    this.windowSize = windowSize;
  }

  /**
   * Copies up to {@code len} bytes at {@code pos} into {@code b}; returns how many, or -1 when
   * {@code pos} is at or past the file's end as it is now (the caller's read(2) then answers,
   * with EOF semantics of its own).
   */
  @Override
  public int read(long pos, byte[] b, int off, int len) throws IOException {
    if (window == null || pos < windowStart || pos >= windowStart + window.capacity()) {
      if (!map(pos)) {
        return -1;
      }
    }
    int at = (int) (pos - windowStart);
    int n = Math.min(len, window.capacity() - at);
    long size = channel.size();
    if (size < pos + n) {
      unmap();
      throw new IOException(file + " shrank to " + size + " bytes while it was read (at " + pos
          + "): a file being read must not be truncated or rewritten");
    }
    window.get(at, b, off, n);
    return n;
  }

  private boolean map(long pos) throws IOException {
    unmap();
    if (channel == null) {
      channel = FileChannel.open(file.toPath(), StandardOpenOption.READ);
    }
    long size = channel.size();
    if (pos >= size) {
      return false;
    }
    windowStart = pos - pos % windowSize;
    window = channel.map(FileChannel.MapMode.READ_ONLY, windowStart,
        Math.min(windowSize, size - windowStart));
    return true;
  }

  private void unmap() throws IOException {
    if (window != null && CleanerUtil.UNMAP_SUPPORTED) {
      CleanerUtil.getCleaner().freeBuffer(window);
    }
    window = null;
  }

  @Override
  public void close() throws IOException {
    try {
      unmap();
    } finally {
      if (channel != null) {
        channel.close();
      }
    }
  }
}
