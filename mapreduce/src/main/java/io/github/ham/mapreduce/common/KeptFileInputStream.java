package io.github.ham.mapreduce.common;

import java.io.EOFException;
import java.io.File;
import java.io.IOException;
import java.nio.ByteBuffer;

import io.github.ham.mapreduce.common.fs.KeptFiles;

import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSInputStream;
import org.apache.hadoop.fs.FileSystem;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A read of a kept file ({@link KeptFiles}) through positioned reads of its channel, counted in
 * the file system's statistics as Hadoop's local input stream counts what it reads. If a read
 * fails, the file is dropped from the kept ones and this stream goes on from a new open of it
 * at the same position (a client may end its open files when its server restarts).
 */
final class KeptFileInputStream extends FSInputStream {
  private static final Logger LOG = LoggerFactory.getLogger(KeptFileInputStream.class);

  /** Opens the file as any other (the fallback after a failed read). */
  interface Opener {
    FSDataInputStream open() throws IOException;
  }

  private final File file;
  private final KeptFiles.Kept kept;
  private final FileSystem.Statistics statistics;
  private final Opener opener;
  private FSDataInputStream reopened;
  private long position;
  private boolean closed;

  KeptFileInputStream(File file, KeptFiles.Kept kept, FileSystem.Statistics statistics,
      Opener opener) {
    this.file = file;
    this.kept = kept;
    this.statistics = statistics;
    this.opener = opener;
  }

  @Override
  public void seek(long pos) throws IOException {
    if (pos < 0) {
      throw new EOFException("Cannot seek to a negative offset");  // as Hadoop's
    }
    position = pos;
  }

  @Override
  public long getPos() {
    return position;
  }

  @Override
  public boolean seekToNewSource(long targetPos) {
    return false;
  }

  @Override
  public int read() throws IOException {
    byte[] one = new byte[1];
    return read(one, 0, 1) == 1 ? one[0] & 0xff : -1;
  }

  @Override
  public int read(byte[] b, int off, int len) throws IOException {
    if (closed) {
      throw new IOException("Stream is closed!");
    }
    if (len == 0) {
      return 0;
    }
    if (reopened == null) {
      try {
        int n = kept.channel().read(ByteBuffer.wrap(b, off, len), position);
        if (n > 0) {
          position += n;
          if (statistics != null) {
            statistics.incrementBytesRead(n);
          }
        }
        return n;
      } catch (IOException e) {
        // (an interrupt of the reading thread closes the channel too: ClosedByInterrupt)
        LOG.debug("{}: reading its kept channel failed ({}); opening it again", file,
            e.toString());
        KeptFiles.drop(file, kept);
        try {
          reopened = opener.open();
        } catch (IOException again) {
          again.addSuppressed(e);
          throw again;
        }
      }
    }
    // Hadoop's own stream from here, which counts what it reads itself.
    reopened.seek(position);
    int n = reopened.read(b, off, len);
    if (n > 0) {
      position += n;
    }
    return n;
  }

  @Override
  public int available() throws IOException {
    long left = kept.attributes().size() - position;
    return left <= 0 ? 0 : (int) Math.min(Integer.MAX_VALUE, left);
  }

  @Override
  public void close() throws IOException {
    closed = true;
    if (reopened != null) {
      reopened.close();
    }
  }
}
