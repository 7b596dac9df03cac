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
    assertEquals(dirs.work(), w.shared(), "where a runner goes that cannot work on its node");
  }

  @Test
  void sharedWhenNoneAndWithTheLocalLauncher(@TempDir Path tmp) throws IOException {
    JobDirs dirs = JobDirs.of(tmp.toString(), "job_1_0001");
    Configuration none = new Configuration(false);
    none.set(HamConfig.RUNNER_LOCAL_DIR, "none");
    for (WorkRoot w : new WorkRoot[] {WorkRoot.of(ALLOCATION, none, dirs, null, "j"),
        WorkRoot.of(new LocalPlatform(), new Configuration(false), dirs, null, "j")}) {
      assertNull(w.top());
      assertEquals(dirs.work(), w.root());
      assertEquals(dirs.work(), w.shared());
    }
  }

  @Test
  void aDirectoryHadoopCannotNameFailsTheJobInOneLine(@TempDir Path tmp) {
    for (String bad : new String[] {"scratch", "/local disk", "/l%20", "/a:b", "/l\u00f6cal"}) {
      Configuration conf = new Configuration(false);
      conf.set(HamConfig.RUNNER_LOCAL_DIR, bad);
      IOException e = assertThrows(IOException.class, () -> WorkRoot.of(ALLOCATION, conf,
          JobDirs.of(tmp.toString(), "job_1_0001"), null, "j"));
      assertEquals("ham.runner.local.dir must be an absolute directory on each node without"
          + " spaces, '%', ':' or non-ASCII characters (or none: the job's directory on the shared"
          + " file system), got '" + bad + "'", e.getMessage());
    }
  }
}
