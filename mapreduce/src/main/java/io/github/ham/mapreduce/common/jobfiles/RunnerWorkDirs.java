package io.github.ham.mapreduce.common.jobfiles;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.apache.hadoop.fs.FileUtil;

/**
 * Node-local working directories of the runners (ham.runner.local.dir), as YARN's container
 * directories are node-local: {@code <dir>/ham-<user>/<allocation>/<job tag>/g<gen>-p<task>}.
 * Every task rewrites its job.xml there, which on a network file system cost several times
 * what it costs on a local disk (bench/README.md, "Metadata calls per task on the network
 * file system"). The user's top directory is private (0700, checked by the runner's shell: a
 * name in /tmp may have been made by someone else); a runner removes its own directory when it
 * exits, and the SPANK plugin's epilog {@code <dir>/ham-<user>/<Slurm job id>} on each node
 * (slurm-plugins/ham_dirs.c, whose prefix tests/unit/test_contract.py compares with this one).
 */
public final class RunnerWorkDirs {
  /** The user's directory under the node-local one: PREFIX + user name. */
  public static final String LOCAL_PREFIX = "ham-";
  /** ham.runner.local.dir's value for the job's directory on the shared file system. */
  public static final String NONE = "none";
  /** Environment of a runner's step: where it makes its working directory. */
  public static final String ENV_ROOT = "HAM_WORK_ROOT";
  /** Environment of a runner's step: the user's private node-local directory (unset: shared). */
  public static final String ENV_TOP = "HAM_WORK_TOP";
  /** Environment of a runner's step: where it works if it cannot on its node (shared). */
  public static final String ENV_SHARED = "HAM_WORK_SHARED";

  private RunnerWorkDirs() {
  }

  /** The user's private directory under node-local {@code dir}. */
  public static File top(String dir, String user) {
    return new File(dir, LOCAL_PREFIX + user);
  }

  /**
   * The node-local root of one job's runners: under the allocation's directory (what the
   * epilog removes), named by the job and its job directory, so that two sessions of one
   * allocation whose clients started in the same millisecond (the same job id) do not share it.
   */
  public static File jobRoot(File top, String allocation, String jobId, File jobDir) {
    return new File(new File(top, allocation), jobId + "." + shortHash(jobDir.getAbsolutePath()));
  }

  private static String shortHash(String s) {
    try {
      byte[] d = MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(d, 0, 4);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * At a runner's exit: removes its working directory {@code workDir} (the JVM's current one,
   * as it was at the start) when its step's environment says it is node-local, as a
   * container's goes with its container; one on the shared file system goes with the job's
   * directory.
   */
  public static void removeMine(Map<String, String> env, File workDir,
      List<ProcessHandle> killed) {
    String top = env.get(ENV_TOP);
    if (top == null || top.isEmpty()) {
      return;
    }
    // The task's processes, just killed, may still be writing there: a second at most.
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
    for (ProcessHandle p : killed) {
      try {
        p.onExit().get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      } catch (ExecutionException | TimeoutException e) {
        break;
      }
    }
    removeOwn(workDir, new File(top));
  }

  /**
   * Removes a runner's node-local working directory {@code workDir} (links are removed, not
   * followed) and then its parents up to {@code top}, each only if empty (other runners of the
   * node may still be in them). Does nothing unless {@code workDir} is under {@code top}.
   * Returns whether {@code workDir} is gone.
   */
  public static boolean removeOwn(File workDir, File top) {
    Path dir;
    Path stop;
    try {
      // Compared as the kernel names them: the JVM's current directory is the physical path,
      // while the setting may go through a link (/tmp -> /local/tmp).
      dir = workDir.toPath().toRealPath();
      stop = top.toPath().toRealPath();
    } catch (IOException e) {
      return false;  // gone already, or never made
    }
    if (!dir.startsWith(stop) || dir.equals(stop)) {
      return false;
    }
    if (!FileUtil.fullyDelete(dir.toFile())) {
      return false;
    }
    for (Path p = dir.getParent(); p != null && !p.equals(stop) && p.startsWith(stop);
        p = p.getParent()) {
      try {
        Files.delete(p);
      } catch (IOException e) {
        break;  // not empty (another runner's), gone, or not ours to remove: the rest stays
      }
    }
    return true;
  }
}
