package io.github.ham.mapreduce.common;

import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.ChecksumFs;
import org.apache.hadoop.fs.DelegateToFileSystem;
import org.apache.hadoop.fs.FsConstants;
import org.apache.hadoop.fs.FsServerDefaults;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.local.LocalConfigKeys;

/**
 * {@link HamLocalFileSystem} for FileContext (fs.AbstractFileSystem.file.impl in the
 * core-site.xml ham renders): Hadoop's LocalFs, checksums and all, over the same raw file
 * system with permissions set in the JVM. Without it the driver's FileContext users (the
 * aggregated logs: a file and its .crc per node) still started a chmod process per file.
 */
public class HamLocalFs extends ChecksumFs {
  /** The constructor AbstractFileSystem.createFileSystem calls. */
  public HamLocalFs(URI uri, Configuration conf) throws IOException, URISyntaxException {
    super(new Raw(conf));
  }

  /** Hadoop's RawLocalFs (whose constructors are its package's) over HAM's raw file system. */
  static final class Raw extends DelegateToFileSystem {
    Raw(Configuration conf) throws IOException, URISyntaxException {
      super(FsConstants.LOCAL_FS_URI, new HamLocalFileSystem.JavaPermissionsRawLocalFileSystem(),
          conf, FsConstants.LOCAL_FS_URI.getScheme(), false);
    }

    @Override
    public int getUriDefaultPort() {
      return -1;  // no port in file:///
    }

    @Override
    public FsServerDefaults getServerDefaults(Path f) throws IOException {
      return LocalConfigKeys.getServerDefaults();
    }

    @Override
    @Deprecated
    public FsServerDefaults getServerDefaults() throws IOException {
      return LocalConfigKeys.getServerDefaults();
    }

    @Override
    public boolean isValidName(String src) {
      return true;  // the operating system's rules, as RawLocalFileSystem's
    }
  }
}
