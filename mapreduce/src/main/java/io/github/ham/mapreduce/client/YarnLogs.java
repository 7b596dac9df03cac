package io.github.ham.mapreduce.client;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.github.ham.mapreduce.common.HamConfig;
import io.github.ham.mapreduce.common.jobfiles.JobDirs;
import io.github.ham.mapreduce.history.JobHistoryLog;

import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapreduce.MRConfig;
import org.apache.hadoop.util.ToolRunner;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.ApplicationReport;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.ContainerReport;
import org.apache.hadoop.yarn.client.api.YarnClient;
import org.apache.hadoop.yarn.client.api.impl.YarnClientImpl;
import org.apache.hadoop.yarn.client.cli.LogsCLI;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.exceptions.ApplicationNotFoundException;
import org.apache.hadoop.yarn.exceptions.ContainerNotFoundException;
import org.apache.hadoop.yarn.exceptions.YarnException;
import org.apache.hadoop.yarn.webapp.util.WebServiceClient;

/**
 * {@code yarn logs -applicationId ID [-containerId ID] [...]} for HAM's jobs: Hadoop's own
 * LogsCLI over the aggregated logs the job's driver wrote when the job ended (YARN's TFile
 * format, in its session's app-logs/), found as {@code mapred job} finds the job
 * ({@link JobFinder}). YARN's CLI asks the ResourceManager for the application first; here
 * there is none, so its client answers "not found" at once (LogsCLI then reads the logs from
 * the file system, as for an application the ResourceManager forgot). A job still running has
 * no aggregated logs yet: one line says where its attempts' logs are.
 */
public final class YarnLogs {
  private static final Pattern CONTAINER = Pattern.compile("container_(?:e\\d+_)?(\\d+_\\d+)_");

  private YarnLogs() {
  }

  public static void main(String[] args) throws Exception {
    JobConf jobConf = new JobConf();
    if (!HamConfig.FRAMEWORK_NAME.equals(jobConf.get(MRConfig.FRAMEWORK_NAME))) {
      fail("HADOOP_CONF_DIR is not a HAM job's configuration (run `ham yarn logs ...`, which "
          + "finds your jobs, or run it inside `ham run` or after `ham env`)");
    }
    String jobId = jobId(List.of(args));
    if (jobId == null) {
      // No application named (-help, or an option LogsCLI explains): LogsCLI's own answer.
      System.exit(run(new YarnConfiguration(jobConf), args));
    }
    JobDirs dirs = new JobFinder(jobConf).find(jobId);
    if (dirs == null) {
      fail("no HAM job " + jobId + " among your jobs (`mapred job -list all` lists them)");
    }
    if (JobHistoryLog.published(dirs).length == 0) {
      String session = dirs.session().getName();
      fail(jobId + " has not ended: its logs are aggregated when it ends; its attempts' logs "
          + "so far: ham logs " + session);
    }
    YarnConfiguration conf = new YarnConfiguration(jobConf);
    conf.set(YarnConfiguration.NM_REMOTE_APP_LOG_DIR, dirs.appLogs().toURI().toString());
    System.exit(run(conf, args));
  }

  /** As LogsCLI's own main: its web-service client set up around the run. */
  private static int run(YarnConfiguration conf, String[] args) throws Exception {
    WebServiceClient.initialize(conf);
    try {
      return ToolRunner.run(conf, new HamLogsCli(), args);
    } finally {
      WebServiceClient.destroy();
    }
  }

  /** The job of the -applicationId (or -containerId) argument, or null if none is named. */
  static String jobId(List<String> args) {
    for (int i = 0; i + 1 < args.size(); i++) {
      String opt = args.get(i);
      Matcher m = "-applicationId".equals(opt) ? YarnApplications.APP_ID.matcher(args.get(i + 1))
          : "-containerId".equals(opt) ? CONTAINER.matcher(args.get(i + 1)) : null;
      if (m != null && m.lookingAt()) {
        return "job_" + m.group(1);
      }
    }
    return null;
  }

  private static void fail(String message) {
    System.err.println("ERROR: yarn logs: " + message);
    System.exit(1);
  }

  /** LogsCLI whose ResourceManager knows no application and no container. */
  static final class HamLogsCli extends LogsCLI {
    @Override
    protected YarnClient createYarnClient() {
      YarnClient client = new NoResourceManager();
      client.init(getConf());
      client.start();
      return client;
    }
  }

  /** A YARN client with no ResourceManager: every report is "not found", without a retry. */
  static final class NoResourceManager extends YarnClientImpl {
    @Override
    protected void serviceStart() {
      // No ResourceManager proxy: nothing to connect to.
    }

    @Override
    protected void serviceStop() {
    }

    @Override
    public ApplicationReport getApplicationReport(ApplicationId appId) throws YarnException {
      throw new ApplicationNotFoundException(appId + ": HAM has no ResourceManager");
    }

    @Override
    public ContainerReport getContainerReport(ContainerId containerId) throws YarnException {
      throw new ContainerNotFoundException(containerId + ": HAM has no ResourceManager");
    }
  }
}
