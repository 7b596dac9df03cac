package io.github.ham.mapreduce.lustre;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicBoolean;

import com.sun.nio.file.ExtendedOpenOption;

import org.apache.hadoop.util.CleanerUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What {@link DirectReads} and {@link DirectWrites} share: O_DIRECT's unit (the file system's
 * block size, 4 KiB at least, which must divide the stream's buffer), buffers of our own aligned
 * to it, and one INFO line per JVM and direction when a file system refuses direct I/O (tmpfs),
 * saying why: the stream then goes through the page cache.
 */
final class DirectIo {
  private final Logger log;
  private final String refusal;
  private final AtomicBoolean logged = new AtomicBoolean();

  /** @param refusal the INFO line's pattern, with {} for the path and {} for the reason */
  DirectIo(Class<?> owner, String refusal) {
    this.log = LoggerFactory.getLogger(owner);
    this.refusal = refusal;
  }

  /**
   * The alignment of direct I/O on {@code path} with a buffer of {@code bufferSize} bytes, or 0
   * (refused, said once) when the block size is unknown or does not divide the buffer.
   */
  int alignment(Path path, int bufferSize) {
    int align;
    try {
      align = (int) Math.max(4096, Files.getFileStore(path).getBlockSize());
    } catch (IOException | UnsupportedOperationException e) {
      refuse(path, e.toString());
      return 0;
    }
    if (bufferSize % align != 0) {
      refuse(path, "block size " + align + " does not divide the buffer size " + bufferSize);
      return 0;
    }
    return align;
  }

  /** {@code path} opened with O_DIRECT for {@code mode}, or null (refused, said once). */
  FileChannel open(Path path, OpenOption mode) {
    try {
      return FileChannel.open(path, mode, ExtendedOpenOption.DIRECT);
    } catch (IOException | UnsupportedOperationException e) {
      refuse(path, e.toString());
      return null;
    }
  }

  /** Says (once per JVM) why direct I/O is not used for {@code path}; false, for callers. */
  boolean refuse(Path path, String why) {
    if (logged.compareAndSet(false, true)) {
      log.info(refusal, path, why);
    }
    return false;
  }

  /** Frees an allocated buffer now (a stripe off-heap is not left to the GC). */
  static void free(ByteBuffer allocated) throws IOException {
    if (allocated != null && CleanerUtil.UNMAP_SUPPORTED) {
      CleanerUtil.getCleaner().freeBuffer(allocated);
    }
  }
}
