package io.github.ham.mapreduce.lustre;

import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;

import org.apache.hadoop.fs.BufferedFSInputStream;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSInputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.statistics.BufferedIOStatisticsOutputStream;

/**
 * The buffering of lustre:// streams. A stream gathers small reads and writes (records) in a
 * buffer of {@link io.github.ham.mapreduce.common.HamConfig#LUSTRE_RECORD_BUFFER_SIZE} (64 KiB:
 * system calls 16 times the size of io.file.buffer.size's default 4 KB), small enough to stay in
 * the CPU's caches while a record reader or writer works in it (4 MiB buffers made terasort's reduces slower than
 * file://'s 4 KB ones). Larger requests (a line reader's 64 KB, TestDFSIO's 1 MB, a copy's) go
 * straight to the file without passing through the buffer: on a machine whose disk or network
 * is as fast as its memory, a second copy of every byte costs as much as the I/O. Java's own
 * BufferedInput/OutputStream go straight only for requests at least as large as the whole
 * buffer; from {@link #DIRECT} on, ours do so whatever the buffer holds. A large
 * read is trimmed to end on a page boundary (a short read, which InputStream allows; callers
 * loop), so that every system call starts and ends on a page: TestDFSIO's and many readers'
 * 1,000,000-byte requests otherwise straddle pages, and cold parallel reads of unaligned
 * requests ran ~25% slower here (for dd with bs=1000000 against bs=1M as much as for Java).
 * <p>The streams underneath are Hadoop's RawLocalFileSystem streams (statistics, sync,
 * positioned and vectored reads as for file://).
 */
final class LargeIo {
  /** Requests from this size on skip the buffer: a system call costs less than the copy. */
  static final int DIRECT = 256 << 10;
  static final long PAGE = 4096;

  private LargeIo() {
  }

  /**
   * Wraps an unbuffered RawLocalFileSystem stream (opened with buffer size 1) in ours; with
   * {@code large}, large reads go that way first ({@link MappedReads}, {@link DirectReads}),
   * counted in {@code stats} as the stream's own reads are.
   */
  static FSDataInputStream input(FSDataInputStream raw, int bufferSize, LargeReads large,
      FileSystem.Statistics stats) throws IOException {
    return new FSDataInputStream(new Input(new Unbuffered(raw), bufferSize, large, stats));
  }

  static OutputStream output(OutputStream file, int bufferSize) {
    return new Output(file, bufferSize);
  }

  /** A large read buffer that large reads go around. */
  static final class Input extends BufferedFSInputStream {
    private final LargeReads large;
    private final FileSystem.Statistics stats;

    Input(FSInputStream in, int size, LargeReads large, FileSystem.Statistics stats) {
      super(in, size);
      this.large = large;
      this.stats = stats;
    }

    @Override
    public synchronized int read(byte[] b, int off, int len) throws IOException {
      if (len >= DIRECT && pos >= count && markpos < 0) {
        FSInputStream file = (FSInputStream) in;
        long at = file.getPos();
        if (large != null) {
          int n = large.read(at, b, off, len);
          if (n > 0) {
            file.seek(at + n);  // the stream's position follows, for getPos and small reads
            if (stats != null) {
              stats.incrementBytesRead(n);  // as RawLocalFileSystem's stream counts its reads
            }
            return n;
          }
        }
        int aligned = (int) (((at + len) & -PAGE) - at);
        return in.read(b, off, aligned >= DIRECT ? aligned : len);
      }
      return super.read(b, off, len);
    }

    @Override
    public void close() throws IOException {
      try {
        super.close();
      } finally {
        if (large != null) {
          large.close();
        }
      }
    }
  }

  /** A large write buffer that large writes go around. */
  static final class Output extends BufferedIOStatisticsOutputStream {
    Output(OutputStream out, int size) {
      super(out, size, true);
    }

    @Override
    public synchronized void write(byte[] b, int off, int len) throws IOException {
      if (len >= DIRECT) {
        if (count > 0) {
          out.write(buf, 0, count);
          count = 0;
        }
        out.write(b, off, len);
        return;
      }
      super.write(b, off, len);
    }
  }

  /**
   * RawLocalFileSystem's input stream as an FSInputStream (its class is package-private, so it
   * is reached through the FSDataInputStream it comes in, whose own buffer of 1 byte every read
   * goes around).
   */
  static final class Unbuffered extends FSInputStream {
    private final FSDataInputStream in;

    Unbuffered(FSDataInputStream in) {
      this.in = in;
    }

    @Override
    public int read() throws IOException {
      byte[] one = new byte[1];
      int n = in.read(one, 0, 1);
      return n <= 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      return in.read(b, off, len);
    }

    @Override
    public int read(long position, byte[] b, int off, int len) throws IOException {
      return in.read(position, b, off, len);
    }

    @Override
    public void seek(long pos) throws IOException {
      if (pos < 0) {
        throw new EOFException("Cannot seek to a negative offset");
      }
      in.seek(pos);
    }

    @Override
    public long getPos() throws IOException {
      return in.getPos();
    }

    @Override
    public boolean seekToNewSource(long targetPos) {
      return false;
    }

    @Override
    public int available() throws IOException {
      return in.available();
    }

    @Override
    public long skip(long n) throws IOException {
      return in.skip(n);
    }

    @Override
    public void close() throws IOException {
      in.close();
    }
  }
}
