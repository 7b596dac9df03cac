package org.apache.hadoop.util;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HamRunJarTest {
  /** The main class the jars name: on the test class path, so any jar can run it. */
  public static final class Noop {
    public static void main(String[] args) {
    }
  }

  private static File jar(Path dir, String... entries) throws IOException {
    File f = dir.resolve(String.join("_", entries).replace('/', '-') + ".jar").toFile();
    try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(f.toPath()))) {
      for (String e : entries) {
        out.putNextEntry(new JarEntry(e));
        out.write(e.getBytes());
        out.closeEntry();
      }
    }
    return f;
  }

  /** The files RunJar unpacked for a run of {@code jar} (its work directory is new). */
  private static Set<String> unpacked(File jar) throws Throwable {
    File tmp = new File(System.getProperty("java.io.tmpdir"));  // where RunJar unpacks
    Set<String> before = names(tmp);
    new HamRunJar().run(new String[] {jar.getPath(), Noop.class.getName()});
    Set<String> created = names(tmp);
    created.removeAll(before);
    assertEquals(1, created.size(), "one work directory: " + created);
    File work = new File(tmp, created.iterator().next());
    Set<String> files = new HashSet<>();
    try (var walk = Files.walk(work.toPath())) {
      walk.filter(Files::isRegularFile).forEach(p -> files.add(work.toPath().relativize(p)
          .toString()));
    }
    return files;
  }

  private static Set<String> names(File dir) {
    String[] n = dir.list((d, name) -> name.startsWith("hadoop-unjar"));
    return n == null ? new HashSet<>() : new HashSet<>(Set.of(n));
  }

  @Test
  void aJarWithNothingForTheClassPathRunsFromItself(@TempDir Path dir) throws Throwable {
    File plain = jar(dir, "app/Main.class", "app.properties");
    assertFalse(HamRunJar.addsToClassPath(plain));
    assertEquals(Set.of(), unpacked(plain));
  }

  @Test
  void aJarWithLibOrClassesIsUnpackedAsHadoopDoes(@TempDir Path dir) throws Throwable {
    File fat = jar(dir, "app/Main.class", "lib/dep.jar");
    assertTrue(HamRunJar.addsToClassPath(fat));
    assertTrue(HamRunJar.addsToClassPath(jar(dir, "classes/app/Main.class")));
    assertEquals(Set.of("app/Main.class", "lib/dep.jar"), unpacked(fat));
  }

  @Test
  void anUnreadableJarIsLeftToRunJar(@TempDir Path dir) throws IOException {
    File bad = dir.resolve("bad.jar").toFile();
    try (OutputStream out = Files.newOutputStream(bad.toPath())) {
      out.write("not a jar".getBytes());
    }
    assertTrue(HamRunJar.addsToClassPath(bad));
  }
}
