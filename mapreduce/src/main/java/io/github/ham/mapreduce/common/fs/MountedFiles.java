package io.github.ham.mapreduce.common.fs;

import java.io.File;

import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocalFileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RawLocalFileSystem;

/**
 * The file a Hadoop path names on this node's mounts: file:// paths, and lustre:// ones
 * (under fs.root.dir), whose file systems are RawLocalFileSystems underneath.
 */
public final class MountedFiles {
  private MountedFiles() {
  }

  /** The file {@code path} names in {@code fs}, or null for a file system not mounted here. */
  public static File of(FileSystem fs, Path path) {
    if (fs instanceof LocalFileSystem local) {
      return local.pathToFile(path);
    }
    if (fs instanceof RawLocalFileSystem raw) {
      return raw.pathToFile(path);
    }
    return null;
  }
}
