package io.github.ham.mapreduce.common.fs;

import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.DelegateToFileSystem;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.FsServerDefaults;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.local.LocalConfigKeys;

/**
 * A file system of a mounted directory for FileContext, as Hadoop's RawLocalFs is file:// for
 * it (whose constructors are its package's): every call goes to {@code fs}; no port, the
 * operating system's rules for names, the local file system's server defaults unless a
 * subclass gives its own ({@link #defaults}).
 */
public class MountFs extends DelegateToFileSystem {
  public MountFs(URI uri, FileSystem fs, Configuration conf, String scheme)
      throws IOException, URISyntaxException {
    super(uri, fs, conf, scheme, false);
  }

  @Override
  public int getUriDefaultPort() {
    return -1;
  }

  @Override
  public FsServerDefaults getServerDefaults(Path f) throws IOException {
    return defaults();
  }

  @Override
  @Deprecated
  public FsServerDefaults getServerDefaults() throws IOException {
    return defaults();
  }

  /** What getServerDefaults answers: the local file system's. */
  protected FsServerDefaults defaults() throws IOException {
    return LocalConfigKeys.getServerDefaults();
  }

  @Override
  public boolean isValidName(String src) {
    return true;  // the mount's rules apply, as for RawLocalFs
  }
}
