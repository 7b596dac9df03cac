package io.github.ham.mapreduce.lustre;

import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;

import io.github.ham.mapreduce.common.HamConfig;
import io.github.ham.mapreduce.common.fs.MountFs;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FsServerDefaults;
import org.apache.hadoop.fs.local.LocalConfigKeys;

/**
 * lustre:// for FileContext (fs.AbstractFileSystem.lustre.impl), as Hadoop's RawLocalFs is
 * file:// for it: every call goes to a {@link LustreFileSystem}.
 */
public class LustreFs extends MountFs {
  public LustreFs(URI uri, Configuration conf) throws IOException, URISyntaxException {
    super(uri, new LustreFileSystem(), conf, LustreFileSystem.SCHEME);
  }

  /** The local file system's defaults, with lustre://'s block and buffer sizes. */
  @Override
  protected FsServerDefaults defaults() throws IOException {
    FsServerDefaults local = LocalConfigKeys.getServerDefaults();
    return new FsServerDefaults(fsImpl.getDefaultBlockSize(), local.getBytesPerChecksum(),
        local.getWritePacketSize(), local.getReplication(),
        Math.max(local.getFileBufferSize(), fsImpl.getConf().getInt(
            HamConfig.LUSTRE_BUFFER_SIZE, HamConfig.DEFAULT_LUSTRE_BUFFER_SIZE)),
        local.getEncryptDataTransfer(), local.getTrashInterval(), local.getChecksumType());
  }
}
