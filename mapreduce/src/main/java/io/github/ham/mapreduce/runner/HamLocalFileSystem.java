package io.github.ham.mapreduce.runner;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.attribute.PosixFilePermission;
import java.util.EnumSet;
import java.util.Set;

import io.github.ham.mapreduce.common.HamConfig;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.CreateFlag;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.LocalFileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RawLocalFileSystem;
import org.apache.hadoop.fs.permission.FsAction;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.io.nativeio.NativeIO;
import org.apache.hadoop.util.Progressable;

/**
 * The local file system of tasks in a runner JVM (fs.file.impl, unless the job sets its own):
 * Hadoop's, except that permissions are set with java.nio. Without libhadoop (HAM does not
 * ship it), RawLocalFileSystem sets the permission of every file it creates by starting a
 * {@code chmod} process: two per map task (spill and index) and more per output file, ~20 ms
 * of a short task on a loaded node. Permissions java.nio cannot express (the sticky bit) still
 * go through Hadoop's own path.
 * <p>Its output streams buffer at least {@link HamConfig#TASK_IO_BUFFER_SIZE} (1 MiB): Hadoop
 * asks for io.file.buffer.size (4 KB), so a map's spills and file.out (on the shared file
 * system) went out in 4 KB writes. Reads keep the size asked for: the framework's reads
 * (the shuffle's segments, merges) are already large and go past the buffer, and a larger
 * read buffer would read past the end of a small segment. .crc side files keep theirs.
 */
public class HamLocalFileSystem extends LocalFileSystem {
  public HamLocalFileSystem() {
    super(new JavaPermissionsRawLocalFileSystem());
  }

  /** RawLocalFileSystem with an in-process chmod and large write buffers. */
  static final class JavaPermissionsRawLocalFileSystem extends RawLocalFileSystem {
    private int writeBuffer = HamConfig.DEFAULT_TASK_IO_BUFFER_SIZE;

    @Override
    public void initialize(URI uri, Configuration conf) throws IOException {
      super.initialize(uri, conf);
      writeBuffer = conf.getInt(HamConfig.TASK_IO_BUFFER_SIZE,
          HamConfig.DEFAULT_TASK_IO_BUFFER_SIZE);
    }

    private int buffer(Path f, int asked) {
      return f.getName().endsWith(".crc") ? asked : Math.max(asked, writeBuffer);
    }

    @Override
    public FSDataOutputStream create(Path f, boolean overwrite, int size, short replication,
        long blockSize, Progressable progress) throws IOException {
      return super.create(f, overwrite, buffer(f, size), replication, blockSize, progress);
    }

    @Override
    public FSDataOutputStream create(Path f, FsPermission permission, boolean overwrite,
        int size, short replication, long blockSize, Progressable progress) throws IOException {
      return super.create(f, permission, overwrite, buffer(f, size), replication, blockSize,
          progress);
    }

    @Override
    public FSDataOutputStream createNonRecursive(Path f, FsPermission permission,
        EnumSet<CreateFlag> flags, int size, short replication, long blockSize,
        Progressable progress) throws IOException {
      return super.createNonRecursive(f, permission, flags, buffer(f, size), replication,
          blockSize, progress);
    }

    @Override
    public FSDataOutputStream createNonRecursive(Path f, FsPermission permission,
        boolean overwrite, int size, short replication, long blockSize, Progressable progress)
        throws IOException {
      return super.createNonRecursive(f, permission, overwrite, buffer(f, size), replication,
          blockSize, progress);
    }

    @Override
    public void setPermission(Path p, FsPermission permission) throws IOException {
      if (NativeIO.isAvailable() || permission.getStickyBit()) {
        super.setPermission(p, permission);
        return;
      }
      Files.setPosixFilePermissions(pathToFile(p).toPath(), posix(permission));
    }
  }

  static Set<PosixFilePermission> posix(FsPermission permission) {
    Set<PosixFilePermission> out = EnumSet.noneOf(PosixFilePermission.class);
    add(out, permission.getUserAction(), PosixFilePermission.OWNER_READ,
        PosixFilePermission.OWNER_WRITE, PosixFilePermission.OWNER_EXECUTE);
    add(out, permission.getGroupAction(), PosixFilePermission.GROUP_READ,
        PosixFilePermission.GROUP_WRITE, PosixFilePermission.GROUP_EXECUTE);
    add(out, permission.getOtherAction(), PosixFilePermission.OTHERS_READ,
        PosixFilePermission.OTHERS_WRITE, PosixFilePermission.OTHERS_EXECUTE);
    return out;
  }

  private static void add(Set<PosixFilePermission> out, FsAction action,
      PosixFilePermission read, PosixFilePermission write, PosixFilePermission execute) {
    if (action.implies(FsAction.READ)) {
      out.add(read);
    }
    if (action.implies(FsAction.WRITE)) {
      out.add(write);
    }
    if (action.implies(FsAction.EXECUTE)) {
      out.add(execute);
    }
  }
}
