package io.github.ham.mapreduce.common;

import java.io.File;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URI;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.LinkOption;
import java.nio.file.attribute.BasicFileAttributes;

import io.github.ham.mapreduce.common.fs.FastPaths;
import io.github.ham.mapreduce.common.fs.KeptFiles;
import io.github.ham.mapreduce.common.fs.LocalStatus;
import io.github.ham.mapreduce.common.fs.PosixModes;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.BufferedFSInputStream;
import org.apache.hadoop.fs.ChecksumFileSystem;
import org.apache.hadoop.fs.CommonConfigurationKeysPublic;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.HamNewFileStream;
import org.apache.hadoop.fs.HamRawLocalOpen;
import org.apache.hadoop.fs.LocalFileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RawLocalFileSystem;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.fs.statistics.BufferedIOStatisticsOutputStream;
import org.apache.hadoop.io.nativeio.NativeIO;
import org.apache.hadoop.util.Progressable;
import org.apache.hadoop.util.Shell;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
 * otherwise fill a whole 128 KB buffer from the next reducers' data. Its index is read and
 * written through 4 KB, not a zeroed 128 KB each time. Other reads (spills being merged, record
 * readers) buffer what they ask for.
 * <p>Metadata: one stat per file status ({@link LocalStatus}), where Hadoop's without
 * libhadoop asks the kernel five times, and one to find that a directory exists (mkdirs),
 * where Hadoop's asks seven times. A create that may overwrite asks neither whether the file
 * exists nor mkdirs when its directory exists, and a new file gets its mode in its open where
 * that gives Hadoop's mode; an open stats only when it fails.
 */
public class HamLocalFileSystem extends LocalFileSystem {
  /**
   * The name of a map attempt's output file, read a segment at a time by every reducer
   * (runner.SharedMapOutputFile, MapOutputCheck).
   */
  public static final String MAP_OUTPUT = "file.out";
  /** The index of {@link #MAP_OUTPUT}: each reduce's segment in it. */
  public static final String MAP_OUTPUT_INDEX = "file.out.index";

  public HamLocalFileSystem() {
    super(new JavaPermissionsRawLocalFileSystem());
  }

  /** RawLocalFileSystem with an in-process chmod and the buffers above. */
  static final class JavaPermissionsRawLocalFileSystem extends RawLocalFileSystem {
    static final int SEGMENT_READ_BUFFER = 4096;
    /**
     * The buffer of a map output's index (24 bytes a reduce), read whole by each reduce and
     * written once: Hadoop's default, not io.file.buffer.size's 128 KB, which the JVM zeroed for
     * each (0.05 ms of a runner's CPU a map with 3 reduces; bench/results/trials/runner-cuts/
     * index-buffers). A larger index goes past it, in one read or write.
     */
    static final int INDEX_BUFFER = 4096;
    /** How long a directory another node made may take to show here (a stale name cache). */
    static final long STALE_NAME_WAIT_MS = 5_000;
    private static final Logger LOG = LoggerFactory.getLogger(HamLocalFileSystem.class);
    /** Whether the JDK reads a file's mode, owner and group in one call ("unix" view). */
    static final boolean UNIX_VIEW =
        FileSystems.getDefault().supportedFileAttributeViews().contains("unix");
    private int writeBuffer = CommonConfigurationKeysPublic.IO_FILE_BUFFER_SIZE_DEFAULT;
    private long blockSize;
    /** Calls of {@link #getFileStatus}, {@link #exists} and mkdirs on this instance, each a
     * stat or more (for tests; not exact across threads). */
    int lookups;
    /** Creates that took Hadoop's open and chmod (for tests, as lookups). */
    int modesSet;

    @Override
    public void initialize(URI uri, Configuration conf) throws IOException {
      super.initialize(uri, conf);
      writeBuffer = conf.getInt(CommonConfigurationKeysPublic.IO_FILE_BUFFER_SIZE_KEY,
          CommonConfigurationKeysPublic.IO_FILE_BUFFER_SIZE_DEFAULT);
      blockSize = getDefaultBlockSize(new Path(uri));  // as RawLocalFileSystem's
    }

