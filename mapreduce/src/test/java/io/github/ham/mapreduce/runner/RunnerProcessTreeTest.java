package io.github.ham.mapreduce.runner;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapreduce.MRConfig;
import org.apache.hadoop.yarn.util.ProcfsBasedProcessTree;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RunnerProcessTreeTest {
  private static final String SELF = Long.toString(ProcessHandle.current().pid());

  @Test
  void findsTheSameProcessesAndFiguresAsHadoopsTree() throws Exception {
    assertTrue(RunnerProcessTree.available(), "this kernel lists /proc/thread-self/children");
    // A child with a grandchild, as a streaming task's script starting a command.
    Process child = new ProcessBuilder("sh", "-c", "sleep 30 & wait").start();
    try {
      Thread.sleep(300);  // the grandchild started
      ProcfsBasedProcessTree hadoops = new ProcfsBasedProcessTree(SELF);
      RunnerProcessTree ours = new RunnerProcessTree(SELF);
      hadoops.updateProcessTree();
      ours.updateProcessTree();
      assertEquals(new HashSet<>(hadoops.getCurrentProcessIDs()), ours.pids());
      assertEquals(3, ours.pids().size(), ours.getProcessTreeDump());
      long rss = ours.getRssMemorySize();
      long hadoopRss = hadoops.getRssMemorySize();
      assertTrue(rss > 32 << 20 && Math.abs(rss - hadoopRss) < hadoopRss / 10,
          rss + " vs " + hadoopRss);
      assertTrue(ours.getVirtualMemorySize() > rss);
      long cpu = ours.getCumulativeCpuTime();
      long hadoopCpu = hadoops.getCumulativeCpuTime();
      assertTrue(cpu > 0 && Math.abs(cpu - hadoopCpu) <= 250, cpu + " vs " + hadoopCpu);
      // Work done between updates is added; a process gone keeps what it had spent. The
      // work is 300 ms of this thread's own CPU, however busy the machine is.
      ThreadMXBean threads = ManagementFactory.getThreadMXBean();
      long end = threads.getCurrentThreadCpuTime() + TimeUnit.MILLISECONDS.toNanos(300);
      long spin = 0;
      while (threads.getCurrentThreadCpuTime() < end) {
        spin++;
      }
      child.destroyForcibly().waitFor();
      ours.updateProcessTree();
      assertTrue(ours.getCumulativeCpuTime() >= cpu + 200, ours.getCumulativeCpuTime()
          + " after " + cpu + " and 300 ms of work " + spin);
      assertTrue(ours.pids().contains(SELF));
    } finally {
      child.destroyForcibly();
    }
  }

  /**
   * A thread's list of children comes a page a read (~600 pids): a script that starts more
   * background processes than that still has them all counted, as Hadoop's tree does.
   */
  @Test
  void findsChildrenBeyondAPageAndTheBuffer() throws Exception {
    Process child = new ProcessBuilder("sh", "-c",
        "i=0; while [ $i -lt 2000 ]; do sleep 60 & i=$((i+1)); done; echo started; wait")
        .start();
    try {
      assertEquals("started", new java.io.BufferedReader(new java.io.InputStreamReader(
          child.getInputStream())).readLine());
      RunnerProcessTree ours = new RunnerProcessTree(Long.toString(child.pid()));
      ours.updateProcessTree();
      ProcfsBasedProcessTree hadoops = new ProcfsBasedProcessTree(Long.toString(child.pid()));
      hadoops.updateProcessTree();
      assertEquals(2001, ours.pids().size());
      assertEquals(new HashSet<>(hadoops.getCurrentProcessIDs()), ours.pids());
    } finally {
      child.descendants().forEach(ProcessHandle::destroyForcibly);
      child.destroyForcibly();
    }
  }

  /**
   * A JVM that started no process reads only its own stat file and those of the pids given
   * since the last scan (the tasks of a runner each make their own tree); too many new pids, a
   * pid lower than the last (wrapped round), or a second since the last scan, look for children
   * again.
   */
  @Test
  void looksForChildrenAgainOnlyWhenANewPidMayBeOne() throws Exception {
    // The root: a process without children (this JVM may have some from other tests); and a
    // process given a pid after it that is not its child.
    Process root = new ProcessBuilder("sleep", "30").start();
    Process unrelated = new ProcessBuilder("sleep", "30").start();
    try {
      String pid = Long.toString(root.pid());
      long[] newest = {unrelated.pid() - 1};
      long[] clock = {0};
      RunnerProcessTree first = new RunnerProcessTree(pid, () -> newest[0], () -> clock[0]);
      first.updateProcessTree();
      assertEquals(1, first.scans);
      RunnerProcessTree next = new RunnerProcessTree(pid, () -> newest[0], () -> clock[0]);
      next.updateProcessTree();
      newest[0] = unrelated.pid();
      next.updateProcessTree();
      assertEquals(0, next.scans);
      assertEquals(java.util.Set.of(pid), next.pids());
      assertTrue(next.getCumulativeCpuTime() >= 0 && next.getRssMemorySize() > 0);
      newest[0] += RunnerProcessTree.MAX_NEW_PIDS + 1;
      next.updateProcessTree();
      assertEquals(1, next.scans);
      newest[0] -= 5;
      next.updateProcessTree();
      assertEquals(2, next.scans);
      clock[0] += TimeUnit.MILLISECONDS.toNanos(RunnerProcessTree.FULL_SCAN_EVERY_MS);
      next.updateProcessTree();
      assertEquals(3, next.scans);
      // Another root's tree never takes this root's scan for its own.
      RunnerProcessTree other = new RunnerProcessTree(SELF, () -> newest[0], () -> clock[0]);
      other.updateProcessTree();
      assertEquals(1, other.scans);
    } finally {
      root.destroyForcibly().waitFor();
      unrelated.destroyForcibly().waitFor();
    }
  }

  /**
   * With the kernel's own newest pid: a process that a root found without children starts
   * one, and the next tree from that root finds it.
   */
  @Test
  void findsAProcessStartedAfterAScanThatFoundNone() throws Exception {
    assertTrue(new RunnerProcessTree(SELF).newestPid() > 0, "/proc/loadavg names the newest pid");
    Process root = new ProcessBuilder("sh", "-c", "read go; sleep 30 & echo started; wait")
        .start();
    try {
      String pid = Long.toString(root.pid());
      RunnerProcessTree before = new RunnerProcessTree(pid);
      before.updateProcessTree();
      assertEquals(java.util.Set.of(pid), before.pids());
      root.getOutputStream().write("go\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
      root.getOutputStream().flush();
      assertEquals("started", new java.io.BufferedReader(new java.io.InputStreamReader(
          root.getInputStream())).readLine());
      RunnerProcessTree after = new RunnerProcessTree(pid);
      after.updateProcessTree();
      assertEquals(1, after.scans);
      assertEquals(2, after.pids().size(), after.getProcessTreeDump());
    } finally {
      root.descendants().forEach(ProcessHandle::destroyForcibly);
      root.destroyForcibly().waitFor();
    }
  }

  /**
   * A pid given since the last look but not yet in /proc (a process the kernel is still
   * copying) is looked at again by the next update; after a full scan, the few newest pids
   * before it are. Pids from PID_MAX_LIMIT (2^22) on are never given.
   */
  @Test
  void pidsWithoutAStatFileAreLookedAtAgain() throws Exception {
    Process root = new ProcessBuilder("sleep", "30").start();
    try {
      String pid = Long.toString(root.pid());
      long never = 1L << 22;
      long[] newest = {never + 9};
      LongSupplier clock = () -> 0;
      new RunnerProcessTree(pid, () -> newest[0], clock).updateProcessTree();
      assertArrayEquals(new long[] {never + 9, never + 8, never + 7, never + 6},
          RunnerProcessTree.lookAgain());
      newest[0] = never + 12;
      RunnerProcessTree tree = new RunnerProcessTree(pid, () -> newest[0], clock);
      tree.updateProcessTree();
      assertEquals(0, tree.scans);
      assertArrayEquals(new long[] {never + 10, never + 11, never + 12},
          RunnerProcessTree.lookAgain());
      tree.updateProcessTree();
      assertEquals(0, tree.scans);
      assertArrayEquals(new long[0], RunnerProcessTree.lookAgain());
    } finally {
      root.destroyForcibly().waitFor();
    }
  }

  /**
   * A process is the root's child by the parent field of its stat, whatever its name holds
   * (a name with a parenthesis, a state and the root's pid in it).
   */
  @Test
  void readsTheParentPastAnyName(@TempDir Path dir) throws Exception {
    Process root = new ProcessBuilder("sh", "-c", "read name; \"$name\" 30 & echo $!; wait")
        .start();
    Process unrelated = null;
    try {
      String pid = Long.toString(root.pid());
      Path odd = dir.resolve("x) S " + pid + " (y");
      Files.copy(Path.of("/bin/sleep"), odd);
      odd.toFile().setExecutable(true);
      root.getOutputStream().write((odd + "\n").getBytes(StandardCharsets.UTF_8));
      root.getOutputStream().flush();
      long child = Long.parseLong(new BufferedReader(new InputStreamReader(
          root.getInputStream())).readLine().trim());
      unrelated = new ProcessBuilder(odd.toString(), "30").start();
      RunnerProcessTree tree = new RunnerProcessTree(pid);
      assertTrue(tree.isChild(child, null), "the root's child");
      assertFalse(tree.isChild(unrelated.pid(), null), "the root's pid in its name only");
      List<Long> unseen = new ArrayList<>();
      assertFalse(tree.isChild(1L << 22, unseen));
      assertEquals(List.of(1L << 22), unseen);
    } finally {
      root.descendants().forEach(ProcessHandle::destroyForcibly);
      root.destroyForcibly().waitFor();
      if (unrelated != null) {
        unrelated.destroyForcibly().waitFor();
      }
    }
  }

  /**
   * A pid that is a thread of the root (when the root is this JVM) or has gone is no child,
   * and is known without reading its stat file; another process's stat is still read.
   */
  @Test
  void ownThreadsAndGonePidsAreNoChildren() throws Exception {
    Process gone = new ProcessBuilder("true").start();
    gone.waitFor();
    Process other = new ProcessBuilder("sleep", "30").start();
    java.util.concurrent.CountDownLatch end = new java.util.concurrent.CountDownLatch(1);
    Thread thread = new Thread(() -> {
      try {
        end.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }, "ham-own-thread");
    thread.start();
    try {
      long tid = -1;
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (tid < 0 && System.nanoTime() < deadline) {  // its name shows once it runs
        try (var tasks = Files.list(Path.of("/proc/self/task"))) {
          for (Path t : tasks.toList()) {
            if (Files.readString(t.resolve("comm")).trim().equals("ham-own-thread")) {
              tid = Long.parseLong(t.getFileName().toString());
            }
          }
        }
      }
      assertTrue(tid > 0, "the thread's id in /proc/self/task");
      RunnerProcessTree tree = new RunnerProcessTree(SELF);
      assertFalse(tree.isChild(tid, null), "this JVM's thread " + tid);
      assertEquals(1, tree.statsNotRead);
      List<Long> unseen = new ArrayList<>();
      assertFalse(tree.isChild(gone.pid(), unseen));
      assertEquals(List.of(gone.pid()), unseen);
      assertEquals(2, tree.statsNotRead);
      assertTrue(tree.isChild(other.pid(), null), "a child process of this JVM");
      assertEquals(2, tree.statsNotRead);
      // Another root reads every live pid's stat: this JVM's threads are not its own.
      RunnerProcessTree otherRoot = new RunnerProcessTree(Long.toString(other.pid()));
      assertFalse(otherRoot.isChild(tid, null));
      assertEquals(0, otherRoot.statsNotRead);
    } finally {
      end.countDown();
      other.destroyForcibly().waitFor();
    }
  }

  @Test
  void theRunnerNamesItUnlessTheJobNamesATree() {
    JobConf job = new JobConf();
    TaskSetup.processTree(job);
    assertEquals(RunnerProcessTree.class.getName(),
        job.get(MRConfig.RESOURCE_CALCULATOR_PROCESS_TREE));
    job.set(MRConfig.RESOURCE_CALCULATOR_PROCESS_TREE, "com.example.Tree");
    TaskSetup.processTree(job);
    assertEquals("com.example.Tree", job.get(MRConfig.RESOURCE_CALCULATOR_PROCESS_TREE));
  }
}
