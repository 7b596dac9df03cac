package io.github.ham.mapreduce.driver;

import java.io.IOException;
import java.util.concurrent.atomic.AtomicBoolean;

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
import org.apache.hadoop.mapreduce.lib.output.FileOutputFormat;
import org.apache.hadoop.mapreduce.task.TaskAttemptContextImpl;
import org.apache.hadoop.util.ReflectionUtils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The job's side of its output: the job's OutputCommitter (old or new API, as MRAppMaster picks
 * it), setupJob, commitJob, and an abort that leaves the output directory either complete with
 * _SUCCESS or absent.
 */
final class JobOutput {
  private static final Logger LOG = LoggerFactory.getLogger(JobOutput.class);
  private final JobConf conf;
  private final JobID id;
  // The old-API JobContextImpl: old-API committers cast to it (ClassCastException otherwise).
  private final JobContextImpl context;
  private final OutputCommitter committer;
  private final AtomicBoolean aborted = new AtomicBoolean();
  /** Whether the output directory existed before setupJob; if not, a failed job removes it. */
  private boolean outputExisted = true;

  JobOutput(JobConf conf, JobID id) throws Exception {
    this.conf = conf;
    this.id = id;
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

  void setup() throws IOException {
    Path out = dir();
    outputExisted = out == null || out.getFileSystem(conf).exists(out);
    if (!outputExisted) {
      Striping.outputDir(conf, out);  // before setupJob makes _temporary: all inherit the layout
    }
    committer.setupJob(context);
  }

  void commit() throws IOException {
    committer.commitJob(context);
  }

  /**
   * abortJob, then remove the output directory if this job created it: a failed or killed job
   * leaves the output either complete with _SUCCESS or absent, never half-written (with
   * FileOutputCommitter v2, committed tasks' files are already in the output directory).
   * Runs once, from the driver thread or from the shutdown hook.
   */
  void abort(boolean killed) {
    if (!aborted.compareAndSet(false, true)) {
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

  /** Whether this job created the output directory (so a failed job removes it). */
  boolean createsDir() {
    return !outputExisted && dir() != null;
  }
}
