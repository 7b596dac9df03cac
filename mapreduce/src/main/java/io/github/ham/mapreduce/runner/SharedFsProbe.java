package io.github.ham.mapreduce.runner;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/**
 * Whether a directory on the shared file system answers: it exists and can be listed. A client
 * whose server is away answers ENOTCONN or EIO at once on some file systems (GlusterFS), where
 * a Lustre client blocks until the server is back.
 */
final class SharedFsProbe {
  private SharedFsProbe() {
  }

  static boolean reachable(File dir) {
    Path p = dir.toPath();
    if (!Files.isDirectory(p)) {
      return false;
    }
    try (Stream<Path> entries = Files.list(p)) {
      entries.findFirst();
      return true;
    } catch (IOException | java.io.UncheckedIOException e) {
      return false;
    }
  }

  /**
   * Polls {@code dir} every {@code pollMs} until it answers or {@code waitMs} passed, calling
   * {@code meanwhile} between polls; returns whether it answers.
   */
  static boolean await(File dir, long waitMs, long pollMs, Runnable meanwhile)
      throws InterruptedException {
    long deadline = System.currentTimeMillis() + waitMs;
    while (!reachable(dir)) {
      if (System.currentTimeMillis() >= deadline) {
        return false;
      }
      meanwhile.run();
      Thread.sleep(pollMs);
    }
    return true;
  }
}
