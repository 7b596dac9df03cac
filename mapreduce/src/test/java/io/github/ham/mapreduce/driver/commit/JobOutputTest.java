package io.github.ham.mapreduce.driver.commit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

import io.github.ham.mapreduce.common.jobfiles.JobDirs;

import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapred.JobID;
import org.apache.hadoop.mapreduce.MRJobConfig;
import org.apache.hadoop.mapreduce.TaskAttemptID;
import org.apache.hadoop.mapreduce.TaskID;
import org.apache.hadoop.mapreduce.TaskType;
import org.apache.hadoop.mapreduce.lib.output.FileOutputCommitter;
import org.apache.hadoop.mapreduce.lib.output.FileOutputFormat;
import org.apache.hadoop.mapreduce.task.TaskAttemptContextImpl;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A job's output across a stop and a resume, with Hadoop's FileOutputCommitter (both
 * algorithms), as MRAppMaster's recovery uses it: run 1 commits reduce 0 and stops; its output
 * is held aside; run 2 restores it, recovers reduce 0, runs reduce 1 (attempt 1000), commits.
 */
class JobOutputTest {
  private static final JobID JOB = new JobID("1700000000000", 1);

  private static JobConf conf(File out, int algorithm, int run) {
    JobConf conf = new JobConf(false);
    conf.setNumReduceTasks(2);
    conf.setUseNewReducer(true);
    conf.set(FileOutputFormat.OUTDIR, out.toURI().toString());
    conf.setInt(FileOutputCommitter.FILEOUTPUTCOMMITTER_ALGORITHM_VERSION, algorithm);
    conf.setInt(MRJobConfig.APPLICATION_ATTEMPT_ID, run);
    return conf;
  }

  private static TaskAttemptID reduce(int index, int attempt) {
    return new TaskAttemptID(new TaskID(JOB, TaskType.REDUCE, index), attempt);
  }

  /** A reduce attempt as a runner runs it: its part file written and committed. */
  private static void commitTask(JobConf jobConf, TaskAttemptID attempt, String text)
      throws Exception {
    JobConf conf = new JobConf(jobConf);
    conf.setInt(MRJobConfig.APPLICATION_ATTEMPT_ID, attempt.getId() / 1000 + 1);
    TaskAttemptContextImpl ctx = new TaskAttemptContextImpl(conf, attempt);
    FileOutputCommitter committer = new FileOutputCommitter(FileOutputFormat.getOutputPath(ctx),
        ctx);
    committer.setupTask(ctx);
    org.apache.hadoop.fs.Path part = new org.apache.hadoop.fs.Path(committer.getWorkPath(),
        String.format("part-r-%05d", attempt.getTaskID().getId()));
    try (OutputStream o = part.getFileSystem(conf).create(part)) {
      o.write(text.getBytes(StandardCharsets.UTF_8));
    }
    committer.commitTask(ctx);
  }

