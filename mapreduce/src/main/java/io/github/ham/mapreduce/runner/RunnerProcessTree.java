package io.github.ham.mapreduce.runner;

import java.io.File;
import java.io.FileInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

import org.apache.hadoop.util.SysInfoLinux;
import org.apache.hadoop.yarn.util.ResourceCalculatorProcessTree;

/**
 * The process tree of a task's JVM for its CPU and memory counters, as Hadoop's
 * ProcfsBasedProcessTree gives them (the same figures from the same /proc/PID/stat fields:
 * utime + stime summed over the tree, each process's CPU counted up to the last update that
 * saw it; rss pages x page size; vsize), but found from the JVM down rather than from every
 * process of the machine: ProcfsBasedProcessTree reads /proc/PID/stat of every process on the
 * node to find the JVM's descendants, twice a task (Task.initialize and Task.done), which cost
 * 12 of a runner's ~21 ms of CPU per one-line wordcount map on a busy node
 * (bench/results/runner-profile-wordcount). Here a process's children come from
 * /proc/PID/task/TID/children (Linux 3.5+ with CONFIG_PROC_CHILDREN): a runner's JVM that
 * started no process reads its threads' children files and its own stat file.
 * <p>A JVM that has started no process has no children to look for. Every process is given
 * a pid in the JVM's pid namespace (one created in a namespace below it too), one after the
 * other (/proc/loadavg's last field names the newest). So when the last look from the same
 * root found it without children, its only possible descendants are the pids given since (a
 * few a task on a node with a few runners, each starting two threads a task): an update reads
 * the stat files of those that are neither the JVM's own threads nor gone (one stat of a path
 * tells each), and only if one of them is a child of the root (or too many were given) looks at
 * every thread's children again. A pid given since whose process has ended leaves no
 * descendant: its own children went to init or a subreaper, as they would for the full scan.
 * A pid is given before its process shows in /proc and in its parent's list of children (for
 * microseconds, while the kernel copies the parent): the next update looks again at the pids
 * that had no stat file, and, after a full scan, at the few newest before it. The tasks of a
 * runner each make their own tree (Hadoop's Task.initialize), so what the last look found is
 * kept per JVM; a full scan still comes at least every {@link #FULL_SCAN_EVERY_MS} ms, against
 * pids that wrapped round past the last one seen.
 * <p>The runner names this class in mapreduce.job.process-tree.class when the job names none
 * and the kernel has these files ({@link #available}); otherwise Hadoop's default stays.
 */
public final class RunnerProcessTree extends ResourceCalculatorProcessTree {
  private static final Path PROC = Path.of("/proc");
  static final long FULL_SCAN_EVERY_MS = 1000;
  /** Most pids given since the last scan that an update checks one by one (a full scan reads
   * a children file per thread of the JVM, ~30). */
  static final int MAX_NEW_PIDS = 24;
  /** Whether /proc shows this JVM's own pid namespace (the pids /proc/loadavg counts in). */
  private static final boolean PROC_IS_OURS = procIsOurs();

  /** The newest pids before a full scan that the next update looks at again (see above). */
  static final int IN_FLIGHT = 4;

  /**
   * The root had no descendants when {@code lastPid} was the newest pid, but for those of
   * {@code again} that had no stat file yet; the last full scan began at {@code scannedAtNanos}.
   */
  private record Childless(String root, long lastPid, long[] again, long scannedAtNanos) {
  }

  private static volatile Childless childless;

  /** The pids the next update looks at again (for tests). */
  static long[] lookAgain() {
    Childless c = childless;
    return c == null ? null : c.again().clone();
  }

  /** A process as last seen: its CPU (jiffies), memory, and how many updates saw it. */
  private static final class Seen {
    long jiffies;
    long rssPages;
    long vmemBytes;
    int age;
  }

  private final String pid;
  /** Holds one /proc file at a time: a stat line, or a thread's list of children. */
  private byte[] buf = new byte[8192];
  private Map<String, Seen> tree = new HashMap<>();
  /** CPU of the tree so far, in jiffies: every process's share up to its last update. */
  private long cpuJiffies;
  private boolean cpuSeen;
  private final LongSupplier newestPids;
  private final LongSupplier nanoClock;
  /** Whether the root is this JVM, whose threads are the directories under {@link #ownTasks}. */
  private final boolean rootIsThisJvm;
  private final String ownTasks;
  /** Updates that looked for children (package-private for tests). */
  int scans;
  /** Pids found to be no child without reading a stat file: the root's own threads, and pids
   * whose process has gone (for tests). */
  int statsNotRead;

