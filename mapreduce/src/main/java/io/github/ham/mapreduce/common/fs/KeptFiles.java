package io.github.ham.mapreduce.common.fs;

import java.io.Closeable;
import java.io.File;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Local files a runner reads again and again while a job runs and which do not change while it
 * runs, kept open with their attributes until the runner is done with the job: the job's split
 * file and its checksums. Every map reads its split from job.split through ChecksumFileSystem,
 * which asks for the file's status twice and opens it and its checksum file: four round trips
 * to the servers of a network file system for a few hundred bytes (27 ms of a map attempt's
 * ~250 on the test cluster's GlusterFS, bench/README.md). HAM's local file system serves the
 * status and the opens of a kept file from here (common.HamLocalFileSystem), and reads it with
 * positioned reads of the kept channel; a read that fails drops the file from here and goes on
 * from a new open of it (a file-system client may end its open files when its server restarts).
 */
public final class KeptFiles {
  /** A kept file: a channel for positioned reads, and its attributes when it was kept. */
  public record Kept(FileChannel channel, BasicFileAttributes attributes) {
  }

  private static final Map<String, Kept> KEPT = new ConcurrentHashMap<>();

  private KeptFiles() {
  }

  /** The kept file at {@code file} (an absolute path), or null. */
  public static Kept get(File file) {
    return KEPT.isEmpty() ? null : KEPT.get(file.getPath());
  }

  /**
   * Keeps the regular files among {@code files} (absolute paths) open until the returned
   * handle is closed; one that cannot be opened, or that another handle keeps, is left out.
   */
  public static Closeable keep(File... files) {
    Map<String, Kept> mine = new HashMap<>();
    for (File f : files) {
      FileChannel channel = null;
      try {
        channel = FileChannel.open(f.toPath(), StandardOpenOption.READ);
        BasicFileAttributes a = Files.readAttributes(f.toPath(), BasicFileAttributes.class);
        Kept k = new Kept(channel, a);
        if (a.isRegularFile() && KEPT.putIfAbsent(f.getPath(), k) == null) {
          mine.put(f.getPath(), k);
          channel = null;
        }
      } catch (IOException | RuntimeException e) {
        // not kept: read as any other file
      } finally {
        closeQuietly(channel);
      }
    }
    return () -> mine.forEach(KeptFiles::drop);
  }

  /** Stops serving {@code file} from {@code kept} (a read of its channel failed). */
  public static void drop(File file, Kept kept) {
    drop(file.getPath(), kept);
  }

  private static void drop(String path, Kept kept) {
    if (KEPT.remove(path, kept)) {
      closeQuietly(kept.channel());
    }
  }

  private static void closeQuietly(FileChannel channel) {
    if (channel != null) {
      try {
        channel.close();
      } catch (IOException e) {
        // nothing was written through it
      }
    }
  }
}