  @Test
  void whetherTheJobCreatesItsOutputIsAnnouncedBeforeItIsCreated(@TempDir Path tmp)
      throws Exception {
    File out = tmp.resolve("out").toFile();
    JobDirs dirs = new JobDirs(tmp.resolve("jobs/" + JOB).toFile());
    Files.createDirectories(dirs.root().toPath());
    JobOutput output = new JobOutput(conf(out, 2, 1), JOB, dirs);
    boolean[] seen = new boolean[2];
    output.setup(() -> {
      seen[0] = output.createsDir();
      seen[1] = out.exists();
    });
    assertTrue(seen[0], "known to be the job's own when announced");
    assertFalse(seen[1], "announced before setupJob creates it");
    assertTrue(new File(out, "_temporary").isDirectory());
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 2})
  void committedReduceIsRecoveredAcrossAStop(int algorithm, @TempDir Path tmp) throws Exception {
    File out = tmp.resolve("out").toFile();
    JobDirs dirs = new JobDirs(tmp.resolve("jobs/" + JOB).toFile());
    Files.createDirectories(dirs.root().toPath());

    JobConf first = conf(out, algorithm, 1);
    JobOutput run1 = new JobOutput(first, JOB, dirs);
    run1.setup(() -> { });
    commitTask(first, reduce(0, 0), "from run 1\n");
    assertTrue(run1.hold());
    assertFalse(out.exists(), "a stopped job's output is not left half-written");
    assertTrue(dirs.heldOutput().isDirectory());

    JobConf second = conf(out, algorithm, 2);
    JobOutput run2 = new JobOutput(second, JOB, dirs);
    run2.restore();
    run2.setup(() -> { });
    assertTrue(run2.createsDir(), "the restored output is the job's own (removed if it fails)");
    assertTrue(run2.recoverTask(org.apache.hadoop.mapred.TaskAttemptID.downgrade(reduce(0, 0))));
    if (algorithm == 1) {
      assertFalse(run2.recoverTask(
          org.apache.hadoop.mapred.TaskAttemptID.downgrade(reduce(1, 0))),
          "v1: a task with no committed output is not recovered");
    }
    commitTask(second, reduce(1, 1000), "from run 2\n");
    run2.commit();
    String[] names = out.list();
    Arrays.sort(names);
    assertEquals(List.of("_SUCCESS", "part-r-00000", "part-r-00001"),
        Arrays.stream(names).filter(n -> !n.startsWith(".")).toList());
    assertEquals("from run 1\n", Files.readString(out.toPath().resolve("part-r-00000")));
    assertEquals("from run 2\n", Files.readString(out.toPath().resolve("part-r-00001")));
    assertTrue(run2.committed(JobDirs.COMMIT_SUCCESS));
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 2})
  void removedOutputRecoversNothing(int algorithm, @TempDir Path tmp) throws Exception {
    File out = tmp.resolve("out").toFile();
    JobDirs dirs = new JobDirs(tmp.resolve("jobs/" + JOB).toFile());
    Files.createDirectories(dirs.root().toPath());
    JobConf first = conf(out, algorithm, 1);
    JobOutput run1 = new JobOutput(first, JOB, dirs);
    run1.setup(() -> { });
    commitTask(first, reduce(0, 0), "lost\n");
    run1.abort(true);
    JobOutput run2 = new JobOutput(conf(out, algorithm, 2), JOB, dirs);
    run2.restore();
    assertFalse(run2.recoverTask(org.apache.hadoop.mapred.TaskAttemptID.downgrade(reduce(0, 0))),
        "with its output gone, a committed reduce runs again");
  }

  /**
   * A lustre:// output directory is a file under fs.root.dir: that is what is held aside and
   * restored, and what the status record names (whoever settles a job reads it there).
   */
  @Test
  void lustreOutputIsHeldAndRestoredUnderItsRoot(@TempDir Path tmp) throws Exception {
    File root = tmp.resolve("root").toFile();
    File out = new File(root, "user/me/out");
    Files.createDirectories(root.toPath());
    JobDirs dirs = new JobDirs(tmp.resolve("jobs/" + JOB).toFile());
    Files.createDirectories(dirs.root().toPath());

    JobConf first = lustre(conf(out, 1, 1), root);
    JobOutput run1 = new JobOutput(first, JOB, dirs);
    run1.setup(() -> { });
    assertTrue(out.isDirectory(), "setupJob made the output under the root");
    assertEquals(out.getPath(), run1.localDir());
    commitTask(first, reduce(0, 0), "from run 1\n");
    assertTrue(run1.hold());
    assertFalse(out.exists(), "a stopped job's lustre:// output is held aside");
    assertTrue(dirs.heldOutput().isDirectory());

    JobConf second = lustre(conf(out, 1, 2), root);
    JobOutput run2 = new JobOutput(second, JOB, dirs);
    run2.restore();
    assertTrue(out.isDirectory(), "restored under the root");
    run2.setup(() -> { });
    assertTrue(run2.recoverTask(org.apache.hadoop.mapred.TaskAttemptID.downgrade(reduce(0, 0))));
    commitTask(second, reduce(1, 1000), "from run 2\n");
    run2.commit();
    assertEquals("from run 1\n", Files.readString(out.toPath().resolve("part-r-00000")));
    assertEquals("from run 2\n", Files.readString(out.toPath().resolve("part-r-00001")));
    assertTrue(new File(out, "_SUCCESS").exists());
  }

  /** conf with its output as lustre:///user/me/out, lustre:/// standing for root. */
  private static JobConf lustre(JobConf conf, File root) {
    conf.set(FileOutputFormat.OUTDIR, "lustre:///user/me/out");
    conf.set("fs.root.dir", root.getPath());
    conf.set("fs.lustre.impl", "io.github.ham.mapreduce.lustre.LustreFileSystem");
    conf.setBoolean("fs.lustre.impl.disable.cache", true);  // one root per test
    return conf;
  }
}
