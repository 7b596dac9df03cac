package io.github.ham.mapreduce.runner;

import java.io.File;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;

import io.github.ham.mapreduce.common.Causes;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether a directory on the shared file system answers: it exists and can be opened. A client
 * whose server is away answers ENOTCONN or EIO at once on some file systems (GlusterFS), where
 * a Lustre client blocks until the server is back.
 */
final class SharedFsProbe {
  private static final Logger LOG = LoggerFactory.getLogger(SharedFsProbe.class);

  private SharedFsProbe() {
  }

  /**
   * Before {@code what} (an attempt) is set up: if the job's directory {@code dir} does not
   * answer (a file-system server restarting), waits up to {@code waitMs} for it, calling
   * {@code meanwhile} (the attempt's ping to the driver) every second, saying so in the log.
   * Returns false if it still does not answer.
   */
  static boolean awaitAnswer(File dir, long waitMs, Runnable meanwhile, Object what)
      throws InterruptedException {
    if (reachable(dir)) {
      return true;
    }
    LOG.warn("The job's directory {} does not answer (the shared file system); waiting up to {} "
        + "s before setting up {}", dir, waitMs / 1000, what);
    long start = System.currentTimeMillis();
    boolean back = await(dir, waitMs, 1000, meanwhile);
    LOG.warn("The job's directory {} {} after {} ms", dir,
        back ? "answers again" : "still does not answer", System.currentTimeMillis() - start);
    return back;
  }

  /**
   * Whether a failed attempt may have failed because of the job's state cached in the runner
   * rather than the task: the job's directory does not answer, a class or the job's jar could
   * not be read (a jar handle that died with a restarted server), or a class failed to
   * initialize (a class of the job's jars stays so in its class loader: FreshJvm).
   */
  static boolean mayBeJobState(Throwable t, File dir) {
    if (!reachable(dir)) {
      return true;
    }
    return Causes.any(t, c -> c instanceof ClassNotFoundException
        || c instanceof NoClassDefFoundError || c instanceof ExceptionInInitializerError
        || c instanceof java.util.zip.ZipException);
  }

  /**
   * Opens the directory and closes it, without reading it: the open goes to the file system's
   * server (a GlusterFS client whose server is away fails it with ENOTCONN; a stat may be
   * answered from the client's cache), and fails for a missing directory or a file. A task used
   * to stat the directory and list it: on the test cluster's GlusterFS 2.4-3.3 ms a probe
   * against 1.0-1.5 (bench/results/trials/runner-cuts/netfs-calls). Seen to fail through the
   * server's restart (test_netfs_faults.py).
   */
  static boolean reachable(File dir) {
    try (DirectoryStream<Path> opened = Files.newDirectoryStream(dir.toPath())) {
      return true;
    } catch (IOException | java.nio.file.InvalidPathException e) {
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
