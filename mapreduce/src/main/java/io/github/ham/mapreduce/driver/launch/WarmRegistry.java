package io.github.ham.mapreduce.driver.launch;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

import io.github.ham.mapreduce.common.protocol.WarmClaims;

/**
 * The session's registry of parked runners, as a driver sees it (the runners write it:
 * runner.WarmPark): one file per parked runner in {@code parked/}; a job reserves one by renaming
 * it to a hidden name (a rename wins once).
 */
final class WarmRegistry {
  private static final Pattern FINAL_STATE = Pattern.compile(
      "\"state\"\\s*:\\s*\"(SUCCEEDED|FAILED|KILLED)\"");
  private final File parked;

  /** A parked runner's entry, as read from the registry. */
  record Parked(File file, WarmClaims.Entry entry) {
  }

  WarmRegistry(File parked) {
    this.parked = parked;
  }

  /**
   * The parked runners not reserved, in name order: jobs claiming at once try the same entry
   * first (see reserve).
   */
  List<Parked> parked() {
    List<Parked> out = new ArrayList<>();
    for (File f : entries()) {
      WarmClaims.Entry e = WarmClaims.Entry.read(f);
      if (e != null) {
        out.add(new Parked(f, e));
      }
    }
    return out;
  }

  /** The registry's entry files, reserved ones left out, in name order. */
  private File[] entries() {
    File[] files = parked.listFiles((d, n) -> n.endsWith(WarmClaims.SUFFIX) && !n.startsWith("."));
    files = files == null ? new File[0] : files;
    Arrays.sort(files);
    return files;
  }

  /** Whether the job a parked runner served has its final status record (or is unknown). */
  static boolean ended(String jobDir) {
    if (jobDir.isEmpty()) {
      return true;
    }
    try {
      return FINAL_STATE.matcher(Files.readString(new File(jobDir, "status.json").toPath()))
          .find();
    } catch (IOException e) {
      return false;
    }
  }

  /**
   * Renames each entry to this job's reservation, in order, up to the first one another job
   * got (a rename wins once); the ones this job got. Stopping there is what lets one of two
   * jobs claiming the same runners at once win them all: both try the same entry first, and
   * the loser takes no more, rather than each taking part of the set and both giving it up.
   */
  List<Parked> reserve(List<Parked> chosen, String jobId) {
    List<Parked> out = new ArrayList<>();
    for (Parked p : chosen) {
      File to = new File(p.file().getParentFile(), "." + p.file().getName() + "." + jobId);
      if (!(p.file().renameTo(to) && to.exists())) {
        break;
      }
      out.add(new Parked(to, p.entry()));
    }
    return out;
  }

  void unreserve(List<Parked> reserved) {
    for (Parked p : reserved) {
      String name = p.file().getName();
      File back = new File(p.file().getParentFile(),
          name.substring(1, name.indexOf(WarmClaims.SUFFIX) + WarmClaims.SUFFIX.length()));
      if (!p.file().renameTo(back)) {
        p.file().delete();
      }
    }
  }

  /**
   * Waits up to {@code waitMs} until {@code expected} runners of the job in {@code jobDir}
   * have parked (their registry entries written): the job ends with its runners ready for the
   * session's next job, which would otherwise start a step of its own when it comes at once.
   * Returns how many had parked.
   */
  int awaitParked(String jobDir, int expected, long waitMs) {
    long deadline = System.currentTimeMillis() + waitMs;
    // Each entry is read once: it appears whole (written aside, then renamed) and no job can
    // claim this job's runners before this job's status is final.
    Set<String> read = new HashSet<>();
    int n = 0;
    while (true) {
      for (File f : entries()) {
        if (!read.contains(f.getName())) {
          WarmClaims.Entry e = WarmClaims.Entry.read(f);
          if (e != null) {
            read.add(f.getName());
            if (jobDir.equals(e.job())) {
              n++;
            }
          }
        }
      }
      if (n >= expected || System.currentTimeMillis() >= deadline) {
        return n;
      }
      try {
        Thread.sleep(20);
      } catch (InterruptedException ex) {
        Thread.currentThread().interrupt();
        return n;
      }
    }
  }
}
