package io.github.ham.mapreduce.client;

import java.io.IOException;
import java.io.PrintStream;
import java.text.DecimalFormat;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.github.ham.mapreduce.common.HamConfig;

import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapreduce.Cluster;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.JobID;
import org.apache.hadoop.mapreduce.JobStatus;
import org.apache.hadoop.mapreduce.MRConfig;

/**
 * {@code yarn application -list|-status|-kill} for HAM's jobs. A MapReduce job on YARN runs in
 * the application with its numbers (job_X_N in application_X_N); under HAM the job is the
 * application, so scripts that list, inspect or kill applications work on HAM's jobs (found
 * as {@code mapred job} finds them: {@link HamClientProtocol}). The output follows YARN's
 * ApplicationCLI; the other options (queues, priorities, timeouts, services) name no HAM
 * concept and fail with one line.
 */
public final class YarnApplications {
  private static final String ROW = "%30s\t%20s\t%20s\t%10s\t%10s\t%18s\t%18s\t%15s\t%35s%n";
  /** application_X_N, the job job_X_N (yarn logs reads it too). */
  static final Pattern APP_ID = Pattern.compile("application_(\\d+_\\d+)");
  private static final List<String> ACTIVE = List.of("SUBMITTED", "ACCEPTED", "RUNNING");
  private static final List<String> ALL_STATES = List.of("NEW", "NEW_SAVING", "SUBMITTED",
      "ACCEPTED", "RUNNING", "FINISHED", "FAILED", "KILLED");
  private static final long KILL_WAIT_MS = 30_000;

  private final Cluster cluster;
  private final PrintStream out;

  YarnApplications(Cluster cluster, PrintStream out) {
    this.cluster = cluster;
    this.out = out;
  }

  public static void main(String[] args) throws Exception {
    JobConf conf = new JobConf();
    if (!HamConfig.FRAMEWORK_NAME.equals(conf.get(MRConfig.FRAMEWORK_NAME))) {
      System.err.println("ERROR: yarn application: HADOOP_CONF_DIR is not a HAM job's "
          + "configuration (run `ham yarn application ...`, which finds your jobs from any "
          + "shell, or run it inside `ham run` or after `ham env`)");
      System.exit(1);
    }
    int code;
    Cluster cluster = new Cluster(conf);
    try {
      code = new YarnApplications(cluster, System.out).run(args);
    } catch (IllegalArgumentException | IOException e) {
      System.err.println("ERROR: yarn application: " + e.getMessage());
      code = 1;
    } finally {
      cluster.close();
    }
    System.exit(code);
  }

  int run(String[] args) throws IOException, InterruptedException {
    String first = args.length == 0 ? "-help" : args[0];
    switch (first) {
      case "-list":
        return list(Arrays.copyOfRange(args, 1, args.length));
      case "-status":
        return status(argument(args, "-status"));
      case "-kill":
        if (args.length < 2) {
          throw new IllegalArgumentException("-kill needs an application id");
        }
        int code = 0;
        for (String id : Arrays.copyOfRange(args, 1, args.length)) {
          code = Math.max(code, kill(id));
        }
        return code;
      case "-help":
      case "--help":
        out.println("usage: yarn application -list [-appStates STATES] [-appTypes TYPES]"
            + " | -status APP_ID | -kill APP_ID...  (HAM: applications are HAM's jobs,"
            + " application_X_N is job_X_N)");
        return 0;
      default:
        throw new IllegalArgumentException(first + " is not supported under HAM, which has no"
            + " ResourceManager: applications are HAM's jobs (-list, -status, -kill)");
    }
  }

  private static String argument(String[] args, String option) {
    if (args.length < 2) {
      throw new IllegalArgumentException(option + " needs an application id");
    }
    return args[1];
  }

  private int list(String[] args) throws IOException, InterruptedException {
    Set<String> states = new LinkedHashSet<>(ACTIVE);
    Set<String> types = new LinkedHashSet<>();
    for (int i = 0; i < args.length; i++) {
      String value = i + 1 < args.length ? args[i + 1] : "";
      if (args[i].equals("-appStates")) {
        states = values(value);
        i++;
      } else if (args[i].equals("-appTypes")) {
        types = values(value);
        i++;
      } else {
        throw new IllegalArgumentException(args[i] + " is not supported under HAM (-list takes"
            + " -appStates and -appTypes)");
      }
    }
    if (states.contains("ALL")) {
      states = new LinkedHashSet<>(ALL_STATES);
    }
    List<JobStatus> shown = new ArrayList<>();
    boolean mapreduce = types.isEmpty() || types.contains("MAPREDUCE");
    for (JobStatus s : mapreduce ? cluster.getAllJobStatuses() : new JobStatus[0]) {
      if (states.contains(state(s))) {
        shown.add(s);
      }
    }
    out.println("Total number of applications (application-types: " + types + ", states: "
        + states + " and tags: []):" + shown.size());
    out.printf(ROW, "Application-Id", "Application-Name", "Application-Type", "User", "Queue",
        "State", "Final-State", "Progress", "Tracking-URL");
    for (JobStatus s : shown) {
      out.printf(ROW, applicationId(s.getJobID()), s.getJobName(), "MAPREDUCE", s.getUsername(),
          s.getQueue(), state(s), finalState(s), percent(s), s.getTrackingUrl());
    }
    return 0;
  }