  public RunnerProcessTree(String pid) {
    this(pid, null, System::nanoTime);
  }

  /** With {@code newestPids} null, the kernel's newest pid ({@link #newestPid}). */
  RunnerProcessTree(String pid, LongSupplier newestPids, LongSupplier nanoClock) {
    super(pid);
    this.pid = pid == null || pid.isEmpty() ? Long.toString(ProcessHandle.current().pid())
        : pid;
    this.newestPids = newestPids == null ? this::newestPid : newestPids;
    this.nanoClock = nanoClock;
    this.rootIsThisJvm = PROC_IS_OURS
        && this.pid.equals(Long.toString(ProcessHandle.current().pid()));
    this.ownTasks = "/proc/" + this.pid + "/task/";
  }

  /** Whether this kernel lists a thread's children (/proc/self/task/TID/children). */
  public static boolean available() {
    return Files.isReadable(PROC.resolve("thread-self/children"));
  }

  @Override
  public void updateProcessTree() {
    long newest = newestPids.getAsLong();
    long now = nanoClock.getAsLong();
    Childless last = childless;
    List<Long> unseen = new ArrayList<>();
    boolean scan = needsScan(last, newest, now, unseen);
    if (scan) {
      scans++;
    }
    update(scan);
    if (newest < 0 || !(tree.size() == 1 && tree.containsKey(pid))) {
      childless = null;  // the next update scans
    } else if (scan) {
      long[] again = new long[(int) Math.min(IN_FLIGHT, newest)];
      for (int i = 0; i < again.length; i++) {
        again[i] = newest - i;
      }
      childless = new Childless(pid, newest, again, now);
    } else {
      childless = new Childless(pid, newest,
          unseen.stream().mapToLong(Long::longValue).toArray(), last.scannedAtNanos());
    }
  }

  /**
   * Whether this update must read every thread's children: no last look from this root that
   * found it childless (or no newest pid), a second since its full scan, pids that wrapped
   * round or too many to read one by one, or a child of the root among the pids given since
   * and those without a stat file last time; the pids without one now go to {@code unseen}.
   */
  private boolean needsScan(Childless last, long newest, long now, List<Long> unseen) {
    if (newest < 0 || last == null || !last.root().equals(pid)
        || now - last.scannedAtNanos() >= TimeUnit.MILLISECONDS.toNanos(FULL_SCAN_EVERY_MS)
        || newest < last.lastPid() || newest - last.lastPid() > MAX_NEW_PIDS) {
      return true;
    }
    for (long q : last.again()) {
      if (isChild(q, null)) {
        return true;
      }
    }
    for (long q = last.lastPid() + 1; q <= newest; q++) {
      if (isChild(q, unseen)) {
        return true;
      }
    }
    return false;
  }

  /**
   * Whether process {@code q} is the root's child; one without a stat file goes to
   * {@code unseen} (if given).
   */
  boolean isChild(long q, List<Long> unseen) {
    // Most pids given since are threads, of this JVM or of others (two a map in every runner),
    // and many have ended by the next look. One stat of a path settles both: reading a stat
    // file costs the kernel's sum over the thread's whole process and its ~50 fields, and a
    // gone pid's read costs an exception (these checks: 0.19-0.24 ms a task before, 0.13-0.14
    // after, bench/results/trials/runner-cuts/small-cuts).
    if (rootIsThisJvm && new File(ownTasks + q).exists()) {
      statsNotRead++;
      return false;  // a thread of the root itself
    }
    String proc = "/proc/" + q;
    String text;
    if (new File(proc).exists()) {
      text = read(proc + "/stat");
    } else {
      statsNotRead++;
      text = "";
    }
    // The parent's pid is the field after the state, which follows the command's name (the
    // last ')': a name may hold spaces and parentheses).
    int end = text.lastIndexOf(')');
    if (end < 0) {
      if (unseen != null) {
        unseen.add(q);
      }
      return false;
    }
    int from = text.indexOf(' ', end + 2) + 1;
    int to = text.indexOf(' ', from);
    return from > 0 && to - from == pid.length() && text.regionMatches(from, pid, 0, to - from);
  }

  /** The tree from the root down, or the root alone when {@code scan} is false. */
  private void update(boolean scan) {
    Map<String, Seen> next = new LinkedHashMap<>();
    Deque<String> todo = new ArrayDeque<>();
    todo.add(pid);
    while (!todo.isEmpty()) {
      String p = todo.poll();
      Seen now = stat(p);
      if (now == null || next.containsKey(p)) {
        continue;  // ended since its parent listed it
      }
      Seen before = tree.get(p);
      long delta = before == null ? now.jiffies : now.jiffies - before.jiffies;
      cpuJiffies += Math.max(0, delta);
      cpuSeen = true;
      now.age = before == null ? 1 : before.age + 1;
      next.put(p, now);
      if (scan) {
        todo.addAll(children(p));
      }
    }
    tree = next;
  }

