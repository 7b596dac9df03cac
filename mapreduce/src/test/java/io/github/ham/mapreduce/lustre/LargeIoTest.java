package io.github.ham.mapreduce.lustre;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import io.github.ham.mapreduce.common.HamConfig;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LargeIoTest {
  @TempDir
  java.nio.file.Path tmp;

  /** Records the size of every write that reaches the file. */
  static final class Sizes extends OutputStream {
    final List<Integer> writes = new ArrayList<>();
    final ByteArrayOutputStream data = new ByteArrayOutputStream();

    @Override
    public void write(int b) {
      writes.add(1);
      data.write(b);
    }

    @Override
    public void write(byte[] b, int off, int len) {
      writes.add(len);
      data.write(b, off, len);
    }
  }

  @Test
  void smallWritesAreGatheredLargeOnesGoStraightThrough() throws Exception {
    Sizes file = new Sizes();
    byte[] big = new byte[LargeIo.DIRECT];
    new Random(1).nextBytes(big);
    try (OutputStream out = LargeIo.output(file, 1 << 20)) {
      for (int i = 0; i < 1000; i++) {
        out.write(big, i, 100);     // records: buffered
      }
      out.write(big);               // large: the 100,000 buffered bytes, then this one, as is
      out.write(7);
    }
    assertEquals(List.of(100_000, LargeIo.DIRECT, 1), file.writes);
    assertEquals(100_000 + LargeIo.DIRECT + 1, file.data.size());
  }

  /**
   * A lustre:// stream gathers records in a buffer of ham.lustre.record.buffer.size (64 KiB),
   * not of a stripe: after 100 KB of 100-byte records, the 655 records that fill 64 KiB have
   * reached the file (in one write: a record that does not fit flushes the buffer first), the
   * rest when the stream is flushed; the setting sizes it.
   */
  @Test
  void recordsReachTheFileARecordBufferAtATime() throws Exception {
    byte[] record = new byte[100];
    for (int kib : new int[] {64, 16}) {
      Configuration conf = LustreFileSystemTest.conf(tmp);
      if (kib != 64) {
        conf.setInt(HamConfig.LUSTRE_RECORD_BUFFER_SIZE, kib << 10);
      }
      java.nio.file.Path file = tmp.resolve("records-" + kib);
      try (FileSystem fs = LustreFileSystemTest.lustre(conf);
          FSDataOutputStream out = fs.create(new Path("/records-" + kib))) {
        for (int i = 0; i < 1000; i++) {
          out.write(record);
        }
        int perWrite = (kib << 10) / record.length;
        assertEquals(999 / perWrite * perWrite * record.length, java.nio.file.Files.size(file));
        out.hflush();
        assertEquals(100_000, java.nio.file.Files.size(file));
      }
    }
  }

  @Test
  void mixedReadsAndSeeksReadTheRightBytes() throws Exception {
    byte[] data = new byte[3 * LargeIo.DIRECT + 12345];
    new Random(2).nextBytes(data);
    Configuration conf = LustreFileSystemTest.conf(tmp);
    try (FileSystem fs = LustreFileSystemTest.lustre(conf)) {
      try (FSDataOutputStream out = fs.create(new Path("/f"))) {
        out.write(data, 0, 10);
        out.write(data, 10, data.length - 10);
      }
      try (FSDataInputStream in = fs.open(new Path("/f"))) {
        byte[] got = new byte[data.length];
        in.readFully(got, 0, 100);                       // buffered
        in.readFully(got, 100, LargeIo.DIRECT);          // partly from the buffer
        assertEquals(100 + LargeIo.DIRECT, in.getPos());
        in.seek(2L * LargeIo.DIRECT);
        in.readFully(got, 2 * LargeIo.DIRECT, LargeIo.DIRECT);  // straight from the file
        in.readFully(got, 3 * LargeIo.DIRECT, 12345);
        assertEquals(-1, in.read());
        in.seek(100 + LargeIo.DIRECT);
        in.readFully(got, 100 + LargeIo.DIRECT, LargeIo.DIRECT - 100);
        byte[] mid = new byte[50];
        assertEquals(50, in.read(777, mid, 0, 50));    // positioned
        assertArrayEquals(java.util.Arrays.copyOfRange(data, 777, 827), mid);
        assertArrayEquals(data, got);
      }
    }
  }

  @Test
  void largeReadsEndOnAPage() throws Exception {
    byte[] data = new byte[3_000_000];
    new Random(3).nextBytes(data);
    Configuration conf = LustreFileSystemTest.conf(tmp);
    conf.setBoolean(HamConfig.LUSTRE_READ_MMAP, false);  // read(2), the default, stated
    try (FileSystem fs = LustreFileSystemTest.lustre(conf)) {
      try (FSDataOutputStream out = fs.create(new Path("/f"))) {
        out.write(data);
      }
      try (FSDataInputStream in = fs.open(new Path("/f"))) {
        byte[] buf = new byte[1_000_000];  // TestDFSIO's request size
        ByteArrayOutputStream got = new ByteArrayOutputStream();
        List<Long> ends = new ArrayList<>();
        int n;
        while ((n = in.read(buf, 0, buf.length)) > 0) {
          got.write(buf, 0, n);
          ends.add(in.getPos());
        }
        assertEquals(List.of(999_424L, 1_998_848L, 2_998_272L, 3_000_000L), ends);
        assertArrayEquals(data, got.toByteArray());
      }
    }
  }

  @Test
  void largeReadsCopyFromMappingsAndCountAsReads() throws Exception {
    byte[] data = new byte[3_000_000];
    new Random(4).nextBytes(data);
    for (boolean mmap : new boolean[] {true, false}) {
      Configuration conf = LustreFileSystemTest.conf(tmp);
      conf.setBoolean(HamConfig.LUSTRE_READ_MMAP, mmap);
      try (FileSystem fs = LustreFileSystemTest.lustre(conf)) {
        LustreFileSystemTest.write(fs, new Path("/m"), data);
        FileSystem.Statistics stats = FileSystem.getStatistics("lustre", fs.getClass());
        long before = stats.getBytesRead();
        try (FSDataInputStream in = fs.open(new Path("/m"))) {
          byte[] buf = new byte[1_000_000];
          ByteArrayOutputStream got = new ByteArrayOutputStream();
          List<Long> ends = new ArrayList<>();
          int n;
          while ((n = in.read(buf, 0, buf.length)) > 0) {
            got.write(buf, 0, n);
            ends.add(in.getPos());
          }
          // Mapped: whole requests (no page trimming needed); read(2): trimmed to pages.
          assertEquals(mmap ? List.of(1_000_000L, 2_000_000L, 3_000_000L)
              : List.of(999_424L, 1_998_848L, 2_998_272L, 3_000_000L), ends);
          assertArrayEquals(data, got.toByteArray());
        }
        assertEquals(data.length, stats.getBytesRead() - before);  // job counters see them
      }
    }
  }

  @Test
  void mappedReadsCrossWindowsAndSeeTheFileGrow() throws Exception {
    java.io.File f = tmp.resolve("g").toFile();
    byte[] data = new byte[(1 << 20) + 5000];
    new Random(5).nextBytes(data);
    java.nio.file.Files.write(f.toPath(), java.util.Arrays.copyOf(data, 700_000));
    try (MappedReads m = new MappedReads(f, 256 << 10)) {
      byte[] got = new byte[data.length];
      int pos = 0;
      int n;
      while ((n = m.read(pos, got, pos, 300_000)) > 0) {  // stops at each window's end
        int windowEnd = Math.min(pos - pos % (256 << 10) + (256 << 10), 700_000);
        assertEquals(Math.min(300_000, windowEnd - pos), n);
        pos += n;
      }
      assertEquals(700_000, pos);
      try (OutputStream out = new java.io.FileOutputStream(f, true)) {
        out.write(data, 700_000, data.length - 700_000);
      }
      while ((n = m.read(pos, got, pos, Math.min(300_000, data.length - pos))) > 0) {
        pos += n;
      }
      assertEquals(data.length, pos);
      assertArrayEquals(data, got);
      assertEquals(-1, m.read(pos, got, 0, 10));
    }
  }

  @Test
  void aFileTruncatedUnderItsMappingFailsTheReadWithAnIoException() throws Exception {
    java.io.File f = tmp.resolve("t").toFile();
    java.nio.file.Files.write(f.toPath(), new byte[1 << 20]);
    try (MappedReads m = new MappedReads(f)) {
      byte[] b = new byte[4096];
      assertEquals(4096, m.read(0, b, 0, 4096));
      try (java.io.RandomAccessFile raf = new java.io.RandomAccessFile(f, "rw")) {
        raf.setLength(0);
      }
      java.io.IOException e = assertThrows(java.io.IOException.class,
          () -> m.read(512 << 10, b, 0, 4096));
      assertTrue(e.getMessage().contains("shrank to 0 bytes"), e.getMessage());
    }
  }
}
