import java.io.File;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;

import io.github.ham.mapreduce.common.HamLocalFileSystem;

/**
 * The file-system calls a map makes on a directory of the test cluster's network file system,
 * before and after (issue 32): the runner's probe of the job's directory (a stat and a listing,
 * then an open of the directory alone; both written out here) and the create of a new file
 * through HAM's raw local file system of the build on the class path (as of 992dc27: open,
 * then the mode set in the JVM; after it: the mode in the open). ms per call, one line per
 * round after a warm-up round; run.sh alternates the two builds.
 *   java -cp "DIST/ham-mapreduce.jar:DIST/share/hadoop/common/*:DIST/share/hadoop/common/lib/*"
 *     NetFsCalls.java DIR ROUNDS CALLS LABEL
 */
public class NetFsCalls {
  public static void main(String[] args) throws Exception {
    Path root = Files.createDirectories(Path.of(args[0]));
    int rounds = Integer.parseInt(args[1]);
    int calls = Integer.parseInt(args[2]);
    String label = args[3];
    // The probed directory holds what a job's directory holds: a dozen entries.
    Path job = Files.createDirectories(root.resolve("job"));
    for (int i = 0; i < 12; i++) {
      Files.createDirectories(job.resolve("entry" + i));
    }
    Path out = Files.createDirectories(root.resolve("out-" + label));
    HamLocalFileSystem ham = new HamLocalFileSystem();
    ham.initialize(new File("/").toURI(), new Configuration(false));
    FileSystem raw = ham.getRawFileSystem();
    for (int r = 0; r <= rounds; r++) {  // round 0 warms the JIT up, not printed
      double list = time(calls, i -> listed(job));
      double open = time(calls, i -> opened(job));
      int round = r;
      double create = time(calls, i -> create(raw, out.resolve(round + "-" + i)));
      if (r > 0) {
        System.out.printf("| %s | %d | %.2f | %.2f | %.2f |%n", label, r, list, open, create);
      }
    }
    try (Stream<Path> files = Files.list(out)) {
      for (Path p : (Iterable<Path>) files::iterator) {
        Files.delete(p);
      }
    }
    Files.delete(out);
  }

  interface Call {
    void run(int i) throws IOException;
  }

  static double time(int calls, Call call) throws IOException {
    long start = System.nanoTime();
    for (int i = 0; i < calls; i++) {
      call.run(i);
    }
    return (System.nanoTime() - start) / 1e6 / calls;
  }

  /** The probe before: SharedFsProbe.reachable as of 992dc27. */
  static void listed(Path dir) throws IOException {
    if (!Files.isDirectory(dir)) {
      throw new IOException("not a directory");
    }
    try (Stream<Path> entries = Files.list(dir)) {
      entries.findFirst();
    }
  }

  /** The probe now: SharedFsProbe.reachable. */
  static void opened(Path dir) throws IOException {
    try (DirectoryStream<Path> opened = Files.newDirectoryStream(dir)) {
      return;
    }
  }

  static void create(FileSystem fs, Path file) throws IOException {
    try (FSDataOutputStream out = fs.create(new org.apache.hadoop.fs.Path(file.toUri()), true)) {
      out.write(new byte[100]);
    }
  }
}