    /**
     * A file's status from one stat. Without libhadoop, Hadoop's (its
     * DeprecatedRawLocalFileStatus) stats the file five times: exists, length, isDirectory,
     * lastModified, access time. On a network file system each is a round trip to the server,
     * for every checked open (ChecksumFileSystem asks for the status first), every entry of a
     * listing and every map output a reduce checks: on the test cluster's GlusterFS a one-line
     * map spent most of its 0.4 s in these (bench/README.md, "Metadata calls per task on the
     * network file system").
     * Same fields, same FileNotFoundException when the file cannot be stat'ed (File.exists is
     * false for any error); owner, group and permission read when first asked for, as there.
     * A kept file's ({@link KeptFiles}) from the attributes read when it was kept.
     */
    @Override
    public FileStatus getFileStatus(Path f) throws IOException {
      File file = pathToFile(f);
      KeptFiles.Kept kept = KeptFiles.get(file);
      if (kept != null) {
        return new LocalStatus(kept.attributes(), blockSize, qualified(f, file));
      }
      lookups++;
      if (!UNIX_VIEW) {
        return super.getFileStatus(f);
      }
      BasicFileAttributes a;
      try {
        a = Files.readAttributes(file.toPath(), BasicFileAttributes.class);
      } catch (IOException | InvalidPathException e) {
        // (InvalidPathException: a name the JVM's file name encoding cannot express)
        throw new FileNotFoundException("File " + f + " does not exist");
      }
      return new LocalStatus(a, blockSize, qualified(f, file));
    }

    /**
     * The status's path, as Hadoop's: the file's path qualified. A path that is already an
     * absolute file: URI without authority is that already, and a plain absolute path (as
     * SecureIOUtils and the shuffle ask with) qualifies without Hadoop's two parses with a
     * regular expression (half the CPU of a status: FastPaths).
     */
    private Path qualified(Path f, File file) {
      URI u = f.toUri();
      // Only the form Hadoop's own qualification gives: no fragment (a cache file's #name), no
      // query, nothing escaped (raw path = decoded path = the file's path).
      if ("file".equals(u.getScheme()) && u.getAuthority() == null && u.getFragment() == null
          && u.getQuery() == null && f.isUriPathAbsolute()
          && file.getPath().equals(u.getRawPath())) {
        return f;
      }
      Path plain = FastPaths.qualifiedOrNull(f, file.getPath(), getUri());
      return plain != null ? plain
          : new Path(file.getPath()).makeQualified(getUri(), getWorkingDirectory());
    }

    private int writeBuffer(Path f, int asked) {
      String name = f.getName();
      return name.endsWith(".crc") ? asked
          : isIndex(name) ? Math.min(asked, INDEX_BUFFER) : Math.max(asked, writeBuffer);
    }

    /** A map output's index or a spill's ({@link #MAP_OUTPUT_INDEX}, spillN.out.index). */
    private static boolean isIndex(String name) {
      return name.endsWith(".out.index");
    }

    /**
     * Opens without Hadoop's stat first, and stats only when the open fails: a missing file
     * gets Hadoop's "does not exist" from {@link #getFileStatus}, one that exists but cannot
     * be read (a directory, no permission) the open's own error, as from Hadoop's open. On a
     * network file system each stat is a round trip to its servers: a reduce's open of every
     * map's output saves one, and a checked read (ChecksumFileSystem, which stats the file
     * itself first) the second stat of the file and that of its {@code .crc}. A missing
     * checksum file's error stays the open's: ChecksumFileSystem asks for the {@code .crc} of
     * every file it reads, takes a FileNotFoundException as none, and warns only when the
     * message says permission was denied. A kept file ({@link KeptFiles}) opens without a
     * system call, its reads positioned reads of the kept channel.
     */
    @Override
    public FSDataInputStream open(Path f, int size) throws IOException {
      String name = f.getName();
      int buffer = MAP_OUTPUT.equals(name) ? Math.min(size, SEGMENT_READ_BUFFER)
          : isIndex(name) ? Math.min(size, INDEX_BUFFER) : size;
      File file = pathToFile(f);
      KeptFiles.Kept kept = KeptFiles.get(file);
      if (kept != null) {
        return new FSDataInputStream(new BufferedFSInputStream(new KeptFileInputStream(file,
            kept, statistics, () -> HamRawLocalOpen.open(this, f, buffer)), buffer));
      }
      try {
        return HamRawLocalOpen.open(this, f, buffer);
      } catch (FileNotFoundException e) {
        if (!ChecksumFileSystem.isChecksumFile(f)) {
          getFileStatus(f);
        }
        throw e;
      }
    }

