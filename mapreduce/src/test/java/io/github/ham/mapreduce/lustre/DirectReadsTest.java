package io.github.ham.mapreduce.lustre;

import static io.github.ham.mapreduce.lustre.DirectWritesTest.data;
import static io.github.ham.mapreduce.lustre.DirectWritesTest.directAfterAPage;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

import io.github.ham.mapreduce.common.HamConfig;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileSystem;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Large reads with O_DIRECT past a file's first bytes: {@link DirectReads}. */
class DirectReadsTest {
  private static final org.apache.hadoop.fs.Path IN = new org.apache.hadoop.fs.Path("/d/in");

  @TempDir
  Path tmp;

  /** What {@code reads} gives from {@code pos} on, in requests of {@code len}, until it says -1. */
  private static byte[] readFrom(DirectReads reads, long pos, int len) throws Exception {
    ByteArrayOutputStream got = new ByteArrayOutputStream();
    byte[] buf = new byte[len];
    int n;
    while ((n = reads.read(pos, buf, 0, len)) > 0) {
      got.write(buf, 0, n);
      pos += n;
    }
    return got.toByteArray();
  }

  @Test
  void readsPastTheThresholdGoDirectAndGiveTheFileToItsEnd() throws Exception {
    Path f = tmp.resolve("big");
    byte[] d = data(1_000_003, 1);  // not a multiple of a block: the last one is short
    // Written through the page cache and not synced: the kernel writes the dirty pages back
    // before a direct read of them, so the reader sees what was written.
    Files.write(f, d);
    try (DirectReads reads = new DirectReads(f, 10_001, 64 << 10)) {
      byte[] b = new byte[100];
      assertEquals(-1, reads.read(10_000, b, 0, 100), "before 10,001 bytes: read(2)'s");
      assertFalse(reads.isDirect());
      byte[] tail = readFrom(reads, 10_001, 300_000);  // larger than a block: short reads
      assertTrue(reads.isDirect());
      assertArrayEquals(Arrays.copyOfRange(d, 10_001, d.length), tail);
      assertEquals(-1, reads.read(d.length, b, 0, 100), "at the end: read(2) says so");
      // Back into the file, unaligned: from the block that holds it.
      assertArrayEquals(Arrays.copyOfRange(d, 123_457, d.length), readFrom(reads, 123_457, 777));
    }
  }

  @Test
  void aNegativeThresholdOrABufferBlocksDoNotDivideLeaveReadsToReadTwo() throws Exception {
    Path f = tmp.resolve("f");
    Files.write(f, data(300_000, 2));
    byte[] b = new byte[1000];
    try (DirectReads never = new DirectReads(f, -1, 64 << 10)) {
      assertEquals(-1, never.read(0, b, 0, 1000));
      assertEquals(-1, never.read(200_000, b, 0, 1000));
    }
    // As for a file system that refuses O_DIRECT (tmpfs): the same fallback.
    try (DirectReads odd = new DirectReads(f, 0, 10_000)) {
      assertEquals(-1, odd.read(0, b, 0, 1000), "10,000 is no multiple of a 4 KiB block");
      assertFalse(odd.isDirect());
    }
  }

  @Test
  void lustreStreamsReadLargeFilesWholeAndCountTheirBytes() throws Exception {
    Configuration conf = directAfterAPage(tmp, HamConfig.LUSTRE_READ_DIRECT_AFTER);
    byte[] d = data(3_000_001, 3);
    try (FileSystem fs = LustreFileSystemTest.lustre(conf)) {
      LustreFileSystemTest.write(fs, IN, d);
      FileSystem.Statistics stats = FileSystem.getStatistics("lustre", fs.getClass());
      long before = stats.getBytesRead();
      try (FSDataInputStream in = fs.open(IN)) {
        byte[] buf = new byte[1_000_000];  // TestDFSIO's request size
        ByteArrayOutputStream got = new ByteArrayOutputStream();
        int n;
        while ((n = in.read(buf, 0, buf.length)) > 0) {
          got.write(buf, 0, n);
        }
        assertArrayEquals(d, got.toByteArray());
        assertEquals(d.length, stats.getBytesRead() - before, "direct reads count as reads");
        // The stream's position follows: a seek back, small reads, and a positioned read.
        in.seek(2_500_000);
        assertEquals(d[2_500_000] & 0xff, in.read());
        byte[] mid = new byte[50];
        assertEquals(50, in.read(777, mid, 0, 50));
        assertArrayEquals(Arrays.copyOfRange(d, 777, 827), mid);
        in.readFully(buf, 0, 500_000);
        assertArrayEquals(Arrays.copyOfRange(d, 2_500_001, d.length), Arrays.copyOf(buf, 500_000));
        assertEquals(-1, in.read(buf, 0, buf.length));
      }
    }
  }
}
