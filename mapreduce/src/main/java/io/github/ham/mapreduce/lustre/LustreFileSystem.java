package io.github.ham.mapreduce.lustre;

import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.attribute.GroupPrincipal;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.UserPrincipalLookupService;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;

import io.github.ham.mapreduce.common.HamConfig;
import io.github.ham.mapreduce.common.fs.PosixModes;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.BlockLocation;
import org.apache.hadoop.fs.CommonPathCapabilities;
import org.apache.hadoop.fs.CreateFlag;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileAlreadyExistsException;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileUtil;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RawLocalFileSystem;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.util.Progressable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code lustre://}: the directory {@code fs.root.dir} on a shared mount as a Hadoop file
 * system, the way Intel's Hadoop Adapter for Lustre (HAL) presented it: {@code lustre:///a/b}
 * is {@code <fs.root.dir>/a/b}, the home directory is {@code /user/<name>} (so relative paths
 * land in {@code <fs.root.dir>/user/<name>/}), and permissions and owners are the mount's.
 * <p>It is Hadoop's RawLocalFileSystem with the path mapping, and so raw: no {@code .crc} side
 * files and no CRC per 512 bytes (Lustre and its network check their own data; a job that
 * wants end-to-end checksums can use file:// or write checksummed formats), and large I/O:
 * every stream gathers small reads and writes in a buffer of
 * {@link HamConfig#LUSTRE_RECORD_BUFFER_SIZE} (64 KiB, not io.file.buffer.size's 4 KB), larger
 * requests go around it ({@link LargeIo}), and a large file's reads of 256 KiB and more and its
 * writes past its first 16 MiB go with direct I/O in blocks of
 * {@link HamConfig#LUSTRE_BUFFER_SIZE} (4 MiB, a stripe)
 * ({@link DirectReads}, {@link DirectWrites}; {@link HamConfig#LUSTRE_READ_DIRECT_AFTER},
 * {@link HamConfig#LUSTRE_WRITE_DIRECT_AFTER}), the rest with read(2) and write(2) (or, with
 * {@link HamConfig#LUSTRE_READ_MMAP}, reads copying from memory mappings: {@link MappedReads}).
 * Status comes from one stat in the JVM
 * ({@link PosixFileStatus}); block locations name no hosts (every node reads every stripe
 * equally well, so there is no locality to report); block sizes follow the stripe layout.
 * Files matching {@link HamConfig#LUSTRE_FILE_STRIPES} are created with their layout.
 * Symbolic links on the mount are followed, not reported as links.
 * <p>Registered for the scheme {@code lustre} (META-INF/services; the launcher also renders
 * fs.lustre.impl). {@link LustreFs} is its AbstractFileSystem for FileContext.
 */
public class LustreFileSystem extends RawLocalFileSystem {
  private static final Logger LOG = LoggerFactory.getLogger(LustreFileSystem.class);
  public static final String SCHEME = "lustre";
  static final URI NAME = URI.create(SCHEME + ":///");

  private File root;
  private Path workingDir;
  private BufferSizes buffers;
  private boolean mappedReads = HamConfig.DEFAULT_LUSTRE_READ_MMAP;
  private long directAfter = HamConfig.DEFAULT_LUSTRE_WRITE_DIRECT_AFTER;
  private long directReadsAfter = HamConfig.DEFAULT_LUSTRE_READ_DIRECT_AFTER;
  private Blocks blocks;
  private boolean rootOnLustre;
  private StripeRules fileStripes = StripeRules.parse("");
  private Striping striping;

  @Override
  public String getScheme() {
    return SCHEME;
  }

  @Override
  public URI getUri() {
    return NAME;
  }

  @Override
  public void initialize(URI uri, Configuration conf) throws IOException {
    super.initialize(uri, conf);
    String dir = conf.getTrimmed(HamConfig.LUSTRE_ROOT, "");
    if (dir.isEmpty()) {
      throw new IOException("lustre:// needs " + HamConfig.LUSTRE_ROOT + ", the directory on the "
          + "Lustre mount it stands for (HAM setting lustre_root)");
    }
    File r = new File(dir).getAbsoluteFile();
    if (!r.isDirectory()) {
      throw new IOException(HamConfig.LUSTRE_ROOT + "=" + dir + " is not a directory: create it "
          + "on the shared mount or fix the setting lustre_root");
    }
    root = r;
    buffers = BufferSizes.of(conf);
    mappedReads = conf.getBoolean(HamConfig.LUSTRE_READ_MMAP, HamConfig.DEFAULT_LUSTRE_READ_MMAP);
    directAfter = conf.getLong(HamConfig.LUSTRE_WRITE_DIRECT_AFTER,
        HamConfig.DEFAULT_LUSTRE_WRITE_DIRECT_AFTER);
    directReadsAfter = conf.getLong(HamConfig.LUSTRE_READ_DIRECT_AFTER,
        HamConfig.DEFAULT_LUSTRE_READ_DIRECT_AFTER);
    fileStripes = StripeRules.parse(conf.get(HamConfig.LUSTRE_FILE_STRIPES));
    striping = new Striping(conf);
    rootOnLustre = striping.onLustre(root);
    blocks = new Blocks(conf.getLong(HamConfig.LUSTRE_BLOCK_SIZE,
        HamConfig.DEFAULT_LUSTRE_BLOCK_SIZE), rootOnLustre ? striping.lfs() : null);
    if (!fileStripes.isEmpty() && !rootOnLustre) {
      LOG.info("Not on Lustre: {} {} ignored under {}", HamConfig.LUSTRE_FILE_STRIPES,
          fileStripes, root);
    }
    workingDir = getHomeDirectory();
  }

  /** The directory lustre:/// stands for. */
  public File root() {
    return root;
  }

  // ---- paths -------------------------------------------------------------------------------

  @Override
  public File pathToFile(Path path) {
    if (root == null) {
      throw new IllegalStateException("lustre:// used before initialize()");
    }
    checkPath(path);
    if (!path.isAbsolute()) {
      path = new Path(getWorkingDirectory(), path);
    }
    // Lexically, as HDFS sees paths: "/.." is "/", so nothing resolves above the root.
    String p = java.nio.file.Path.of("/").resolve(path.toUri().getPath().substring(1))
        .normalize().toString();
    return p.equals("/") ? root : new File(root, p.substring(1));
  }

  @Override
  public Path getHomeDirectory() {
    String user;
    try {
      user = UserGroupInformation.getCurrentUser().getShortUserName();
    } catch (IOException e) {
      user = System.getProperty("user.name");
    }
    return new Path(SCHEME, null, "/user/" + user);
  }

  @Override
  protected Path getInitialWorkingDirectory() {
    // Called by RawLocalFileSystem's constructor, before initialize(): "/" until then.
    return root == null ? new Path(SCHEME, null, "/") : getHomeDirectory();
  }

  @Override
  public void setWorkingDirectory(Path dir) {
    Path d = dir.isAbsolute() ? dir : new Path(getWorkingDirectory(), dir);
    checkPath(d);
    workingDir = makeQualified(d);
  }

  @Override
  public Path getWorkingDirectory() {
    return workingDir != null ? workingDir : getInitialWorkingDirectory();
  }

  // ---- status ------------------------------------------------------------------------------

  @Override
  public FileStatus getFileStatus(Path f) throws IOException {
    return PosixFileStatus.of(makeQualified(f), pathToFile(f), blocks::sizeOf);
  }

  @Override
  public FileStatus getFileLinkStatus(Path f) throws IOException {
    return getFileStatus(f);
  }

  @Override
  public FileStatus[] listStatus(Path f) throws IOException {
    Path dir = makeQualified(f);
    File local = pathToFile(f);
    FileStatus self = PosixFileStatus.of(dir, local, blocks::sizeOf);
    if (!self.isDirectory()) {
      return new FileStatus[] {self};
    }
    List<FileStatus> out = new ArrayList<>();
    for (String name : FileUtil.list(local)) {
      try {
        // The three-argument Path keeps a ':' in a name from reading as a scheme.
        out.add(PosixFileStatus.of(new Path(dir, new Path(null, null, name)),
            new File(local, name), blocks::sizeOf));
      } catch (java.io.FileNotFoundException e) {
        // removed since the listing, or a dangling link: not there, as RawLocalFileSystem says
      }
    }
    return out.toArray(new FileStatus[0]);
  }

  @Override
  public boolean supportsSymlinks() {
    return false;
  }

  @Override
  public void createSymlink(Path target, Path link, boolean createParent) {
    throw new UnsupportedOperationException("lustre:// does not create symbolic links");
  }

  @Override
  public Path getLinkTarget(Path f) throws IOException {
    throw new IOException("lustre:// follows symbolic links: " + f + " is not reported as one");
  }

  @Override
  public boolean hasPathCapability(Path path, String capability) throws IOException {
    if (CommonPathCapabilities.FS_SYMLINKS.equalsIgnoreCase(capability)) {
      return false;
    }
    return super.hasPathCapability(path, capability);
  }

  // ---- blocks ------------------------------------------------------------------------------

  @Override
  public long getDefaultBlockSize() {
    return blocks == null ? Blocks.TARGET : blocks.defaultSize();
  }

  @Override
  @SuppressWarnings("deprecation")
  public long getDefaultBlockSize(Path f) {
    return getDefaultBlockSize();
  }

  @Override
  public BlockLocation[] getFileBlockLocations(FileStatus file, long start, long len) {
    return Blocks.locations(file, start, len);
  }

  // ---- I/O ---------------------------------------------------------------------------------

  @Override
  public FSDataInputStream open(Path f, int size) throws IOException {
    // RawLocalFileSystem's stream with a 1-byte buffer (every read goes around it) in ours.
    FSDataInputStream raw = super.open(f, 1);
    LargeReads large = mappedReads ? new MappedReads(pathToFile(f))
        : directReadsAfter >= 0
            ? new DirectReads(pathToFile(f).toPath(), directReadsAfter, buffers.direct(size))
            : null;
    return LargeIo.input(raw, buffers.records(size), large, statistics);
  }

  @Override
  public FSDataOutputStream append(Path f, int size, Progressable progress) throws IOException {
    FileStatus status = getFileStatus(f);
    if (status.isDirectory()) {
      throw new IOException("Cannot append to a directory (=" + f + " )");
    }
    return new FSDataOutputStream(LargeIo.output(createOutputStreamWithMode(makeQualified(f),
        true, null), buffers.records(size)), statistics, status.getLen());
  }

  // The creates below are RawLocalFileSystem's with our buffering and per-file layouts. Paths
  // are qualified first: RawLocalFileSystem works out parents with Path.getParent(), which for
  // a relative path stops at "." instead of the working directory.

  @Override
  public FSDataOutputStream create(Path f, boolean overwrite, int size, short replication,
      long blockSize, Progressable progress) throws IOException {
    return create(makeQualified(f), overwrite, true, size, null);
  }

  @Override
  public FSDataOutputStream create(Path f, FsPermission permission, boolean overwrite, int size,
      short replication, long blockSize, Progressable progress) throws IOException {
    return create(makeQualified(f), overwrite, true, size, permission);
  }

  @Override
  public FSDataOutputStream createNonRecursive(Path f, FsPermission permission,
      EnumSet<CreateFlag> flags, int size, short replication, long blockSize,
      Progressable progress) throws IOException {
    return create(makeQualified(f), flags.contains(CreateFlag.OVERWRITE), false, size,
        permission);
  }

  @Override
  public FSDataOutputStream createNonRecursive(Path f, FsPermission permission,
      boolean overwrite, int size, short replication, long blockSize, Progressable progress)
      throws IOException {
    return create(makeQualified(f), overwrite, false, size, permission);
  }

  private FSDataOutputStream create(Path f, boolean overwrite, boolean createParent, int size,
      FsPermission permission) throws IOException {
    if (!overwrite && exists(f)) {
      throw new FileAlreadyExistsException("File already exists: " + f);
    }
    Path parent = f.getParent();
    if (createParent && parent != null && !mkdirs(parent)) {
      throw new IOException("Mkdirs failed to create " + parent);
    }
    layOut(f);
    OutputStream file = new DirectWrites(createOutputStreamWithMode(f, false, permission),
        pathToFile(f).toPath(), directAfter, buffers.direct(size));
    return new FSDataOutputStream(LargeIo.output(file, buffers.records(size)), statistics);
  }

  @Override
  public boolean mkdirs(Path f) throws IOException {
    return super.mkdirs(makeQualified(f));
  }

  @Override
  public boolean mkdirs(Path f, FsPermission permission) throws IOException {
    return super.mkdirs(makeQualified(f), permission);
  }

  @Override
  public boolean rename(Path src, Path dst) throws IOException {
    return super.rename(makeQualified(src), makeQualified(dst));
  }

  /**
   * Before a file is created: if a per-file rule matches and the root is on Lustre, make the
   * file empty with its layout ({@code lfs setstripe} on a new file; a layout cannot change
   * once data is written, so a file being overwritten is removed first). The create then
   * opens it, truncating, which keeps the layout.
   */
  private void layOut(Path f) throws IOException {
    StripeLayout layout = fileStripes.isEmpty() || !rootOnLustre ? null : fileStripes.match(f);
    if (layout == null) {
      return;
    }
    File file = pathToFile(f);
    if (file.exists()) {
      delete(f, false);
    }
    striping.apply(file, layout, "file");
  }

  // ---- permissions and owners, in the JVM (no chmod/chown processes) -------------------------

  @Override
  public void setPermission(Path p, FsPermission permission) throws IOException {
    if (permission.getStickyBit()) {
      super.setPermission(p, permission);  // java.nio cannot set the sticky bit
      return;
    }
    Files.setPosixFilePermissions(pathToFile(p).toPath(), PosixModes.of(permission));
  }

  @Override
  public void setOwner(Path p, String user, String group) throws IOException {
    if (user == null && group == null) {
      throw new IOException("user = null, group = null");
    }
    java.nio.file.Path file = pathToFile(p).toPath();
    PosixFileAttributeView view = Files.getFileAttributeView(file, PosixFileAttributeView.class);
    UserPrincipalLookupService names = file.getFileSystem().getUserPrincipalLookupService();
    if (user != null) {
      view.setOwner(names.lookupPrincipalByName(user));
    }
    if (group != null) {
      GroupPrincipal g = names.lookupPrincipalByGroupName(group);
      view.setGroup(g);
    }
  }

  // RawLocalFileSystem takes these shortcuts because its paths are local files; lustre:// paths
  // are not file:// paths, so the generic copy-based versions apply.
  @Override
  public void moveFromLocalFile(Path src, Path dst) throws IOException {
    copyFromLocalFile(true, src, dst);
  }

  @Override
  public Path startLocalOutput(Path fsOutputFile, Path tmpLocalFile) {
    return tmpLocalFile;
  }

  @Override
  public void completeLocalOutput(Path fsOutputFile, Path tmpLocalFile) throws IOException {
    moveFromLocalFile(tmpLocalFile, fsOutputFile);
  }

  @Override
  public String toString() {
    return "LustreFS[" + root + "]";
  }
}
