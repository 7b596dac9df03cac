package io.github.ham.mapreduce.lustre;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Large reads of a file past its first {@code after} bytes with direct I/O (O_DIRECT): the
 * device or the network fills an aligned buffer of our own, a block of the stream's buffer
 * size (a stripe) at a time, and each read copies from it into the caller's array. A read(2)
 * from Java copies every byte twice (from the page cache into a native buffer, then into the
 * array) and fills the page cache with pages a streaming reader never reads again; here each
 * byte is copied once, as dd's read(2) copies it, and the page cache is left alone. Measured
 * here with 3 parallel cold readers of 2 GB: dd with O_DIRECT and 4 MiB blocks 1.33-1.48 GB/s
 * against 0.78-0.85 buffered (bench/results/rawio-reads-direct.md), and TestDFSIO through
 * lustre:// 2.06x dd's buffered reads (bench/results/dfsio-direct-reads/README.md). The first
 * {@code after} bytes (small files, headers, a SequenceFile's sync) and small reads stay with
 * read(2), through the page cache, where a synchronous direct read per block would cost them.
 * <p>The kernel keeps direct reads coherent with the page cache (dirty pages of the range are
 * written back first); the block in our buffer may be up to one buffer older than the file,
 * as a buffered stream's buffer is. A file system that refuses O_DIRECT (tmpfs) gets read(2),
 * with one INFO line per JVM.
 */
final class DirectReads implements LargeReads {
  private static final DirectIo DIRECT =
      new DirectIo(DirectReads.class, "Direct I/O not used to read {}, read through the page cache: {}");

  private final Path path;
  private final long after;
  private final int bufferSize;
  private boolean refused;
  private FileChannel channel;
  private ByteBuffer allocated;
  private ByteBuffer block;
  private int align;
  /** The file offset of the block's first byte (a multiple of align); its bytes: limit. */
  private long blockAt = -1;

  /**
   * @param after bytes at the start of the file left to read(2) (negative: all of them)
   * @param bufferSize bytes read at a time (the stream's buffer, a stripe)
   */
  DirectReads(Path path, long after, int bufferSize) {
    this.path = path;
    this.after = after;
    this.bufferSize = bufferSize;
    this.refused = after < 0;
  }

  @Override
  public int read(long pos, byte[] b, int off, int len) throws IOException {
    if (refused || pos < after) {
      return -1;
    }
    if (blockAt < 0 || pos < blockAt || pos >= blockAt + block.limit()) {
      if (channel == null && !open()) {
        return -1;
      }
      if (!fill(pos - pos % align)) {
        return -1;
      }
      if (pos >= blockAt + block.limit()) {
        return -1;  // at or past the end: read(2) says so
      }
    }
    int at = (int) (pos - blockAt);
    int n = Math.min(len, block.limit() - at);
    block.get(at, b, off, n);
    return n;
  }

  private boolean open() {
    align = DIRECT.alignment(path, bufferSize);
    channel = align == 0 ? null : DIRECT.open(path, StandardOpenOption.READ);
    if (channel == null) {
      refused = true;
      return false;
    }
    allocated = ByteBuffer.allocateDirect(bufferSize + align);
    block = allocated.alignedSlice(align);
    return true;
  }

  /** Reads the block at {@code at} (aligned): as many bytes as the file has, up to a buffer. */
  private boolean fill(long at) throws IOException {
    block.clear().limit(bufferSize);
    blockAt = -1;
    try {
      while (block.hasRemaining()) {
        // Whole blocks only: after a short read (the file's end) the next would be unaligned.
        if (block.position() % align != 0 || channel.read(block, at + block.position()) <= 0) {
          break;
        }
      }
    } catch (IOException e) {
      // EINVAL from a file system that takes O_DIRECT at open but not these reads.
      if (block.position() == 0 && "Invalid argument".equals(e.getMessage())) {
        return refuse(e.toString());
      }
      throw e;
    }
    block.flip();
    blockAt = at;
    return true;
  }

  private boolean refuse(String why) {
    refused = true;
    return DIRECT.refuse(path, why);
  }

  /** Whether this stream's large reads have gone direct. */
  boolean isDirect() {
    return blockAt >= 0;
  }

  @Override
  public void close() throws IOException {
    try {
      if (channel != null) {
        channel.close();
      }
    } finally {
      DirectIo.free(allocated);
      allocated = null;
      block = null;
      blockAt = -1;
    }
  }
}
