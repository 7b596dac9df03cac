package io.github.ham.mapreduce.driver.slurm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.github.ham.mapreduce.common.HamConfig;
import io.github.ham.mapreduce.common.jobfiles.JobDirs;
import io.github.ham.mapreduce.common.jobfiles.RunnerWorkDirs;
import io.github.ham.mapreduce.driver.launch.RunnerPlatform.Start;

import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The srun command lines of the Slurm platform. */
class SlurmPlatformTest {
  @Test
  void aGenerationIsOneStepAndAReplacementAOneTaskStepOnItsNode(@TempDir Path tmp) {
    Configuration conf = new Configuration(false);
    conf.set(HamConfig.SRUN, "/opt/srun");
    SlurmPlatform slurm = new SlurmPlatform(conf);
    JobDirs dirs = JobDirs.of(tmp.toString(), "job_1_0001");
    List<String> runner = List.of("java", "-Xmx1g", "Main");

    List<Start> gen = slurm.generation(dirs, 2, 3, runner);
    assertEquals(1, gen.size());
    String nodes = Integer.toString(SlurmEnv.nodes(System.getenv()));  // 1 outside a job
    List<String> argv = new ArrayList<>(List.of("/opt/srun", "-N", nodes, "--ntasks-per-node=3",
        "--overlap", "--kill-on-bad-exit=0", "--no-kill", "/bin/sh", "-c",
        SlurmPlatform.RUNNER_SHELL, "ham-runner"));
    argv.addAll(runner);
    assertEquals(argv, gen.get(0).argv());
    assertNull(gen.get(0).slot(), "its exits come from srun's messages");
    assertEquals("runners.g2.log", gen.get(0).output().getName());

    Start one = slurm.replacement(dirs, 3, "node2", runner);
    argv = new ArrayList<>(List.of("/opt/srun", "--overlap", "-N1", "-n1", "-w", "node2",
        "--kill-on-bad-exit=0", "/bin/sh", "-c", SlurmPlatform.RUNNER_SHELL, "ham-runner"));
    argv.addAll(runner);
    assertEquals(argv, one.argv());
    assertEquals("g3-p0", one.slot());
    assertEquals("node2", one.node());
  }

  @Test
  void srunsTaskExitLinesOnly() {
    SlurmPlatform slurm = new SlurmPlatform(new Configuration(false));
    assertEquals(2, slurm.exits("srun: error: node1: tasks 0-1: Killed", 0).size());
    assertEquals(0, slurm.exits("INFO runner started", 0).size());
  }

  /** The runner's shell run by /bin/sh, as srun runs it, with the command pwd: its output. */
  private static String[] runnerShell(Map<String, String> env)
      throws IOException, InterruptedException {
    ProcessBuilder pb = new ProcessBuilder("/bin/sh", "-c", SlurmPlatform.RUNNER_SHELL,
        "ham-runner", "/bin/sh", "-c", "pwd; echo $JVM_PID $$");
    pb.environment().remove(RunnerWorkDirs.ENV_TOP);
    pb.environment().putAll(env);
    pb.environment().put("HAM_GEN", "2");
    pb.environment().put("SLURM_PROCID", "5");
    pb.environment().put("SLURMD_NODENAME", "node7");
    Process p = pb.redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    return new String[] {Integer.toString(p.waitFor()), out};
  }

  @Test
  void runnerShellWorksInItsOwnDirectoryOnTheSharedFileSystem(@TempDir Path tmp) throws Exception {
    String[] r = runnerShell(Map.of(RunnerWorkDirs.ENV_ROOT, tmp.resolve("work").toString()));
    assertEquals("0", r[0], r[1]);
    String[] lines = r[1].split("\n");
    assertEquals(tmp.resolve("work/g2-p5").toString(), lines[0]);
    String[] pids = lines[1].split(" ");
    assertEquals(pids[0], pids[1], "JVM_PID is the exec'd process's own pid");
  }