    @Override
    public FSDataOutputStream create(Path f, boolean overwrite, int size, short replication,
        long blockSize, Progressable progress) throws IOException {
      return createOpeningFirst(f, overwrite, writeBuffer(f, size), null);
    }

    @Override
    public FSDataOutputStream create(Path f, FsPermission permission, boolean overwrite,
        int size, short replication, long blockSize, Progressable progress) throws IOException {
      return createOpeningFirst(f, overwrite, writeBuffer(f, size), permission);
    }

    /**
     * RawLocalFileSystem's create with two stats and a chmod fewer: it asks whether the file
     * exists only when it may not overwrite one (Hadoop's asks either way, and every map's spill
     * and index are created to be overwritten), and makes the parent directory only when the
     * file cannot be opened for want of it (Hadoop's makes it first: a stat for an existing
     * one). A new file gets its mode in the open that creates it where that open gives Hadoop's
     * mode ({@link HamNewFileStream}); Hadoop's opens, then sets the mode. On a network file
     * system each is a round trip to its servers (bench/results/trials/runner-cuts/create-stats
     * and netfs-calls). The same bytes and errors, and Hadoop's mode (except where a directory's
     * default ACL gives new files theirs: docs/from-yarn.md): a file that cannot be opened in an
     * existing directory fails with the open's, as it does after Hadoop's mkdirs, and a parent
     * that cannot be made with Hadoop's mkdirs error.
     */
    private FSDataOutputStream createOpeningFirst(Path f, boolean overwrite, int bufferSize,
        FsPermission permission) throws IOException {
      if (!overwrite && exists(f)) {
        throw new org.apache.hadoop.fs.FileAlreadyExistsException("File already exists: " + f);
      }
      File file = pathToFile(f);
      FsPermission masked = masked(permission);
      OutputStream out;
      try {
        out = HamNewFileStream.create(file, masked);
      } catch (FileNotFoundException e) {
        // Its directory is missing (a committer's attempt directory, made at its first file):
        // made as Hadoop makes it, then the create again.
        makeParent(f);
        out = createdAfterMkdirs(file, masked);
      }
      if (out == null) {
        modesSet++;
        out = openSettingMode(f, permission);
      }
      return new FSDataOutputStream(new BufferedIOStatisticsOutputStream(out, bufferSize, true),
          statistics);
    }

    /** The create again once the directory is made; null (Hadoop's way) if it still fails. */
    private static OutputStream createdAfterMkdirs(File file, FsPermission masked) {
      try {
        return HamNewFileStream.create(file, masked);
      } catch (FileNotFoundException e) {
        return null;  // gone again: Hadoop's open gives the error
      }
    }

    /** Hadoop's open of a file to write, then its mode; its parent made if it is missing. */
    private OutputStream openSettingMode(Path f, FsPermission permission) throws IOException {
      try {
        return createOutputStreamWithMode(f, false, permission);
      } catch (FileNotFoundException e) {
        // Hadoop's order from here: its mkdirs, then the open again, whose error (a directory
        // in the file's place, no permission) is then the one Hadoop's open gives. Made here
        // or by another node since the first open, the directory is there for it.
        if (!makeParent(f)) {
          throw e;
        }
        return createOutputStreamWithMode(f, false, permission);
      }
    }

