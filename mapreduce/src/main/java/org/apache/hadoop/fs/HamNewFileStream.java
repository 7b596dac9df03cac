package org.apache.hadoop.fs;

import static org.apache.hadoop.fs.statistics.StreamStatisticNames.STREAM_WRITE_BYTES;
import static org.apache.hadoop.fs.statistics.StreamStatisticNames.STREAM_WRITE_EXCEPTIONS;
import static org.apache.hadoop.fs.statistics.impl.IOStatisticsBinding.iostatisticsStore;

import java.io.File;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.EnumSet;
import java.util.Locale;

import io.github.ham.mapreduce.common.fs.PosixModes;

import org.apache.hadoop.fs.impl.StoreImplementationUtils;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.fs.statistics.IOStatistics;
import org.apache.hadoop.fs.statistics.IOStatisticsAggregator;
import org.apache.hadoop.fs.statistics.IOStatisticsContext;
import org.apache.hadoop.fs.statistics.IOStatisticsSource;
import org.apache.hadoop.fs.statistics.impl.IOStatisticsStore;

/**
 * A new file made with its mode in the open that creates it, and the stream that writes it.
 * Hadoop's local file system opens a file, then sets its mode (a chmod; RawLocalFileSystem's
 * LocalFSFileOutputStream), and on a network file system each is a round trip to the server:
 * a new file's create took 5.0-6.0 ms with the chmod on the test cluster's GlusterFS, 3.9-4.8
 * with the mode in the open (bench/results/trials/runner-cuts/netfs-calls), and every map
 * creates its output and its index. Where the open alone gives the mode Hadoop would set
 * (the file is new, and the process's umask leaves that mode whole), this is the create;
 * anything else (a file that exists, an error, a mode the umask would cut) goes Hadoop's way.
 * The stream behaves as Hadoop's: the same statistics, a write's IOException as an FSError,
 * hflush and hsync, the same capabilities (in Hadoop's package: FSError's constructor is
 * package-private). HAM's local file system creates with it (io.github.ham.mapreduce.common
 * .HamLocalFileSystem).
 */
public final class HamNewFileStream extends OutputStream
    implements IOStatisticsSource, StreamCapabilities, Syncable {
  /** The process's umask, from /proc/self/status (Linux 4.7 and later); -1 if unknown. */
  private static final int PROCESS_UMASK = processUmask();

  private final java.nio.file.Path path;
  private FileChannel channel;
  private final IOStatisticsStore ioStatistics = iostatisticsStore()
      .withCounters(STREAM_WRITE_BYTES, STREAM_WRITE_EXCEPTIONS).build();
  private final IOStatisticsAggregator aggregator;

  private HamNewFileStream(java.nio.file.Path path, FileChannel channel,
      IOStatisticsAggregator aggregator) {
    this.path = path;
    this.channel = channel;
    this.aggregator = aggregator;
  }

  /**
   * Creates {@code file} with {@code masked} (the mode Hadoop would set, its umask applied) and
   * returns its stream, or null if it cannot here: the file exists, the open fails (the caller's
   * open then gives the error Hadoop gives), or the mode is not one the open can give exactly.
   *
   * @throws FileNotFoundException if the file's directory is missing (the caller makes it)
   */
  public static OutputStream create(File file, FsPermission masked) throws FileNotFoundException {
    if (!givenByOpen(masked.toShort(), PROCESS_UMASK)) {
      return null;
    }
    // Taken before any I/O, as Hadoop's stream takes it.
    IOStatisticsAggregator aggregator =
        IOStatisticsContext.getCurrentIOStatisticsContext().getAggregator();
    try {
      java.nio.file.Path path = file.toPath();
      return new HamNewFileStream(path, FileChannel.open(path,
          EnumSet.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE),
          PosixFilePermissions.asFileAttribute(PosixModes.of(masked))), aggregator);
    } catch (NoSuchFileException e) {
      throw new FileNotFoundException(file + " (its directory is missing)");
    } catch (IOException | InvalidPathException | UnsupportedOperationException e) {
      return null;
    }
  }

  /**
   * Whether an open that creates a file with {@code mode} leaves it with that mode under
   * {@code umask}: no bits beyond rwx (sticky, setuid: chmod sets them, an open may not), none
   * that the umask takes away. A directory's default ACL would take the umask's place: such a
   * file gets the mode the ACL gives, as every program's new file there does (docs/from-yarn.md).
   */
  public static boolean givenByOpen(int mode, int umask) {
    return umask >= 0 && (mode & ~0777) == 0 && (mode & umask) == 0;
  }

  /** The process's umask as read when this class was set up; -1 if unknown (for tests). */
  public static int umask() {
    return PROCESS_UMASK;
  }

  private static int processUmask() {
    try {
      for (String line : Files.readAllLines(Paths.get("/proc/self/status"))) {
        if (line.startsWith("Umask:")) {
          return Integer.parseInt(line.substring("Umask:".length()).trim(), 8);
        }
      }
    } catch (IOException | RuntimeException e) {
      // unknown: every create sets its mode as Hadoop's does
    }
    return -1;
  }

  @Override
  public void write(byte[] b, int off, int len) throws IOException {
    try {
      ByteBuffer buffer = ByteBuffer.wrap(b, off, len);
      boolean interrupted = false;
      try {
        while (buffer.hasRemaining()) {
          try {
            channel.write(buffer);
          } catch (ClosedByInterruptException e) {
            // (the buffer's position is past what reached the file)
            interrupted |= reopen();
          }
        }
      } finally {
        if (interrupted) {
          Thread.currentThread().interrupt();
        }
      }
      ioStatistics.incrementCounter(STREAM_WRITE_BYTES, len);
    } catch (IOException e) {
      ioStatistics.incrementCounter(STREAM_WRITE_EXCEPTIONS);
      throw new FSError(e);  // as Hadoop's: a local file system's error
    }
  }

  /**
   * Opens the file again at its end after the JDK closed the channel for the thread's interrupt
   * (a FileChannel's calls are interruptible; Hadoop's stream, a FileOutputStream, goes on
   * through an interrupt, and so does this one: the writes of a task that was interrupted, or
   * that keeps its interrupt flag set, succeed as there). Clears the flag for the calls that
   * follow; returns whether it was set, for the caller to set it again when done.
   */
  private boolean reopen() throws IOException {
    boolean interrupted = Thread.interrupted();
    channel = FileChannel.open(path, StandardOpenOption.WRITE);
    channel.position(channel.size());  // this stream alone writes the file it made
    return interrupted;
  }

  @Override
  public void write(int b) throws IOException {
    write(new byte[] {(byte) b}, 0, 1);
  }

  @Override
  public void close() throws IOException {
    try {
      channel.close();
    } finally {
      aggregator.aggregate(ioStatistics);
    }
  }

  @Override
  public void hflush() throws IOException {
    flush();
  }

  @Override
  public void hsync() throws IOException {
    flush();
    boolean interrupted = false;
    try {
      while (true) {
        try {
          channel.force(true);  // fsync, as FileDescriptor.sync in Hadoop's
          return;
        } catch (ClosedByInterruptException e) {
          interrupted |= reopen();  // an fsync of the file, through any of its descriptors
        }
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  @Override
  public boolean hasCapability(String capability) {
    switch (capability.toLowerCase(Locale.ENGLISH)) {
      case StreamCapabilities.IOSTATISTICS:
      case StreamCapabilities.IOSTATISTICS_CONTEXT:
        return true;
      default:
        return StoreImplementationUtils.isProbeForSyncable(capability);
    }
  }

  @Override
  public IOStatistics getIOStatistics() {
    return ioStatistics;
  }
}
