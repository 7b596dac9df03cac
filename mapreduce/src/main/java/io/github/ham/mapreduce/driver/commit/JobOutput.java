package io.github.ham.mapreduce.driver.commit;

import java.io.File;
import java.io.IOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.StandardCopyOption;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.ham.mapreduce.common.fs.MountedFiles;
import io.github.ham.mapreduce.common.jobfiles.JobDirs;
import io.github.ham.mapreduce.lustre.Striping;

import org.apache.hadoop.fs.Path;
import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapred.JobContextImpl;
import org.apache.hadoop.mapred.JobID;
import org.apache.hadoop.mapreduce.JobStatus;
import org.apache.hadoop.mapreduce.OutputCommitter;
import org.apache.hadoop.mapreduce.OutputFormat;
import org.apache.hadoop.mapreduce.TaskAttemptID;
import org.apache.hadoop.mapreduce.TaskID;
import org.apache.hadoop.mapreduce.TaskType;
import org.apache.hadoop.mapreduce.lib.output.FileOutputCommitter;
import org.apache.hadoop.mapreduce.lib.output.FileOutputFormat;
import org.apache.hadoop.mapreduce.task.TaskAttemptContextImpl;
import org.apache.hadoop.util.ReflectionUtils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The job's side of its output (commit, abort and hold exclude each other: the shutdown hook
 * may stop a job while its driver thread commits it): the job's OutputCommitter (old or new API, as MRAppMaster picks
 * it), setupJob, commitJob between commit markers, an abort that leaves the output directory
 * either complete with _SUCCESS or absent, and for a job stopped before it finished, its output
 * moved aside (held) and, when it is resumed, moved back and its committed tasks recovered.
 */
public final class JobOutput {
  private static final Logger LOG = LoggerFactory.getLogger(JobOutput.class);
  private final JobConf conf;
  private final JobID id;
  private final JobDirs dirs;
  // The old-API JobContextImpl: old-API committers cast to it (ClassCastException otherwise).
  private final JobContextImpl context;
  private final OutputCommitter committer;
  private final AtomicBoolean ended = new AtomicBoolean();
  /** Whether the output directory existed before setupJob; if not, a failed job removes it. */
  private boolean outputExisted = true;
  private boolean restored;

  public JobOutput(JobConf conf, JobID id, JobDirs dirs) throws Exception {
    this.conf = conf;
    this.id = id;
    this.dirs = dirs;
    this.context = new JobContextImpl(conf, id);
    this.committer = createCommitter(conf, id);
  }

  private static OutputCommitter createCommitter(JobConf conf, JobID id) throws Exception {
    boolean newApi = conf.getNumReduceTasks() == 0 ? conf.getUseNewMapper()
        : conf.getUseNewReducer();
    if (!newApi) {
      return conf.getOutputCommitter();
    }
    TaskAttemptContextImpl ctx = new TaskAttemptContextImpl(conf,
        new TaskAttemptID(new TaskID(id, TaskType.MAP, 0), 0));
    OutputFormat<?, ?> format = ReflectionUtils.newInstance(ctx.getOutputFormatClass(), conf);
    return format.getOutputCommitter(ctx);
  }

  /** The job's output directory, or null when its output format has none. */
  Path dir() {
    String dir = conf.get(FileOutputFormat.OUTDIR);
    return dir == null || dir.isEmpty() ? null : new Path(dir);
  }

  /**
   * The output directory as a file on the shared mount (a lustre:// one under fs.root.dir),
   * for the status record: whoever settles a job its driver left reads it there. Null if none.
   */
  public String localDir() {
    Path out = dir();
    return out == null ? null : local(out).getPath();
  }

  /** The file an output path names on the shared mount (a lustre:// one under fs.root.dir). */
  private File local(Path p) {
    try {
      File mounted = MountedFiles.of(p.getFileSystem(conf), p);
      if (mounted != null) {
        return mounted;
      }
    } catch (IOException e) {
      LOG.debug("No file system for {}: {}", p, e.toString());
    }
    return new File(p.toUri().getPath());
  }

  /**
   * setupJob. {@code announce} runs once it is known whether the job creates the output
   * directory and before anything is created: if this JVM dies after setupJob made the
   * directory, whoever settles the job knows from the status record to remove it.
   */
  public void setup(Runnable announce) throws IOException {
    Path out = dir();
    // A restored output directory was created by the job (its first run), not by the user.
    outputExisted = !restored && (out == null || out.getFileSystem(conf).exists(out));
    announce.run();
    if (!outputExisted && !restored) {
      Striping.outputDir(conf, out);  // before setupJob makes _temporary: all inherit the layout
    }
    committer.setupJob(context);
  }

  /**
   * A resumed run takes over the output of the stopped one: moved back from where it was held
   * (and from then on it counts as created by this job, as it was by the first run).
   */
  public void restore() throws IOException {
    Path out = dir();
    File held = dirs.heldOutput();
    if (out == null || !held.exists()) {
      return;
    }
    File target = local(out);
    if (target.exists()) {
      throw new IOException("the output directory " + target + " exists again: move it away "
          + "to resume this job (its first run's output is kept in " + held + ")");
    }
    Files.move(held.toPath(), target.toPath(), StandardCopyOption.ATOMIC_MOVE);
    restored = true;
  }

