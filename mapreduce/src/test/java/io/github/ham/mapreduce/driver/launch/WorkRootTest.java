package io.github.ham.mapreduce.driver.launch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.File;
import java.io.IOException;
import java.lang.reflect.Proxy;
import java.nio.file.Path;

import io.github.ham.mapreduce.common.HamConfig;
import io.github.ham.mapreduce.common.jobfiles.JobDirs;
import io.github.ham.mapreduce.common.jobfiles.RunnerWorkDirs;

import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Where a job's runners work: node-local by default, on the shared file system when told. */
class WorkRootTest {
  /** A platform whose runners can work node-locally, under allocation 123 (nothing else). */
  private static final RunnerPlatform ALLOCATION = (RunnerPlatform) Proxy.newProxyInstance(
      RunnerPlatform.class.getClassLoader(), new Class<?>[] {RunnerPlatform.class},
      (proxy, method, args) -> {
        if (method.getName().equals("localWorkScope")) {
          return "123";
        }
        throw new UnsupportedOperationException(method.getName());
      });

  @Test
  void nodeLocalByDefaultUnderTheUsersDirectoryAndTheAllocation(@TempDir Path tmp)
      throws IOException {
    JobDirs dirs = JobDirs.of(tmp.toString(), "job_1_0001");
    WorkRoot w = WorkRoot.of(ALLOCATION, new Configuration(false), dirs, null, "job_1_0001");
    File top = RunnerWorkDirs.top("/tmp", System.getProperty("user.name"));
    assertEquals(top, w.top());
    assertEquals(RunnerWorkDirs.jobRoot(top, "123", "job_1_0001", dirs.root()), w.root());
  }

  @Test
  void sharedWhenNoneWhenKeptForDebuggingAndWithTheLocalLauncher(@TempDir Path tmp)
      throws IOException {
    JobDirs dirs = JobDirs.of(tmp.toString(), "job_1_0001");
    Configuration none = new Configuration(false);
    none.set(HamConfig.RUNNER_LOCAL_DIR, "none");
    Configuration empty = new Configuration(false);
    empty.set(HamConfig.RUNNER_LOCAL_DIR, "");  // -D ham.runner.local.dir=
    Configuration keep = new Configuration(false);
    keep.setBoolean(HamConfig.KEEP_INTERMEDIATE, true);
    for (WorkRoot w : new WorkRoot[] {WorkRoot.of(ALLOCATION, none, dirs, null, "j"),
        WorkRoot.of(ALLOCATION, empty, dirs, null, "j"),
        WorkRoot.of(ALLOCATION, keep, dirs, null, "j"),
        WorkRoot.of(new LocalPlatform(), new Configuration(false), dirs, null, "j")}) {
      assertNull(w.top());
      assertEquals(dirs.work(), w.root());
    }
  }

  @Test
  void aRelativeDirectoryFailsTheJobInOneLine(@TempDir Path tmp) {
    Configuration conf = new Configuration(false);
    conf.set(HamConfig.RUNNER_LOCAL_DIR, "scratch");
    IOException e = assertThrows(IOException.class, () -> WorkRoot.of(ALLOCATION, conf,
        JobDirs.of(tmp.toString(), "job_1_0001"), null, "j"));
    assertEquals("ham.runner.local.dir must be an absolute directory on each node (or none: the"
        + " job's directory on the shared file system), got 'scratch'", e.getMessage());
  }
}
