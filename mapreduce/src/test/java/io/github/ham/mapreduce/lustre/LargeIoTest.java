package io.github.ham.mapreduce.lustre;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

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
    try (FileSystem fs = LustreFileSystemTest.lustre(LustreFileSystemTest.conf(tmp))) {
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
}
