package org.apache.hadoop.util;

import java.io.File;
import java.io.IOException;
import java.util.jar.JarFile;

/**
 * {@code hadoop jar} in HAM's bundle: Hadoop's RunJar, except that a job jar with nothing in it
 * for the class path beyond the jar itself (no {@code classes/} and no {@code lib/} entries) is
 * run from the jar without first being unpacked into a temporary directory. Unpacking writes
 * every entry as a file: 0.3 s of the client's CPU for the 900 entries of Hadoop's
 * jobclient-tests jar on the development machine, before the job is even submitted
 * (bench/results/client-unjar), and seconds for a fat jar of many classes. RunJar puts the
 * unpacked directory ahead of the jar on the class path, so when they hold the same entries
 * the classes and resources found are the same; only a resource's URL differs (inside the jar
 * rather than a file of the directory). {@code -Dham.client.unjar=always} (the launcher's
 * setting client_unjar) unpacks every jar, as Hadoop does; Hadoop's own
 * {@code HADOOP_CLIENT_SKIP_UNJAR=true} still skips it for every jar.
 */
public class HamRunJar extends RunJar {
  /** System property: "always" unpacks every job jar, as Hadoop's RunJar does; else "auto". */
  public static final String UNJAR_PROPERTY = "ham.client.unjar";
  private boolean nothingToUnpack;

  public static void main(String[] args) throws Throwable {
    new HamRunJar().run(args);
  }

  @Override
  public void run(String[] args) throws Throwable {
    nothingToUnpack = args.length > 0 && !"always".equals(System.getProperty(UNJAR_PROPERTY))
        && !addsToClassPath(new File(args[0]));
    super.run(args);
  }

  /**
   * Whether unpacking {@code jar} adds to the class path (classes/ or lib/ entries); true when
   * it cannot be read, for RunJar to say what is wrong with it. Reads the jar's directory only.
   */
  static boolean addsToClassPath(File jar) {
    try (JarFile j = new JarFile(jar)) {
      return j.stream().anyMatch(e -> e.getName().startsWith("classes/")
          || e.getName().startsWith("lib/"));
    } catch (IOException | RuntimeException e) {
      return true;
    }
  }

  @Override
  boolean skipUnjar() {
    return nothingToUnpack || super.skipUnjar();
  }
}