  private static Set<String> values(String list) {
    Set<String> out = new LinkedHashSet<>();
    for (String v : list.split(",")) {
      if (!v.trim().isEmpty()) {
        out.add(v.trim().toUpperCase(Locale.ROOT));
      }
    }
    return out;
  }

  private int status(String appId) throws IOException, InterruptedException {
    JobStatus s = find(appId);
    if (s == null) {
      return notFound(appId);
    }
    out.println("Application Report : ");
    field("Application-Id", applicationId(s.getJobID()));
    field("Application-Name", s.getJobName());
    field("Application-Type", "MAPREDUCE");
    field("User", s.getUsername());
    field("Queue", s.getQueue());
    field("Start-Time", s.getStartTime());
    field("Finish-Time", s.getFinishTime());
    field("Progress", percent(s));
    field("State", state(s));
    field("Final-State", finalState(s));
    field("Tracking-URL", s.getTrackingUrl());
    field("Diagnostics", s.getFailureInfo() == null ? "" : s.getFailureInfo());
    return 0;
  }

  private void field(String name, Object value) {
    out.println("\t" + name + " : " + value);
  }

  private int kill(String appId) throws IOException, InterruptedException {
    JobID id = jobId(appId);
    Job job = cluster.getJob(id);
    if (job == null) {
      return notFound(appId);
    }
    if (job.isComplete()) {
      out.println("Application " + appId + " has already finished ");
      return 0;
    }
    out.println("Killing application " + appId);
    job.killJob();
    // As YARN's client does: wait until the application has ended.
    long deadline = System.currentTimeMillis() + KILL_WAIT_MS;
    while (!job.isComplete() && System.currentTimeMillis() < deadline) {
      Thread.sleep(200);
    }
    out.println(job.isComplete() ? "Killed application " + appId
        : "Kill of application " + appId + " requested; it is still ending (mapred job -status "
            + id + ")");
    return 0;
  }

  private int notFound(String appId) {
    System.err.println("Application with id '" + appId + "' doesn't exist in RM or Timeline "
        + "Server. (HAM: no job " + jobId(appId) + " of yours under the parent of "
        + HamConfig.JOB_DIR + ")");
    return 255;
  }

  private JobStatus find(String appId) throws IOException, InterruptedException {
    Job job = cluster.getJob(jobId(appId));
    return job == null ? null : job.getStatus();
  }

  static JobID jobId(String appId) {
    Matcher m = APP_ID.matcher(appId);
    if (!m.matches()) {
      throw new IllegalArgumentException("Invalid ApplicationId prefix: " + appId
          + ". The valid ApplicationId should start with prefix application");
    }
    return JobID.forName("job_" + m.group(1));
  }

  static String applicationId(JobID id) {
    return "application_" + id.getJtIdentifier() + "_" + String.format("%04d", id.getId());
  }

  /** YARN's state of the application a job would run in. */
  static String state(JobStatus s) {
    switch (s.getState()) {
      case PREP:
        return "ACCEPTED";
      case RUNNING:
        return "RUNNING";
      case KILLED:
        return "KILLED";
      default:
        // The ApplicationMaster of a succeeded or failed job unregisters: FINISHED.
        return "FINISHED";
    }
  }

  static String finalState(JobStatus s) {
    switch (s.getState()) {
      case SUCCEEDED:
        return "SUCCEEDED";
      case FAILED:
        return "FAILED";
      case KILLED:
        return "KILLED";
      default:
        return "UNDEFINED";
    }
  }

  /** The MRAppMaster's weights: setup and cleanup 5% each, maps and reduces 45% each. */
  static String percent(JobStatus s) {
    float p = s.getState() == JobStatus.State.SUCCEEDED ? 1f
        : 0.05f * s.getSetupProgress() + 0.45f * s.getMapProgress()
            + 0.45f * s.getReduceProgress() + 0.05f * s.getCleanupProgress();
    return new DecimalFormat("###.##%").format(p);
  }
}
