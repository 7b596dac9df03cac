package io.github.ham.mapreduce.common.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Which failures leave a runner's JVM unusable for its later tasks. */
class FreshJvmTest {
  /** A class of the runner's own class path whose static initializer fails. */
  static final class FailsToInitialize {
    static final int VALUE = Integer.parseInt(System.getProperty("no.such.property.here", "x"));
  }

  private static Throwable use() {
    try {
      return new AssertionError("initialized: " + FailsToInitialize.VALUE);
    } catch (Throwable t) {
      return t;
    }
  }

  private static final ClassLoader OWN = FreshJvm.class.getClassLoader();

  @Test
  void aClassOfTheRunnersOwnLeftUninitializedNeedsAFreshJvm() {
    Throwable first = use();
    Throwable later = use();
    assertTrue(first instanceof ExceptionInInitializerError, String.valueOf(first));
    assertTrue(later instanceof NoClassDefFoundError, String.valueOf(later));
    String name = FailsToInitialize.class.getName();
    assertEquals(Set.of(name), FreshJvm.uninitialized(first));
    assertEquals(Set.of(name), FreshJvm.uninitialized(later));
    assertTrue(FreshJvm.needed(first, OWN));
    assertTrue(FreshJvm.needed(later, OWN));
    assertTrue(FreshJvm.needed(new RuntimeException("wrapped", later), OWN));
  }

  @Test
  void otherFailuresDoNot() {
    assertFalse(FreshJvm.needed(new NoClassDefFoundError("org/example/Missing"), OWN));
    assertFalse(FreshJvm.needed(new IOException("disk full"), OWN));
    assertFalse(FreshJvm.needed(new OutOfMemoryError("Java heap space"), OWN));
    assertFalse(FreshJvm.needed(new ExceptionInInitializerError("no cause"), OWN));
  }

  /** A class of the job's jars (another class loader) goes with that loader: no fresh JVM. */
  @Test
  void aClassOfTheJobsJarsDoesNot(@TempDir Path dir) throws Exception {
    Path src = dir.resolve("src/jobpkg/Fragile.java");
    Files.createDirectories(src.getParent());
    Files.writeString(src, "package jobpkg; public class Fragile { static { if (true) throw "
        + "new IllegalStateException(\"job class\"); } public static void touch() {} }");
    File classes = dir.resolve("classes").toFile();
    assertEquals(0, javax.tools.ToolProvider.getSystemJavaCompiler().run(null, null, null,
        "-d", classes.getPath(), src.toString()));
    try (URLClassLoader job = new URLClassLoader(new URL[] {classes.toURI().toURL()}, OWN)) {
      Throwable first = null;
      try {
        Class.forName("jobpkg.Fragile", true, job);
      } catch (Throwable t) {
        first = t;
      }
      Throwable later = null;
      try {
        Class.forName("jobpkg.Fragile", true, job);
      } catch (Throwable t) {
        later = t;
      }
      assertEquals(Set.of("jobpkg.Fragile"), FreshJvm.uninitialized(first));
      assertEquals(Set.of("jobpkg.Fragile"), FreshJvm.uninitialized(later));
      assertFalse(FreshJvm.needed(first, OWN));
      assertFalse(FreshJvm.needed(later, OWN));
    }
  }
}
