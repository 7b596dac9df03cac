package io.github.ham.mapreduce.common;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.attribute.PosixFilePermission;

import io.github.ham.mapreduce.common.fs.PosixModes;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.CommonConfigurationKeysPublic;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.LocalFileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RawLocalFileSystem;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.io.nativeio.NativeIO;
import org.apache.hadoop.util.Progressable;

/**
 * HAM's file:// (fs.file.impl in the core-site.xml ham renders, and a runner's tasks' when
 * their job sets none): Hadoop's local file system, except that permissions are set with
 * java.nio. Without libhadoop (HAM does not ship it), RawLocalFileSystem sets the permission of
 * every file it creates by starting a {@code chmod} process: two per map task (spill and
 * index) and more per output file, ~20 ms of a short task on a loaded node; 42 per 60-map job
 * in the client and driver (staging, each file and its .crc; history; aggregated logs), on the
 * way to the job's submission and its end. Permissions java.nio cannot express (the sticky
 * bit) still go through Hadoop's own path.
 * <p>Buffers: writes buffer at least io.file.buffer.size (HAM renders 128 KB): MapTask writes
 * file.out with a buffer of 4096 it hard-codes, so a map's output went to the shared file
 * system in 4 KB system calls (.crc side files keep the size asked). Reads of a map's
 * file.out buffer at most 4 KB: a reducer reads its segment in one request as large as the
 * segment, which goes past the buffer, and then the segment's 4-byte checksum, which would
 * otherwise fill a whole 128 KB buffer from the next reducers' data. Other reads (spills being
 * merged, record readers) buffer what they ask for.
 */
public class HamLocalFileSystem extends LocalFileSystem {
  /**
   * The name of a map attempt's output file, read a segment at a time by every reducer
   * (runner.SharedMapOutputFile, MapOutputCheck).
   */
  public static final String MAP_OUTPUT = "file.out";

  public HamLocalFileSystem() {
    super(new JavaPermissionsRawLocalFileSystem());
  }

  /** RawLocalFileSystem with an in-process chmod and the buffers above. */
  static final class JavaPermissionsRawLocalFileSystem extends RawLocalFileSystem {
    static final int SEGMENT_READ_BUFFER = 4096;
    private int writeBuffer = CommonConfigurationKeysPublic.IO_FILE_BUFFER_SIZE_DEFAULT;

    @Override
    public void initialize(URI uri, Configuration conf) throws IOException {
      super.initialize(uri, conf);
      writeBuffer = conf.getInt(CommonConfigurationKeysPublic.IO_FILE_BUFFER_SIZE_KEY,
          CommonConfigurationKeysPublic.IO_FILE_BUFFER_SIZE_DEFAULT);
    }

    private int writeBuffer(Path f, int asked) {
      return f.getName().endsWith(".crc") ? asked : Math.max(asked, writeBuffer);
    }

    @Override
    public FSDataInputStream open(Path f, int size) throws IOException {
      return super.open(f, MAP_OUTPUT.equals(f.getName())
          ? Math.min(size, SEGMENT_READ_BUFFER) : size);
    }

    @Override
    public FSDataOutputStream create(Path f, boolean overwrite, int size, short replication,
        long blockSize, Progressable progress) throws IOException {
      return super.create(f, overwrite, writeBuffer(f, size), replication, blockSize, progress);
    }

    @Override
    public FSDataOutputStream create(Path f, FsPermission permission, boolean overwrite,
        int size, short replication, long blockSize, Progressable progress) throws IOException {
      return super.create(f, permission, overwrite, writeBuffer(f, size), replication,
          blockSize, progress);
    }

    @Override
    public void setPermission(Path p, FsPermission permission) throws IOException {
      if (NativeIO.isAvailable() || permission.getStickyBit()) {
        super.setPermission(p, permission);
        return;
      }
      Files.setPosixFilePermissions(pathToFile(p).toPath(), PosixModes.of(permission));
    }
  }
}