  @Test
  void runnerShellMakesTheUsersNodeLocalDirectoryPrivate(@TempDir Path tmp) throws Exception {
    Path top = tmp.resolve("ham-someone");
    Path root = top.resolve("123/job_1_0001.abcd");
    String[] r = runnerShell(Map.of(RunnerWorkDirs.ENV_ROOT, root.toString(),
        RunnerWorkDirs.ENV_TOP, top.toString()));
    assertEquals("0", r[0], r[1]);
    assertEquals(root.resolve("g2-p5").toString(), r[1].split("\n")[0]);
    assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(top)));

    // One made earlier with a wider mode (by the user): made private.
    Files.setPosixFilePermissions(top, PosixFilePermissions.fromString("rwxr-xr-x"));
    assertEquals("0", runnerShell(Map.of(RunnerWorkDirs.ENV_ROOT, root.toString(),
        RunnerWorkDirs.ENV_TOP, top.toString()))[0]);
    assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(top)));
  }

  @Test
  void runnerShellWorksOnTheSharedFileSystemWhenTheTopIsALinkOrSomeoneElses(@TempDir Path tmp)
      throws Exception {
    Path elsewhere = Files.createDirectory(tmp.resolve("elsewhere"));
    Path link = Files.createSymbolicLink(tmp.resolve("ham-link"), elsewhere);
    Path shared = tmp.resolve("shared-work");
    String[] r = runnerShell(Map.of(RunnerWorkDirs.ENV_ROOT, link.resolve("1/j").toString(),
        RunnerWorkDirs.ENV_TOP, link.toString(), RunnerWorkDirs.ENV_SHARED, shared.toString()));
    assertEquals("0", r[0], r[1]);
    String[] lines = r[1].split("\n");
    assertEquals(SlurmPlatform.WORK_WARNING + link + " is not a directory of this user's on node7;"
        + " this runner works in the job directory on the shared file system instead (setting"
        + " runner_local_dir, ham.runner.local.dir)", lines[0]);
    assertEquals(shared.resolve("g2-p5").toString(), lines[1]);
    try (var s = Files.list(elsewhere)) {
      assertEquals(0, s.count(), "nothing made through the link");
    }

    // Someone else's: as root, a directory given to nobody; as a user, one of root's.
    Path theirs = tmp.resolve("ham-theirs");
    if (System.getProperty("user.name").equals("root")) {
      Files.createDirectory(theirs);
      UserPrincipal nobody = theirs.getFileSystem().getUserPrincipalLookupService()
          .lookupPrincipalByName("nobody");
      Files.setOwner(theirs, nobody);
    } else {
      theirs = Path.of("/");
    }
    r = runnerShell(Map.of(RunnerWorkDirs.ENV_ROOT, theirs.resolve("1/j").toString(),
        RunnerWorkDirs.ENV_TOP, theirs.toString(), RunnerWorkDirs.ENV_SHARED, shared.toString()));
    assertEquals("0", r[0], r[1]);
    assertTrue(r[1].startsWith(SlurmPlatform.WORK_WARNING + theirs
        + " is not a directory of this user's on node7;"), r[1]);
    assertEquals(shared.resolve("g2-p5").toString(), r[1].split("\n")[1]);
    assertTrue(Files.notExists(theirs.resolve("1")));

    // One that cannot be made (its parent missing): said so, and the same way out.
    Path missing = tmp.resolve("no/such/ham-u");
    r = runnerShell(Map.of(RunnerWorkDirs.ENV_ROOT, missing.resolve("1/j").toString(),
        RunnerWorkDirs.ENV_TOP, missing.toString(), RunnerWorkDirs.ENV_SHARED, shared.toString()));
    assertEquals("0", r[0], r[1]);
    assertTrue(r[1].startsWith(SlurmPlatform.WORK_WARNING + "cannot make " + missing
        + " on node7;"), r[1]);
  }

  @Test
  void theDriverRepeatsARunnersWarningOnTheConsole() {
    SlurmPlatform slurm = new SlurmPlatform(new Configuration(false));
    String warning = SlurmPlatform.WORK_WARNING + "cannot make /x on node1; ...";
    assertEquals(0, slurm.exits(warning, 1).size(), "a warning, not an exit");
    org.apache.log4j.Logger notices = org.apache.log4j.Logger.getLogger("ham");
    List<String> seen = new ArrayList<>();
    org.apache.log4j.AppenderSkeleton capture = new org.apache.log4j.AppenderSkeleton() {
      @Override
      protected void append(org.apache.log4j.spi.LoggingEvent e) {
        seen.add(e.getLevel() + " " + e.getRenderedMessage());
      }

      @Override
      public void close() {
      }

      @Override
      public boolean requiresLayout() {
        return false;
      }
    };
    notices.addAppender(capture);
    try {
      slurm.note(warning);
      slurm.note("3: " + warning);  // srun --label
      slurm.note("INFO runner started");
    } finally {
      notices.removeAppender(capture);
    }
    assertEquals(List.of("WARN cannot make /x on node1; ...", "WARN cannot make /x on node1; ..."),
        seen);
  }
}
