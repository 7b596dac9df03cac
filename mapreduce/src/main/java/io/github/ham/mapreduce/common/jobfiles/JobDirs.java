package io.github.ham.mapreduce.common.jobfiles;

import java.io.File;
import java.util.List;

/**
 * The layout of one Hadoop job's runtime directory, {@code <ham.job.dir>/jobs/<jobid>/}, shared
 * by the driver and the runners. The names are part of the contract with the launcher
 * (launcher/ham/jobdir.py) and the SPANK plugin (slurm-plugins/ham_dirs.c), which remove
 * {@link #INTERMEDIATE} after a job: tests/unit/test_contract.py checks the three agree.
 */
public final class JobDirs {
  /** Under ham.job.dir: one directory per Hadoop job. */
  public static final String JOBS = "jobs";
  public static final String LOGS = "logs";
  public static final String INTERMEDIATE_DIR = "intermediate";
  public static final String WORK = "work";
  public static final String STATUS = "status.json";
  /** The job's configuration (a copy of the staged job.xml, kept after the job). */
  public static final String JOB_CONF = "job.xml";
  /** How other processes of the user reach the running driver ({@link ControlFile}). */
  public static final String CONTROL = "control";
  /** The job's history in Hadoop's format (.jhist), kept after the job. */
  public static final String HISTORY = "history";
  /**
   * In the job's directory while the job has not reached a final state (written when it
   * starts, removed when it succeeds, fails or is killed by its user): a job stopped on the
   * way (time limit, scancel, its driver lost) can be resumed, so the launcher and the SPANK
   * epilog leave its intermediate data, and the session's staging, until `ham cleanup`.
   */
  public static final String RESUMABLE = "resumable";
  /** A stopped job's output directory, moved aside (complete or absent, never half-written). */
  public static final String HELD_OUTPUT = "held-output";
  /** What a resume checks: the staged files, the inputs (written at the first run). */
  public static final String RESUME_MANIFEST = "resume.json";
  /** Around commitJob, as the MRAppMaster's: a resume knows whether the commit happened. */
  public static final String COMMIT_STARTED = "COMMIT_STARTED";
  public static final String COMMIT_SUCCESS = "COMMIT_SUCCESS";
  public static final String COMMIT_FAIL = "COMMIT_FAIL";
  /**
   * Beside {@link #JOBS} under ham.job.dir: the session's aggregated task logs in YARN's layout
   * (its yarn.nodemanager.remote-app-log-dir), written by each job's driver when the job ends.
   */
  public static final String APP_LOGS = "app-logs";
  /** What goes when the job ends (unless ham.keep.intermediate): map outputs, runner dirs. */
  public static final List<String> INTERMEDIATE = List.of(INTERMEDIATE_DIR, WORK);

  private final File root;

  public JobDirs(File root) {
    this.root = root;
  }

  public static JobDirs of(String hamJobDir, String jobId) {
    return new JobDirs(new File(new File(hamJobDir, JOBS), jobId));
  }

  public File root() {
    return root;
  }

  public File logs() {
    return new File(root, LOGS);
  }

  public File intermediate() {
    return new File(root, INTERMEDIATE_DIR);
  }

  /** Map output (file.out, file.out.index) and spills of one attempt. */
  public File attemptOutput(String attemptId) {
    return new File(intermediate(), attemptId);
  }

  public File work() {
    return new File(root, WORK);
  }

  /** Working directory (the JVM's cwd) of one runner. */
  public File runnerWork(String runnerName) {
    return new File(work(), runnerName);
  }

  /** Unpacked archives and the job jar's classes/ and lib/, shared by all tasks. */
  public File cache() {
    return new File(work(), "_cache");
  }

  public File status() {
    return new File(root, STATUS);
  }

  public File jobConf() {
    return new File(root, JOB_CONF);
  }

  public File resumable() {
    return new File(root, RESUMABLE);
  }

  public File heldOutput() {
    return new File(root, HELD_OUTPUT);
  }

  public File resumeManifest() {
    return new File(root, RESUME_MANIFEST);
  }

  public File marker(String name) {
    return new File(root, name);
  }

  public File history() {
    return new File(root, HISTORY);
  }

  /** The aggregated logs of the session this job ran in (ham.job.dir/{@link #APP_LOGS}). */
  public File appLogs() {
    return new File(session(), APP_LOGS);
  }

  /** The session this job ran in (ham.job.dir: {@code <session>/jobs/<job id>}). */
  public File session() {
    return root.getAbsoluteFile().getParentFile().getParentFile();
  }

  public File control() {
    return new File(root, CONTROL);
  }

  public File attemptLog(String attemptId, String host, String suffix) {
    return new File(logs(), attemptId + "." + host + "." + suffix);
  }
}
