package io.github.ham.mapreduce.common;

import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;

import io.github.ham.mapreduce.common.fs.MountFs;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.ChecksumFs;
import org.apache.hadoop.fs.FsConstants;

/**
 * {@link HamLocalFileSystem} for FileContext (fs.AbstractFileSystem.file.impl in the
 * core-site.xml ham renders): Hadoop's LocalFs, checksums and all, over the same raw file
 * system with permissions set in the JVM. Without it the driver's FileContext users (the
 * aggregated logs: a file and its .crc per node) still started a chmod process per file.
 */
public class HamLocalFs extends ChecksumFs {
  /** The constructor AbstractFileSystem.createFileSystem calls. */
  public HamLocalFs(URI uri, Configuration conf) throws IOException, URISyntaxException {
    super(new MountFs(FsConstants.LOCAL_FS_URI,
        new HamLocalFileSystem.JavaPermissionsRawLocalFileSystem(), conf,
        FsConstants.LOCAL_FS_URI.getScheme()));
  }
}
