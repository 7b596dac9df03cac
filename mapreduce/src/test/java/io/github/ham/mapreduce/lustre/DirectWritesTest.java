package io.github.ham.mapreduce.lustre;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.FileOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;

import io.github.ham.mapreduce.common.HamConfig;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DirectWritesTest {
  @TempDir
  Path tmp;

  /** {@code n} random bytes, the same for the same seed. */
  static byte[] data(int n, long seed) {
    byte[] d = new byte[n];
    new Random(seed).nextBytes(d);
    return d;
  }

  /** A lustre:// root in {@code tmp}, 1 MiB buffers, {@code key} (a direct threshold) 4096. */
  static Configuration directAfterAPage(Path tmp, String key) {
    Configuration conf = LustreFileSystemTest.conf(tmp);
    conf.setLong(key, 4096);
    conf.setInt(HamConfig.LUSTRE_BUFFER_SIZE, 1 << 20);
    return conf;
  }

  /** Writes {@code d} in pieces of varying sizes (records and large blocks). */
  private static void writeInPieces(DirectWrites out, byte[] d, int from, int to) throws Exception {
    int[] sizes = {1, 100, 5000, 70_000, 3, 300_000, 4096};
    for (int i = 0, at = from; at < to; i++) {
      int n = Math.min(sizes[i % sizes.length], to - at);
      out.write(d, at, n);
      at += n;
    }
  }

  @Test
  void aFileLargerThanTheThresholdIsWrittenDirectAndReadsBackWhole() throws Exception {
    Path f = tmp.resolve("big");
    byte[] d = data(1_000_003, 1);  // not a multiple of a block: the last one is padded, then cut
    try (DirectWrites out = new DirectWrites(new FileOutputStream(f.toFile()), f, 10_001,
        64 << 10)) {
      writeInPieces(out, d, 0, 500_000);
      assertTrue(out.isDirect(), "past 10,001 bytes the writes go direct");
      out.flush();  // visible, and the file's length right, in the middle of a block
      assertEquals(500_000, Files.size(f));
      assertArrayEquals(Arrays.copyOf(d, 500_000), Files.readAllBytes(f));
      writeInPieces(out, d, 500_000, d.length);
      out.hsync();
    }
    assertEquals(d.length, Files.size(f));
    assertArrayEquals(d, Files.readAllBytes(f));
  }

  @Test
  void smallFilesAndANegativeThresholdStayBuffered() throws Exception {
    for (long after : new long[] {2_000_000, -1}) {
      Path f = tmp.resolve("small" + after);
      byte[] d = data(1_000_000, 2);
      try (DirectWrites out = new DirectWrites(new FileOutputStream(f.toFile()), f, after,
          64 << 10)) {
        writeInPieces(out, d, 0, d.length);
        assertFalse(out.isDirect());
      }
      assertArrayEquals(d, Files.readAllBytes(f));
    }
  }

  @Test
  void aBufferThatBlocksDoNotDivideGetsBufferedWrites() throws Exception {
    // As for a file system that refuses O_DIRECT: the same fallback, and nothing lost.
    Path f = tmp.resolve("odd");
    byte[] d = data(300_000, 3);
    try (DirectWrites out = new DirectWrites(new FileOutputStream(f.toFile()), f, 0, 10_000)) {
      writeInPieces(out, d, 0, d.length);
      assertFalse(out.isDirect(), "10,000 is no multiple of a 4 KiB block");
    }
    assertArrayEquals(d, Files.readAllBytes(f));
  }

  @Test
  void lustreFilesPastTheThresholdKeepTheirContentAndMode() throws Exception {
    Configuration conf = directAfterAPage(tmp, HamConfig.LUSTRE_WRITE_DIRECT_AFTER);
    byte[] d = data(3_000_001, 4);
    try (FileSystem fs = LustreFileSystemTest.lustre(conf)) {
      org.apache.hadoop.fs.Path p = new org.apache.hadoop.fs.Path("/d/out");
      try (FSDataOutputStream out = fs.create(p)) {
        out.write(d, 0, 2_000_000);
        out.hflush();
        assertEquals(2_000_000, fs.getFileStatus(p).getLen());
        out.write(d, 2_000_000, d.length - 2_000_000);
      }
      assertArrayEquals(d, LustreFileSystemTest.read(fs, p));
      assertEquals("rw-r--r--", fs.getFileStatus(p).getPermission().toString());
    }
  }
}