  /**
   * The committed output of an earlier run's attempt becomes this run's, as MRAppMaster's
   * recovery does (FileOutputCommitter v1 moves it into this run's directory; v2 has it in
   * place). False if the committer cannot: the task runs again.
   */
  boolean recoverTask(org.apache.hadoop.mapred.TaskAttemptID attempt) {
    Path out = dir();
    if (out != null && !local(out).exists()) {
      // The stopped run's output could not be held (it was removed): nothing to recover.
      return false;
    }
    try {
      org.apache.hadoop.mapred.TaskAttemptContextImpl task =
          new org.apache.hadoop.mapred.TaskAttemptContextImpl(conf, attempt);
      committer.recoverTask(task);
      // FileOutputCommitter v1 only warns when the task's committed output is not there.
      if (out != null && isFileCommitterV1() && !local(
          FileOutputCommitter.getCommittedTaskPath(task, out)).exists()) {
        LOG.warn("No committed output of {} to recover; its task runs again", attempt);
        return false;
      }
      return true;
    } catch (IOException | RuntimeException e) {
      LOG.warn("Cannot recover the output of {}: {}; its task runs again", attempt, e.toString());
      return false;
    }
  }

  private boolean isFileCommitterV1() {
    return (committer instanceof FileOutputCommitter
        || committer instanceof org.apache.hadoop.mapred.FileOutputCommitter)
        && conf.getInt(FileOutputCommitter.FILEOUTPUTCOMMITTER_ALGORITHM_VERSION,
            FileOutputCommitter.FILEOUTPUTCOMMITTER_ALGORITHM_VERSION_DEFAULT) == 1;
  }

  /** commitJob between the markers a resume reads (COMMIT_STARTED, then SUCCESS or FAIL). */
  public synchronized void commit() throws IOException {
    Files.createDirectories(dirs.root().toPath());
    touch(JobDirs.COMMIT_STARTED);
    try {
      committer.commitJob(context);
    } catch (IOException | RuntimeException e) {
      touch(JobDirs.COMMIT_FAIL);
      throw e;
    }
    touch(JobDirs.COMMIT_SUCCESS);
    ended.set(true);
  }

  private void touch(String marker) throws IOException {
    File f = dirs.marker(marker);
    if (!f.exists()) {
      Files.createFile(f.toPath());
    }
  }

  /** Whether an earlier run's commit got to {@code marker}. */
  public boolean committed(String marker) {
    return dirs.marker(marker).exists();
  }

  /** Whether a commit that was started and not finished may simply be done again. */
  boolean commitRepeatable() throws IOException {
    return committer.isCommitJobRepeatable(context);
  }

  /**
   * abortJob, then remove the output directory if this job created it: a failed or killed job
   * leaves the output either complete with _SUCCESS or absent, never half-written (with
   * FileOutputCommitter v2, committed tasks' files are already in the output directory).
   * Runs once, from the driver thread or from the shutdown hook.
   */
  public synchronized void abort(boolean killed) {
    if (!ended.compareAndSet(false, true)) {
      return;
    }
    try {
      committer.abortJob(context, killed ? JobStatus.State.KILLED : JobStatus.State.FAILED);
    } catch (Throwable e) {
      LOG.warn("abortJob failed for {}", id, e);
    }
    Path out = dir();
    if (!outputExisted && out != null) {
      try {
        out.getFileSystem(conf).delete(out, true);
        LOG.info("Removed the output directory {} of the unsuccessful job {}", out, id);
      } catch (Throwable e) {
        LOG.warn("Cannot remove the output directory {} of job {}", out, id, e);
      }
    }
  }

  /**
   * The job stopped before it finished and may be resumed: no abortJob (it would delete what
   * the committed tasks wrote); the output directory this job created is moved aside, so that
   * it is not there half-written. Returns whether the output can be resumed (false: it could
   * not be moved, and was removed as on abort).
   */
  public synchronized boolean hold() {
    if (!ended.compareAndSet(false, true)) {
      return true;
    }
    Path out = dir();
    if (out == null || outputExisted || !local(out).exists()) {
      return true;
    }
    try {
      Files.move(local(out).toPath(), dirs.heldOutput().toPath(),
          StandardCopyOption.ATOMIC_MOVE);
      LOG.info("Job {} stopped: its output {} is held in {} for a resume", id, out,
          dirs.heldOutput());
      return true;
    } catch (AtomicMoveNotSupportedException e) {
      LOG.warn("Cannot hold the output {} of job {} (another file system): removed; a resume "
          + "runs its tasks again", out, id);
    } catch (IOException e) {
      LOG.warn("Cannot hold the output {} of job {}: {}; removed", out, id, e.toString());
    }
    ended.set(false);
    abort(true);
    return false;
  }

  /** Whether this job created the output directory (so a failed job removes it). */
  public boolean createsDir() {
    return !outputExisted && dir() != null;
  }
}
