package io.github.ham.mapreduce.common.fs;

import java.io.DataOutput;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.GroupPrincipal;
import java.nio.file.attribute.UserPrincipal;
import java.util.Map;

import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.permission.FsPermission;

/**
 * A local file's status from one stat (length, type, times); its permission, owner and group
 * read when first asked for, in one more stat (Hadoop's status runs {@code ls -ld} for them
 * without libhadoop). A file gone by then is a RuntimeException, as there. HAM's local file
 * system's statuses (io.github.ham.mapreduce.common.HamLocalFileSystem).
 */
public final class LocalStatus extends FileStatus {
  private static final long serialVersionUID = 1L;
  private boolean loaded;

  public LocalStatus(BasicFileAttributes a, long blockSize, Path path) {
    super(a.size(), a.isDirectory(), 1, blockSize, a.lastModifiedTime().toMillis(),
        a.lastAccessTime().toMillis(), null, null, null, path);
  }

  @Override
  public FsPermission getPermission() {
    load();
    return super.getPermission();
  }

  @Override
  public String getOwner() {
    load();
    return super.getOwner();
  }

  @Override
  public String getGroup() {
    load();
    return super.getGroup();
  }

  @Override
  public void write(DataOutput out) throws IOException {
    load();
    super.write(out);
  }

  private synchronized void load() {
    if (loaded) {
      return;
    }
    loaded = true;
    try {
      // As Hadoop names the file (File(URI) decodes the path; Paths.get(URI) would read a
      // raw non-ASCII character as one byte).
      Map<String, Object> m = Files.readAttributes(new File(getPath().toUri()).toPath(),
          "unix:mode,owner,group");
      // The sticky bit with the rwx bits, as FsPermission.valueOf reads them from ls -ld.
      setPermission(new FsPermission((short) ((Integer) m.get("mode") & 01777)));
      setOwner(((UserPrincipal) m.get("owner")).getName());
      setGroup(((GroupPrincipal) m.get("group")).getName());
    } catch (IOException | InvalidPathException e) {
      loaded = false;
      throw new IllegalStateException("Cannot read the permissions of " + getPath() + ": "
          + e, e);
    }
  }
}
