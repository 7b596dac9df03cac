package io.github.ham.mapreduce.driver.commit;

import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.util.List;

import io.github.ham.mapreduce.common.HamConfig;
import io.github.ham.mapreduce.common.fs.Trees;
import io.github.ham.mapreduce.common.jobfiles.JobDirs;
import io.github.ham.mapreduce.common.jobfiles.JobResources;
import io.github.ham.mapreduce.lustre.Striping;

import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.security.Credentials;

/**
 * What a run of a job keeps in its directory besides its status and history: created when it
 * starts, removed when it ends.
 */
public final class RunFiles {
  /** How many of a job's attempt directories are deleted at once at its end (see Trees). */
  private static final int DELETE_THREADS = 8;

  private RunFiles() {
  }

  /**
   * logs/ and intermediate/ (striped for map outputs), the job's resources unpacked, the job.xml the runners and later
   * clients read (with this run's ham.* keys), and for a resumable job its marker and (first
   * run, before the driver adds its own secrets) the manifest a resume checks.
   */
  public static void create(JobConf conf, JobDirs dirs, int run, boolean resumable, File staging,
      Credentials credentials) throws IOException {
    Files.createDirectories(dirs.logs().toPath());
    Files.createDirectories(dirs.intermediate().toPath());
    // Before any map writes: its file.out inherits the layout (a resumed run's existing files
    // keep theirs).
    Striping.mapOutputDir(conf, dirs.intermediate());
    if (resumable) {
      if (run == 1) {
        ResumeManifest.write(dirs.resumeManifest(), staging, conf, credentials);
      }
      Files.write(dirs.resumable().toPath(), List.of(dirs.root().getName()));
    }
    try (OutputStream out = Files.newOutputStream(dirs.jobConf().toPath())) {
      conf.writeXml(out);
    }
    new JobResources(conf, dirs).unpack();
  }

  /**
   * The run ended: the control file and the runners' work directories go; the map outputs and
   * the resumable marker too, unless the job stopped and can be resumed (or
   * ham.keep.intermediate keeps the map outputs for debugging).
   */
  public static void clean(JobConf conf, JobDirs dirs, boolean resumable) {
    dirs.control().delete();
    Trees.delete(dirs.work(), DELETE_THREADS);
    if (!resumable) {
      dirs.resumable().delete();
      if (!conf.getBoolean(HamConfig.KEEP_INTERMEDIATE, HamConfig.DEFAULT_KEEP_INTERMEDIATE)) {
        Trees.delete(dirs.intermediate(), DELETE_THREADS);
      }
    }
  }
}
