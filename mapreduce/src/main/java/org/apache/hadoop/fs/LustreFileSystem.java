package org.apache.hadoop.fs;

import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;

import org.apache.hadoop.conf.Configuration;

/**
 * The class name Intel's Hadoop Adapter for Lustre (HAL) registered
 * ({@code fs.lustre.impl=org.apache.hadoop.fs.LustreFileSystem},
 * {@code fs.AbstractFileSystem.lustre.impl=org.apache.hadoop.fs.LustreFileSystem$LustreFs}),
 * so that a site's core-site.xml from HAL keeps working: both are HAM's lustre:// under HAL's
 * names and do nothing of their own. HAM registers and renders
 * io.github.ham.mapreduce.lustre.LustreFileSystem and LustreFs. Remove HAL's own jar from the
 * class path: two classes of this name would make which one runs depend on class path order.
 */
public class LustreFileSystem extends io.github.ham.mapreduce.lustre.LustreFileSystem {
  /** HAL's AbstractFileSystem name. */
  public static class LustreFs extends io.github.ham.mapreduce.lustre.LustreFs {
    public LustreFs(URI uri, Configuration conf) throws IOException, URISyntaxException {
      super(uri, conf);
    }
  }
}
