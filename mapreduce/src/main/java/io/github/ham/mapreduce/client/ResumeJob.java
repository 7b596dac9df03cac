package io.github.ham.mapreduce.client;

import java.io.File;
import java.util.List;

import io.github.ham.mapreduce.common.jobfiles.JobDirs;
import io.github.ham.mapreduce.driver.commit.ResumeManifest;
import io.github.ham.mapreduce.history.HistoryFiles;

import org.apache.hadoop.fs.Path;
import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapreduce.Cluster;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.JobID;
import org.apache.hadoop.mapreduce.MRJobConfig;

/**
 * The next run of a job that stopped before it finished, in this allocation: what
 * `ham submit --resume` and `ham run --resume` run instead of the user's command.
 * <pre>hadoop io.github.ham.mapreduce.client.ResumeJob [--check] &lt;job directory&gt;</pre>
 * First it checks that the job's staged files and inputs are as they were when it first ran
 * (resume.json), and refuses with one line per change (exit 3) if not; --check stops there
 * (`ham submit --resume` runs it before asking Slurm for anything). The job keeps its id and
 * staged files (a second `hadoop jar` would stage a new job and find the output directory
 * there); the client prints its progress and counters as `hadoop jar` does, and exits 0 if
 * the job succeeds, 1 otherwise.
 */
public final class ResumeJob {
  /** Exit status of a job that cannot be resumed as it is. */
  public static final int CHANGED = 3;

  private ResumeJob() {
  }

  public static void main(String[] args) throws Exception {
    boolean checkOnly = args.length == 2 && args[0].equals("--check");
    if (args.length != 1 && !checkOnly) {
      System.err.println("usage: hadoop " + ResumeJob.class.getName()
          + " [--check] <job directory>");
      System.exit(2);
    }
    File dir = new File(args[args.length - 1]).getAbsoluteFile();
    JobID id = JobID.forName(dir.getName());
    // The configuration the job last ran with names its staging directory.
    JobConf kept = new JobConf(false);
    kept.addResource(new Path(new File(dir, "job.xml").getPath()));
    String staging = kept.get(MRJobConfig.MAPREDUCE_JOB_DIR);
    if (staging == null) {
      fail("ham: cannot resume " + id + ": " + dir + "/job.xml names no staging directory");
    }
    JobConf staged = new JobConf(new Path(new Path(staging), MRJobConfig.JOB_CONF_FILE));
    List<String> changes = ResumeManifest.changes(new File(dir, JobDirs.RESUME_MANIFEST),
        staged);
    if (!changes.isEmpty()) {
      fail("ham: cannot resume " + id + ": " + String.join("; ", changes)
          + " (a resume would mix the old run's results with new data: submit the job again)");
    }
    if (checkOnly) {
      return;
    }
    JobConf current = new JobConf();
    Cluster cluster = new Cluster(current);
    HamClientProtocol.resume(id, staging, HistoryFiles.nextRun(new File(dir, JobDirs.HISTORY),
        id.toString()), current);
    Job job = cluster.getJob(id);
    System.exit(job.monitorAndPrintJob() ? 0 : 1);
  }

  private static void fail(String line) {
    System.err.println(line);
    System.exit(CHANGED);
  }
}
