package io.github.ham.mapreduce.lustre;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

import org.apache.hadoop.fs.StreamCapabilities;
import org.apache.hadoop.fs.Syncable;
import org.apache.hadoop.fs.impl.StoreImplementationUtils;

/**
 * The file end of a lustre:// output stream: a file's first {@code after} bytes go through the
 * page cache as any write does, the rest with direct I/O (O_DIRECT), in aligned blocks from a
 * buffer of our own. A buffered write copies every byte twice in a JVM (into a native buffer,
 * then into the page cache) and leaves the kernel to write the pages back, copying and
 * throttling on 2-core machines as on a Lustre client's; a direct write copies once (into our
 * aligned buffer) and the device or the network takes it from there. Measured here with 3
 * parallel writers of 2 GB (bench/results/rawio.md): dd with O_DIRECT 2.0-2.3 GB/s against
 * 0.7 buffered. Small files (most job files: map outputs, logs, small part files) never reach
 * {@code after} and stay buffered, where a synchronous direct write per block would cost them.
 * <p>Positions and lengths of direct writes must be multiples of the file system's block
 * size: the last block is padded with zeros and the file cut back to its length
 * (ftruncate) at every flush and at close. A file system that refuses O_DIRECT (tmpfs) gets
 * buffered writes, with one INFO line per JVM.
 */
final class DirectWrites extends OutputStream implements Syncable, StreamCapabilities {
  private static final DirectIo DIRECT =
      new DirectIo(DirectWrites.class, "Direct I/O not used for {}, written through the page cache: {}");

  private final OutputStream file;
  private final Path path;
  private final long after;
  private final int bufferSize;
  private long pos;
  private boolean refused;
  private FileChannel direct;
  private ByteBuffer buffer;
  private ByteBuffer allocated;
  private int align;
  /** The file offset of the buffer's first byte (a multiple of align). */
  private long bufferAt;
  private boolean flushed = true;

  /**
   * @param file the stream RawLocalFileSystem opened (it created the file with its mode); it
   *     writes the bytes before the switch to direct I/O
   * @param after bytes of the file written buffered before the switch (negative: never)
   */
  DirectWrites(OutputStream file, Path path, long after, int bufferSize) {
    this.file = file;
    this.path = path;
    this.after = after;
    this.bufferSize = bufferSize;
    this.refused = after < 0;
  }

  @Override
  public void write(int b) throws IOException {
    write(new byte[] {(byte) b}, 0, 1);
  }

  @Override
  public void write(byte[] b, int off, int len) throws IOException {
    while (len > 0) {
      if (direct == null) {
        if (refused || pos + len <= after) {
          file.write(b, off, len);
          pos += len;
          return;
        }
        if (align == 0 && !chooseAlignment()) {
          continue;
        }
        // Up to the next block boundary through the page cache, then direct from there.
        int head = (int) Math.min(len, (align - pos % align) % align);
        if (head > 0) {
          file.write(b, off, head);
          pos += head;
          off += head;
          len -= head;
          continue;
        }
        if (!openDirect()) {
          continue;
        }
      }
      int n = Math.min(len, buffer.remaining());
      buffer.put(b, off, n);
      pos += n;
      off += n;
      len -= n;
      flushed = false;
      if (!buffer.hasRemaining()) {
        drain(false);
      }
    }
  }

  private boolean chooseAlignment() {
    align = DIRECT.alignment(path, bufferSize);
    refused = align == 0;
    return !refused;
  }

  private boolean openDirect() throws IOException {
    file.flush();
    direct = DIRECT.open(path, StandardOpenOption.WRITE);
    if (direct == null) {
      refused = true;
      return false;
    }
    allocated = ByteBuffer.allocateDirect(bufferSize + align);
    buffer = allocated.alignedSlice(align);
    buffer.limit(bufferSize);
    bufferAt = pos;
    return true;
  }

  /**
   * Writes the buffer's whole blocks and keeps the rest at its start; with {@code all}, also
   * the rest, padded to a block, and cuts the file back to the bytes written.
   */
  private void drain(boolean all) throws IOException {
    int n = buffer.position();
    int whole = n - n % align;
    if (whole > 0) {
      writeAt(buffer.duplicate().position(0).limit(whole), bufferAt);
      bufferAt += whole;
      ByteBuffer rest = buffer.duplicate().position(whole).limit(n);
      buffer.clear().limit(bufferSize);
      buffer.put(rest);
    }
    int rest = buffer.position();
    if (all && rest > 0) {
      ByteBuffer block = buffer.duplicate().position(rest).limit(align);
      while (block.hasRemaining()) {
        block.put((byte) 0);
      }
      writeAt(block.position(0), bufferAt);
      direct.truncate(pos);
    }
  }

  private void writeAt(ByteBuffer b, long at) throws IOException {
    while (b.hasRemaining()) {
      at += direct.write(b, at);
    }
  }

  /** Whether the file's writes go direct now. */
  boolean isDirect() {
    return direct != null;
  }

  @Override
  public void flush() throws IOException {
    if (direct == null) {
      file.flush();
    } else if (!flushed) {
      drain(true);  // visible to readers, and the file's length right
      flushed = true;
    }
  }

  @Override
  public void hflush() throws IOException {
    flush();
  }

  @Override
  public void hsync() throws IOException {
    flush();
    if (direct != null) {
      direct.force(true);  // the device's cache, and the file's size
    }
    if (file instanceof Syncable s) {
      s.hsync();  // the bytes written before the switch
    }
  }

  @Override
  public boolean hasCapability(String capability) {
    return StoreImplementationUtils.hasCapability(file, capability);
  }

  @Override
  public void close() throws IOException {
    try (OutputStream f = file) {
      if (direct != null) {
        try (FileChannel d = direct) {
          flush();
        } finally {
          direct = null;
          DirectIo.free(allocated);
        }
      }
    }
  }
}
