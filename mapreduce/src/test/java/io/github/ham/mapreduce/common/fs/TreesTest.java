package io.github.ham.mapreduce.common.fs;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class TreesTest {
  @TempDir
  Path tmp;

  /** A job's intermediate/: attempt directories of files, a nested one, a stray file. */
  private Path tree() throws IOException {
    Path root = tmp.resolve("intermediate");
    for (int i = 0; i < 20; i++) {
      Path a = Files.createDirectories(root.resolve("attempt_" + i));
      Files.writeString(a.resolve("file.out"), "x");
      Files.writeString(a.resolve("file.out.index"), "y");
    }
    Files.writeString(Files.createDirectories(root.resolve("attempt_0/spill/deeper"))
        .resolve("spill0.out"), "z");
    Files.writeString(root.resolve("stray"), "s");
    return root;
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 8})
  void deletesTheWholeTree(int threads) throws IOException {
    Path root = tree();
    assertTrue(Trees.delete(root.toFile(), threads));
    assertFalse(Files.exists(root));
  }

  @Test
  void aLinkIsRemovedNotFollowed() throws IOException {
    Path root = tree();
    Path outside = Files.createDirectories(tmp.resolve("outside"));
    Files.writeString(outside.resolve("keep"), "k");
    Files.createSymbolicLink(root.resolve("attempt_1/link"), outside);
    Files.createSymbolicLink(root.resolve("link"), outside);
    assertTrue(Trees.delete(root.toFile(), 8));
    assertFalse(Files.exists(root));
    assertTrue(Files.exists(outside.resolve("keep")));
    Path link = Files.createSymbolicLink(tmp.resolve("top-link"), outside);
    assertTrue(Trees.delete(link.toFile(), 8));
    assertFalse(Files.exists(link, java.nio.file.LinkOption.NOFOLLOW_LINKS));
    assertTrue(Files.exists(outside.resolve("keep")));
  }

  @Test
  void aMissingDirectoryIsGoneAlreadyAndAFileIsDeleted() throws IOException {
    assertTrue(Trees.delete(new File(tmp.toFile(), "absent"), 8));
    Path f = Files.writeString(tmp.resolve("f"), "x");
    assertTrue(Trees.delete(f.toFile(), 8));
    assertFalse(Files.exists(f));
  }
}
