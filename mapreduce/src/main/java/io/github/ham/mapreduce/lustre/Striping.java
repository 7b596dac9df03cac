package io.github.ham.mapreduce.lustre;

import java.io.File;
import java.io.IOException;

import io.github.ham.mapreduce.common.HamConfig;
import io.github.ham.mapreduce.common.fs.MountedFiles;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Stripe layouts that follow the data, applied where the data is created: a directory's
 * default layout is set before anything is written in it (files and subdirectories inherit
 * it; an existing file keeps its layout). On Lustre with {@code lfs setstripe}; elsewhere
 * nothing runs and one INFO line says so. A failing lfs is a WARN, not a failed job: the data
 * is right either way, only its placement differs.
 * <p>The job directory itself is striped by the launcher (settings stripe_count/stripe_size);
 * the driver calls {@link #mapOutputDir} and {@link #outputDir}; lustre:// applies per-file
 * layouts ({@link HamConfig#LUSTRE_FILE_STRIPES}) as it creates files.
 */
public final class Striping {
  private static final Logger LOG = LoggerFactory.getLogger(Striping.class);

  private final LustreMounts mounts;
  private final Lfs lfs;

  public Striping(Configuration conf) {
    this(conf, LustreMounts.fromEnvironment());
  }

  Striping(Configuration conf, LustreMounts mounts) {
    this.mounts = mounts;
    this.lfs = new Lfs(conf);
  }

  public boolean onLustre(File file) {
    return mounts.isLustre(file);
  }

  Lfs lfs() {
    return lfs;
  }

  /**
   * Gives {@code target} (a directory, or a file still to be written) the layout, if it is on
   * Lustre. {@code what} names the data in the log lines. Returns whether lfs set it.
   */
  public boolean apply(File target, StripeLayout layout, String what) {
    if (layout == null) {
      return false;
    }
    if (!mounts.isLustre(target)) {
      LOG.info("Not on Lustre: {} stripe layout {} not applied to {}", what, layout, target);
      return false;
    }
    try {
      lfs.setstripe(target, layout);
      LOG.info("Striped {} {}: {}", what, target, layout);
      return true;
    } catch (IOException e) {
      LOG.warn("Cannot stripe {} {} as {}: {}", what, target, layout, e.getMessage());
      return false;
    }
  }

  /**
   * Driver, once per job, before any map runs: the layout of map outputs
   * ({@link HamConfig#LUSTRE_MAP_OUTPUT_STRIPE}), set on the job's map output directory.
   */
  public static void mapOutputDir(Configuration conf, File dir) {
    new Striping(conf).apply(dir, StripeLayout.parse(conf.get(HamConfig.LUSTRE_MAP_OUTPUT_STRIPE,
        HamConfig.DEFAULT_LUSTRE_MAP_OUTPUT_STRIPE), HamConfig.LUSTRE_MAP_OUTPUT_STRIPE),
        "map output");
  }

  /**
   * Driver, before setupJob, for an output directory the job creates: creates it (as
   * setupJob would) and gives it {@link HamConfig#LUSTRE_OUTPUT_STRIPE}, so the part files
   * the tasks write under it inherit that layout. A directory that exists is left alone.
   */
  public static void outputDir(Configuration conf, Path out) throws IOException {
    StripeLayout layout = StripeLayout.parse(conf.get(HamConfig.LUSTRE_OUTPUT_STRIPE), HamConfig.LUSTRE_OUTPUT_STRIPE);
    if (layout == null || out == null) {
      return;
    }
    FileSystem fs = out.getFileSystem(conf);
    File local = MountedFiles.of(fs, out);
    if (local == null) {
      LOG.info("Output {} is not on a mounted file system: stripe layout {} not applied", out,
          layout);
      return;
    }
    if (fs.exists(out)) {
      return;
    }
    fs.mkdirs(out);
    new Striping(conf).apply(local, layout, "output directory");
  }
}