  /**
   * The pid the JVM's pid namespace gave last (to a process or a thread), or -1 if unknown:
   * the last field of /proc/loadavg ("0.20 0.18 0.12 1/80 11206").
   */
  long newestPid() {
    String text = PROC_IS_OURS ? read("/proc/loadavg").trim() : "";
    try {
      return Long.parseLong(text.substring(text.lastIndexOf(' ') + 1));
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  /**
   * A /proc file's text ("" if it is gone), read to its end: a thread's list of children comes a
   * page (~4 KB, ~600 pids) a read, whatever was asked for, and may be longer than the buffer.
   */
  private String read(String path) {
    try (FileInputStream in = new FileInputStream(path)) {
      int n = 0;
      for (int r; (r = in.read(buf, n, buf.length - n)) > 0; ) {
        n += r;
        if (n == buf.length) {
          buf = Arrays.copyOf(buf, buf.length * 2);
        }
      }
      return new String(buf, 0, n, StandardCharsets.US_ASCII);
    } catch (IOException e) {
      return "";
    }
  }

  private static boolean procIsOurs() {
    try {
      return Files.readSymbolicLink(PROC.resolve("self")).toString()
          .equals(Long.toString(ProcessHandle.current().pid()));
    } catch (IOException | RuntimeException e) {
      return false;
    }
  }

  /** utime + stime, rss and vsize of a process, or null if it is gone. */
  private Seen stat(String p) {
    String text = read("/proc/" + p + "/stat");
    if (text.isEmpty()) {
      return null;
    }
    // Fields after the command name (which may hold spaces and parentheses): state is the
    // first, utime the 12th, stime the 13th, vsize the 21st, rss the 22nd.
    String[] f = text.substring(text.lastIndexOf(')') + 2).split(" ");
    if (f.length < 22) {
      return null;
    }
    Seen s = new Seen();
    s.jiffies = Long.parseLong(f[11]) + Long.parseLong(f[12]);
    s.vmemBytes = Long.parseLong(f[20]);
    s.rssPages = Long.parseLong(f[21]);
    return s;
  }

  /** The children of every thread of a process (none once it ended). */
  private List<String> children(String p) {
    List<String> out = new ArrayList<>();
    String[] threads = new File("/proc/" + p + "/task").list();
    for (String t : threads == null ? new String[0] : threads) {
      String list = read("/proc/" + p + "/task/" + t + "/children").trim();
      if (!list.isEmpty()) {
        out.addAll(Arrays.asList(list.split(" ")));
      }
    }
    return out;
  }

  /** The processes the last update found, the JVM first. */
  java.util.Set<String> pids() {
    return tree.keySet();
  }

  @Override
  public long getVirtualMemorySize(int olderThanAge) {
    long total = 0;
    for (Seen s : tree.values()) {
      if (s.age > olderThanAge) {
        total += s.vmemBytes;
      }
    }
    return tree.isEmpty() ? UNAVAILABLE : total;
  }

  @Override
  public long getRssMemorySize(int olderThanAge) {
    long total = 0;
    for (Seen s : tree.values()) {
      if (s.age > olderThanAge) {
        total += s.rssPages;
      }
    }
    return tree.isEmpty() || SysInfoLinux.PAGE_SIZE < 0 ? UNAVAILABLE
        : total * SysInfoLinux.PAGE_SIZE;
  }

  @Override
  public long getCumulativeCpuTime() {
    return !cpuSeen || SysInfoLinux.JIFFY_LENGTH_IN_MILLIS < 0 ? UNAVAILABLE
        : cpuJiffies * SysInfoLinux.JIFFY_LENGTH_IN_MILLIS;
  }

  @Override
  public String getProcessTreeDump() {
    StringBuilder b = new StringBuilder("\t|- PID CPU_JIFFIES VMEM_BYTES RSS_PAGES\n");
    tree.forEach((p, s) -> b.append("\t|- ").append(p).append(' ').append(s.jiffies)
        .append(' ').append(s.vmemBytes).append(' ').append(s.rssPages).append('\n'));
    return b.toString();
  }

  @Override
  public boolean checkPidPgrpidForMatch() {
    return true;  // the JVM is its own process tree's root, whatever its process group
  }
}
