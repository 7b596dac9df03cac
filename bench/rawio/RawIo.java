import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * One plain Java writer or reader of a file in TestDFSIO's 1,000,000-byte requests (writes
 * TestDFSIO's bytes, not zeros), printing its seconds: what a JVM gets from this disk without
 * Hadoop. Usage: java RawIo write|direct|read|mmap FILE MB. {@code write} writes with write(2)
 * from a native buffer the JVM copies the array into; {@code direct} copies the arrays into a
 * 4 MiB aligned buffer written with O_DIRECT (as lustre:// writes a large file, DirectWrites);
 * {@code read} reads with read(2) into a native buffer that the JVM copies into the array;
 * {@code mmap} maps the file in 64 MB windows and copies from the mapping into the array (one
 * copy, as dd's read(2) makes; as lustre:// reads, MappedReads).
 */
public class RawIo {
  public static void main(String[] a) throws Exception {
    byte[] b = new byte[1_000_000];
    for (int i = 0; i < b.length; i++) {
      b[i] = (byte) ('0' + i % 50);
    }
    long n = Long.parseLong(a[2]) << 20;
    long t0 = System.nanoTime();
    if (a[0].equals("write")) {
      try (FileOutputStream o = new FileOutputStream(a[1])) {
        for (long w = 0; w < n; w += b.length) {
          o.write(b, 0, (int) Math.min(b.length, n - w));
        }
      }
    } else if (a[0].equals("direct")) {
      try (FileChannel ch = FileChannel.open(Path.of(a[1]), StandardOpenOption.CREATE,
          StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING,
          com.sun.nio.file.ExtendedOpenOption.DIRECT)) {
        java.nio.ByteBuffer buf = java.nio.ByteBuffer.allocateDirect((4 << 20) + 4096)
            .alignedSlice(4096).limit(4 << 20);
        long at = 0;
        for (long w = 0; w < n; w += b.length) {
          int len = (int) Math.min(b.length, n - w);
          for (int off = 0; off < len; ) {
            int k = Math.min(len - off, buf.remaining());
            buf.put(b, off, k);
            off += k;
            if (!buf.hasRemaining()) {
              buf.flip();
              while (buf.hasRemaining()) {
                at += ch.write(buf, at);
              }
              buf.clear();
            }
          }
        }
        if (buf.position() > 0) {  // the last block padded, then the file cut back
          int end = buf.position();
          buf.limit((end + 4095) & -4096).position(0);
          while (buf.hasRemaining()) {
            at += ch.write(buf, at);
          }
          ch.truncate(n);
        }
      }
    } else if (a[0].equals("mmap")) {
      try (FileChannel ch = FileChannel.open(Path.of(a[1]), StandardOpenOption.READ)) {
        long size = ch.size();
        for (long pos = 0; pos < size; pos += 64L << 20) {
          MappedByteBuffer m = ch.map(FileChannel.MapMode.READ_ONLY, pos,
              Math.min(64L << 20, size - pos));
          while (m.hasRemaining()) {
            m.get(b, 0, Math.min(b.length, m.remaining()));
          }
        }
      }
    } else {
      try (FileInputStream in = new FileInputStream(a[1])) {
        while (in.read(b, 0, b.length) > 0) {
          continue;
        }
      }
    }
    System.out.printf("%.2f%n", (System.nanoTime() - t0) / 1e9);
  }
}
