package io.github.ham.mapreduce.lustre;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;

/**
 * A recording stand-in for Lustre's lfs: each call is a line "ARGS..." in a log; setstripe on
 * a path that does not exist creates an empty file (as lfs does); getstripe prints the layout
 * given at construction, in lfs's labelled format.
 */
final class FakeLfs {
  final Path script;
  final Path log;

  FakeLfs(Path dir, int count, long size) throws IOException {
    Files.createDirectories(dir);
    this.log = dir.resolve("lfs.log");
    this.script = dir.resolve("lfs");
    Files.writeString(script, String.join("\n",
        "#!/bin/bash",
        "echo \"$*\" >> '" + log + "'",
        "if [ \"$1\" = setstripe ]; then t=\"${@: -1}\"; [ -e \"$t\" ] || : > \"$t\"; fi",
        "if [ \"$1\" = getstripe ]; then echo \"lmm_stripe_count:  " + count + "\";"
            + " echo \"lmm_stripe_size:   " + size + "\"; fi",
        "exit 0", ""));
    Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwx------"));
  }

  List<String> calls() throws IOException {
    return Files.exists(log) ? Files.readAllLines(log, StandardCharsets.UTF_8) : List.of();
  }

  /** A new directory under the one the test JVM treats as Lustre (HAM_LUSTRE_MOUNTS). */
  static Path onLustre(String name) throws IOException {
    String mounts = System.getenv("HAM_LUSTRE_MOUNTS");
    if (mounts == null) {
      throw new IllegalStateException("HAM_LUSTRE_MOUNTS is unset: run the tests with Maven");
    }
    Path dir = Path.of(mounts.split(":")[0], name + "-" + System.nanoTime());
    Files.createDirectories(dir);
    return dir;
  }

  static boolean hasCrcFiles(File dir) throws IOException {
    try (var s = Files.walk(dir.toPath())) {
      return s.anyMatch(p -> p.getFileName().toString().endsWith(".crc"));
    }
  }
}
