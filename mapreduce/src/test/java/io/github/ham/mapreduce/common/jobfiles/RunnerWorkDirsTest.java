package io.github.ham.mapreduce.common.jobfiles;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Node-local working directories: their names, and what a runner removes when it exits. */
class RunnerWorkDirsTest {
  @Test
  void namesUnderTheUsersDirectoryAndTheAllocation() {
    File top = RunnerWorkDirs.top("/tmp", "alice");
    assertEquals(new File("/tmp/ham-alice"), top);
    File a = RunnerWorkDirs.jobRoot(top, "123", "job_1_0001", new File("/shared/alice/123/jobs/a"));
    assertEquals(new File("/tmp/ham-alice/123"), a.getParentFile());
    assertTrue(a.getName().startsWith("job_1_0001."), a.getName());
    // Two sessions' jobs with one job id (clients started in the same millisecond) differ.
    assertNotEquals(a, RunnerWorkDirs.jobRoot(top, "123", "job_1_0001",
        new File("/shared/alice/123.1/jobs/a")));
  }

  @Test
  void aRunnerRemovesItsDirectoryAndItsEmptyParentsUpToTheTop(@TempDir Path tmp)
      throws Exception {
    Path top = Files.createDirectory(tmp.resolve("ham-u"));
    Path job = Files.createDirectories(top.resolve("123/job_1_0001.abcd"));
    Path mine = Files.createDirectories(job.resolve("g1-p0"));
    Path other = Files.createDirectories(job.resolve("g1-p1"));
    Files.writeString(mine.resolve("job.xml"), "x");
    Path outside = Files.writeString(tmp.resolve("keep"), "kept");
    Files.createSymbolicLink(mine.resolve("cache-link"), outside);
    Files.createDirectories(mine.resolve("sub/dir"));

    assertTrue(RunnerWorkDirs.removeOwn(mine.toFile(), top.toFile()));
    assertFalse(Files.exists(mine));
    assertTrue(Files.isDirectory(other), "another runner's directory stays");
    assertEquals("kept", Files.readString(outside), "a link is removed, not followed");

    // The last runner of the node takes the job's and the allocation's directories with it.
    assertTrue(RunnerWorkDirs.removeOwn(other.toFile(), top.toFile()));
    assertFalse(Files.exists(top.resolve("123")));
    assertTrue(Files.isDirectory(top), "the user's directory stays");
  }

  @Test
  void aTopNamedThroughALinkIsTheDirectoryItNames(@TempDir Path tmp) throws Exception {
    // /tmp -> /local/tmp: the setting names the link, the JVM's directory is the real path.
    Path real = Files.createDirectories(tmp.resolve("local/tmp"));
    Path link = Files.createSymbolicLink(tmp.resolve("tmp"), real);
    Path mine = Files.createDirectories(real.resolve("ham-u/1/job.abcd/g1-p0"));
    RunnerWorkDirs.removeMine(Map.of(RunnerWorkDirs.ENV_TOP, link.resolve("ham-u").toString()),
        mine.toFile(), List.of());
    assertFalse(Files.exists(real.resolve("ham-u/1")));
    assertTrue(Files.isDirectory(real.resolve("ham-u")));
  }

  @Test
  void onTheSharedFileSystemARunnerLeavesItsDirectoryToTheJob(@TempDir Path tmp)
      throws Exception {
    Path mine = Files.createDirectories(tmp.resolve("jobs/j/work/g1-p0"));
    RunnerWorkDirs.removeMine(Map.of(), mine.toFile(), List.of());
    assertTrue(Files.isDirectory(mine));
  }

  @Test
  void nothingOutsideTheTopIsRemoved(@TempDir Path tmp) throws Exception {
    Path top = Files.createDirectory(tmp.resolve("ham-u"));
    Path elsewhere = Files.createDirectories(tmp.resolve("work/g1-p0"));
    assertFalse(RunnerWorkDirs.removeOwn(elsewhere.toFile(), top.toFile()));
    assertFalse(RunnerWorkDirs.removeOwn(top.toFile(), top.toFile()));
    assertFalse(RunnerWorkDirs.removeOwn(top.resolve("../work/g1-p0").toFile(), top.toFile()));
    assertTrue(Files.isDirectory(elsewhere));
    assertTrue(Files.isDirectory(top));
  }
}
