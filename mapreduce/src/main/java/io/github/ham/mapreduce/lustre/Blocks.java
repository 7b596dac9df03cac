package io.github.ham.mapreduce.lustre;

import java.io.File;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.github.ham.mapreduce.common.HamConfig;

import org.apache.hadoop.fs.BlockLocation;
import org.apache.hadoop.fs.FileStatus;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Block sizes and block locations of lustre:// files, which is what FileInputFormat plans
 * splits from. The block size is {@link HamConfig#LUSTRE_BLOCK_SIZE} if set; else, on Lustre,
 * the smallest whole number of the file's stripe rows (stripe count x stripe size) that
 * reaches {@link #TARGET}, so that each split starts on a stripe boundary and reads whole
 * stripes from each OST; elsewhere TARGET itself. Locations name no hosts: every node reads a
 * Lustre file as well as any other, so there is no locality to report (HDFS-style fake
 * "localhost" locations would only mislead schedulers).
 */
final class Blocks {
  private static final Logger LOG = LoggerFactory.getLogger(Blocks.class);
  /** What a stripe-derived block size aims at: Hadoop's local file system block (32 MiB). */
  static final long TARGET = 32L << 20;
  private static final int CACHE = 4096;

  private final long fixed;
  private final Lfs lfs;
  private final Map<String, Long> cache = new ConcurrentHashMap<>();

  /** lfs is null when the root is not on Lustre (no layout to read). */
  Blocks(long fixed, Lfs lfs) {
    this.fixed = fixed;
    this.lfs = lfs;
  }

  long defaultSize() {
    return fixed > 0 ? fixed : TARGET;
  }

  /** The block size of one file (an lfs getstripe the first time, on Lustre). */
  long sizeOf(File file) {
    if (fixed > 0 || lfs == null) {
      return defaultSize();
    }
    return cache.computeIfAbsent(file.getPath() + "@" + file.lastModified(), k -> {
      if (cache.size() > CACHE) {
        cache.clear();
      }
      try {
        return forLayout(lfs.getstripe(file));
      } catch (IOException | IllegalArgumentException e) {
        LOG.debug("No stripe layout for {}: {}", file, e.toString());
        return TARGET;
      }
    });
  }

  static long forLayout(StripeLayout layout) {
    long width = layout.width() > 0 ? layout.width() : layout.size();
    return Math.max(1, (TARGET + width - 1) / width) * width;
  }

  /** One location per block of [start, start + len), with no hosts. */
  static BlockLocation[] locations(FileStatus file, long start, long len) {
    if (file == null) {
      return null;
    }
    if (start < 0 || len < 0) {
      throw new IllegalArgumentException("Invalid start or len parameter");
    }
    if (file.getLen() <= start) {
      return new BlockLocation[0];
    }
    long end = Math.min(file.getLen(), start + len);
    long block = Math.max(1, file.getBlockSize());
    List<BlockLocation> out = new ArrayList<>();
    for (long off = start / block * block; off < end || out.isEmpty(); off += block) {
      out.add(new BlockLocation(new String[0], new String[0], off,
          Math.min(block, file.getLen() - off)));
    }
    return out.toArray(new BlockLocation[0]);
  }
}
