package io.github.ham.mapreduce.common.protocol;

import java.util.LinkedHashSet;
import java.util.Set;

import io.github.ham.mapreduce.common.Causes;

/**
 * A runner whose JVM a task left unusable asks for a fresh one: it exits with
 * {@link #EXIT_STATUS} after reporting the attempt's failure, and the driver replaces it on its
 * node as any lost runner, counted against ham.runner.max.relaunches (a class that fails to
 * initialize in every JVM, a site's broken jar say, must not have thousands of runners replaced
 * wave after wave until a task runs out of attempts). On YARN every attempt has a JVM of its
 * own; a HAM runner's tasks share one, so a class whose static initializer failed once stays
 * uninitialized for every later task of the runner, which fails at once with "Could not
 * initialize class" and uses up the task's attempts in seconds. In CI that class was Hadoop's
 * FileSystem, reading its configuration while the file system's server restarted. Only a class
 * of the runner's own class path (Hadoop, HAM, the JDK) needs a fresh JVM: a class of the job's
 * jars goes with the job's class loader, which the runner drops after such a failure (the next
 * task loads the class anew).
 */
public final class FreshJvm {
  /** The runner's exit status when it wants a fresh JVM (sysexits' EX_TEMPFAIL). */
  public static final int EXIT_STATUS = 75;
  private static final String NOT_INITIALIZED = "Could not initialize class ";

  private FreshJvm() {
  }

  /**
   * Whether {@code t} shows a class that {@code own} (the runner's class loader) loads left
   * uninitialized for good.
   */
  public static boolean needed(Throwable t, ClassLoader own) {
    for (String name : uninitialized(t)) {
      try {
        Class.forName(name, false, own);
        return true;
      } catch (ClassNotFoundException | LinkageError e) {
        // Not the runner's: the job's, gone with its class loader.
      }
    }
    return false;
  }

  /**
   * The classes {@code t} shows left uninitialized: those whose static initializer threw (an
   * ExceptionInInitializerError's cause, thrown from their {@code <clinit>}), and those a
   * later use found so (NoClassDefFoundError "Could not initialize class X").
   */
  public static Set<String> uninitialized(Throwable t) {
    Set<String> out = new LinkedHashSet<>();
    for (Throwable c : Causes.of(t)) {
      if (c instanceof ExceptionInInitializerError && c.getCause() != null) {
        for (StackTraceElement f : c.getCause().getStackTrace()) {
          if (f.getMethodName().equals("<clinit>")) {
            out.add(f.getClassName());
          }
        }
      } else if (c instanceof NoClassDefFoundError && c.getMessage() != null
          && c.getMessage().startsWith(NOT_INITIALIZED)) {
        out.add(c.getMessage().substring(NOT_INITIALIZED.length()).trim());
      }
    }
    return out;
  }
}
