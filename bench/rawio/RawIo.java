import java.io.FileInputStream;
import java.io.FileOutputStream;

/**
 * One plain Java writer or reader of a file in TestDFSIO's 1,000,000-byte requests (writes
 * TestDFSIO's bytes, not zeros), printing its seconds: what a JVM gets from this disk without
 * Hadoop. Usage: java RawIo write|read FILE MB
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
