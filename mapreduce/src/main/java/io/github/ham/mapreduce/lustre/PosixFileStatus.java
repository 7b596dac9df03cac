package io.github.ham.mapreduce.lustre;

import java.io.File;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFileAttributes;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.ToLongFunction;

import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.permission.FsPermission;

/**
 * A lustre:// file's status from one stat(2) in the JVM: mode, owner and group as on the mount
 * (Hadoop's RawLocalFileSystem starts an {@code ls -ld} process per file for them without
 * libhadoop). Names of owner and group are looked up on first use and cached per uid/gid, and
 * the block size is computed on first use (from the stripe layout it may take an lfs call),
 * so listing a large directory for split planning costs one stat per file.
 */
final class PosixFileStatus extends FileStatus {
  private static final long serialVersionUID = 1L;
  private static final String ATTRIBUTES =
      "unix:mode,uid,gid,size,lastModifiedTime,lastAccessTime,isDirectory";
  private static final Map<Integer, String> USERS = new ConcurrentHashMap<>();
  private static final Map<Integer, String> GROUPS = new ConcurrentHashMap<>();

  private final transient File file;
  private final int uid;
  private final int gid;
  private final transient ToLongFunction<File> blockSizeOf;
  private volatile long blockSize = -1;

  private PosixFileStatus(Map<String, Object> a, Path path, File file,
      ToLongFunction<File> blockSizeOf) {
    super((Long) a.get("size"), (Boolean) a.get("isDirectory"), 1, 0,
        ((FileTime) a.get("lastModifiedTime")).toMillis(),
        ((FileTime) a.get("lastAccessTime")).toMillis(),
        new FsPermission((short) ((Integer) a.get("mode") & 07777)), null, null, path);
    this.file = file;
    this.uid = (Integer) a.get("uid");
    this.gid = (Integer) a.get("gid");
    this.blockSizeOf = blockSizeOf;
  }

  /** The status of {@code file}, reported under {@code path} (its lustre:// name). */
  static FileStatus of(Path path, File file, ToLongFunction<File> blockSizeOf)
      throws IOException {
    try {
      return new PosixFileStatus(Files.readAttributes(file.toPath(), ATTRIBUTES), path, file,
          blockSizeOf);
    } catch (NoSuchFileException e) {
      throw new FileNotFoundException("File " + path + " does not exist");
    }
  }

  @Override
  public long getBlockSize() {
    if (blockSize < 0) {
      blockSize = isDirectory() || blockSizeOf == null ? 0 : blockSizeOf.applyAsLong(file);
    }
    return blockSize;
  }

  @Override
  public String getOwner() {
    return name(USERS, uid, () -> Files.getOwner(file.toPath()).getName());
  }

  @Override
  public String getGroup() {
    return name(GROUPS, gid,
        () -> Files.readAttributes(file.toPath(), PosixFileAttributes.class).group().getName());
  }

  private interface Lookup {
    String name() throws IOException;
  }

  /** A uid's or gid's name, cached; its number when the name cannot be found (not cached). */
  private String name(Map<Integer, String> cache, int id, Lookup lookup) {
    String name = cache.get(id);
    if (name == null && file != null) {
      try {
        name = lookup.name();
        cache.put(id, name);
      } catch (IOException e) {
        name = null;
      }
    }
    return name != null ? name : Integer.toString(id);
  }

  // FileStatus's equals/hashCode compare paths only, as HDFS's do; declared so that the lazy
  // fields above are visibly not part of them.
  @Override
  public boolean equals(Object o) {
    return super.equals(o);
  }

  @Override
  public int hashCode() {
    return super.hashCode();
  }
}