    /**
     * Makes {@code f}'s directory as Hadoop's create does (its error if it cannot); false if
     * {@code f} has none.
     */
    private boolean makeParent(Path f) throws IOException {
      Path parent = f.getParent();
      if (parent == null) {
        return false;
      }
      if (!mkdirs(parent)) {
        throw new IOException("Mkdirs failed to create " + parent);
      }
      return true;
    }

    /** The mode Hadoop's create sets: the permission given (or 0666), under the umask. */
    private FsPermission masked(FsPermission permission) {
      return (permission == null ? FsPermission.getFileDefault() : permission)
          .applyUMask(FsPermission.getUMask(getConf()));
    }

    @Override
    public boolean exists(Path f) throws IOException {
      lookups++;
      return super.exists(f);
    }

    /**
     * An existing directory in one stat. Hadoop's mkdirs makes seven system calls to find that
     * a directory exists (its parent's and its own exists and isDirectory, a failed mkdir), and
     * ChecksumFileSystem's create makes the file's parent first: one round trip to the server
     * each on a network file system. Hadoop returns true for an existing directory without
     * changing its permission; so does this. Anything else goes Hadoop's way.
     */
    @Override
    public boolean mkdirs(Path f) throws IOException {
      lookups++;
      return f != null && pathToFile(f).isDirectory() || super.mkdirs(f);
    }

    @Override
    public boolean mkdirs(Path f, FsPermission permission) throws IOException {
      lookups++;
      return f != null && pathToFile(f).isDirectory() || super.mkdirs(f, permission);
    }

    /**
     * One directory, as Hadoop makes it (mkdir, then the permission asked for, or 0777, under
     * the umask), except when the file system's server says the name exists while this node's
     * client says it does not: a name cache that has not seen another node's mkdir yet (a
     * negative entry, ~1 s on GlusterFS's defaults, up to a minute on NFS without
     * lookupcache=none). Several tasks make their committer's {@code _temporary} directory at
     * once, and each of them had looked it up missing moments before (needsTaskCommit): Hadoop's
     * mkdirs then fails ("Mkdirs failed to create"). Here it waits up to
     * {@link #STALE_NAME_WAIT_MS} for the name to show, so the caller sees the directory.
     */
    @Override
    protected boolean mkOneDirWithMode(Path p, File p2f, FsPermission permission)
        throws IOException {
      if (Shell.WINDOWS) {
        return super.mkOneDirWithMode(p, p2f, permission);
      }
      FsPermission masked = (permission == null ? FsPermission.getDirDefault() : permission)
          .applyUMask(FsPermission.getUMask(getConf()));
      try {
        Files.createDirectory(p2f.toPath());
      } catch (FileAlreadyExistsException e) {
        awaitName(p2f.toPath());
        return false;  // not made here: the caller looks for the directory (as after mkdir)
      } catch (IOException | InvalidPathException e) {
        return false;  // as File.mkdir: the caller decides
      }
      setPermission(p, masked);
      return true;
    }

    /**
     * Waits until a name the server says exists shows here (or the wait ends). Only when this
     * node's client has no entry at all for it (lstat: no such file): a dangling symlink, a loop
     * or an unsearchable directory is there already, and the caller fails at once, as Hadoop's.
     */
    private static void awaitName(java.nio.file.Path dir) throws IOException {
      if (!Files.notExists(dir, LinkOption.NOFOLLOW_LINKS)) {
        return;
      }
      long start = System.currentTimeMillis();
      long pause = 20;
      try {
        while (Files.notExists(dir, LinkOption.NOFOLLOW_LINKS)
            && System.currentTimeMillis() - start < STALE_NAME_WAIT_MS) {
          Thread.sleep(pause);
          pause = Math.min(pause * 2, 500);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new java.io.InterruptedIOException("interrupted waiting for " + dir);
      }
      LOG.warn("{}: mkdir says it exists, this node's file system client said it did not; {} "
          + "after {} ms (a name cache that outlives other nodes' changes: see the mount "
          + "options in HAM's admin guide)", dir,
          Files.notExists(dir, LinkOption.NOFOLLOW_LINKS) ? "still not seen" : "seen",
          System.currentTimeMillis() - start);
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
