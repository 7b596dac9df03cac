package io.github.ham.mapreduce.history;

import java.io.File;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import io.github.ham.mapreduce.common.jobfiles.JobDirs;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapreduce.MRJobConfig;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.yarn.api.records.ApplicationAccessType;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.NodeId;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.exceptions.YarnException;
import org.apache.hadoop.yarn.logaggregation.AggregatedLogFormat.LogKey;
import org.apache.hadoop.yarn.logaggregation.AggregatedLogFormat.LogValue;
import org.apache.hadoop.yarn.logaggregation.LogAggregationUtils;
import org.apache.hadoop.yarn.logaggregation.filecontroller.LogAggregationFileController;
import org.apache.hadoop.yarn.logaggregation.filecontroller.LogAggregationFileControllerContext;
import org.apache.hadoop.yarn.logaggregation.filecontroller.LogAggregationFileControllerFactory;
import org.apache.hadoop.yarn.logaggregation.filecontroller.tfile.LogAggregationTFileController;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A job's attempt logs in YARN's aggregated-log format, as NodeManagers upload a finished
 * application's container logs: under the remote log directory
 * ({@code <root>/<user>/bucket-logs-tfile/<bucket>/<application id>/}) one TFile per node
 * ({@code <node>_<port>}) holding each container that ran there with its {@code stderr},
 * {@code stdout} and {@code syslog}. Written with Hadoop's own TFile controller (YARN's
 * default), so the JobHistoryServer's log pages and {@code mapred job -logs} read them.
 *
 * <p>HAM keeps an attempt's logs as {@code logs/<attempt>.<node>.<type>}; each attempt is
 * written as the container and node its job's history names for it (one container per attempt,
 * as on YARN). Hadoop's writer would look for a container's files in
 * {@code <log dir>/<application>/<container>/} and name each by its file name; here it is
 * handed the attempt's files themselves, each named by its type ({@link ContainerLogs}): no
 * scratch directory of links to make and delete at the job's end, which took 60-80 ms of
 * the driver's ~190 ms from a 60-map job's last task to its end (bench/results/job-end).
 */
final class AggregatedLogs {
  private static final Logger LOG = LoggerFactory.getLogger(AggregatedLogs.class);
  /** The files of an attempt, as a YARN container's log files are named. */
  static final List<String> TYPES = List.of("stderr", "stdout", "syslog");

  /** An attempt as the job's history names it. */
  record Attempt(String id, ContainerId container, String node) {
  }

  private final LogAggregationFileController controller;
  private final ApplicationId app;
  private final String user;
  private final int port;
  private final Map<ApplicationAccessType, String> acls;
  private final UserGroupInformation ugi;

  /**
   * The application's log directory under {@code root}, created now (before the job's history
   * is published, so that `ham history-server` finds it with the job).
   */
  AggregatedLogs(File root, ApplicationId app, String user, int port,
      Map<ApplicationAccessType, String> acls) throws IOException {
    this.controller = new LogAggregationFileControllerFactory(configuration(root))
        .getFileControllerForWrite();
    this.app = app;
    this.user = user;
    this.port = port;
    this.acls = acls;
    this.ugi = UserGroupInformation.getCurrentUser();
    controller.createAppDir(user, app, ugi);
  }

  /**
   * The logs of a job ending now, under its session's app-logs/ (with the job's view and
   * modify ACLs, as YARN gets them from the MRAppMaster's launch context); null, with a WARN,
   * if its directory cannot be made: the job's history and its end do not depend on it.
   */
  static AggregatedLogs forJob(JobDirs dirs, ApplicationId app, String user, int port,
      JobConf conf) {
    try {
      return new AggregatedLogs(dirs.appLogs(), app, user, port, Map.of(
          ApplicationAccessType.VIEW_APP, conf.get(MRJobConfig.JOB_ACL_VIEW_JOB, " "),
          ApplicationAccessType.MODIFY_APP, conf.get(MRJobConfig.JOB_ACL_MODIFY_JOB, " ")));
    } catch (IOException | RuntimeException | LinkageError e) {
      LOG.warn("No aggregated logs for {}: {}", app, e.toString());
      return null;
    }
  }

  /**
   * What a JobHistoryServer or the log CLI reading {@code root} is configured with: the TFile
   * controller only (a site's yarn-site.xml on the class path does not choose another).
   */
  static Configuration configuration(File root) {
    Configuration conf = new Configuration();
    conf.set(YarnConfiguration.LOG_AGGREGATION_FILE_FORMATS, "TFile");
    conf.set(String.format(YarnConfiguration.LOG_AGGREGATION_FILE_CONTROLLER_FMT, "TFile"),
        LogAggregationTFileController.class.getName());
    conf.set(YarnConfiguration.NM_REMOTE_APP_LOG_DIR, root.getAbsoluteFile().toURI().toString());
    conf.set(YarnConfiguration.NM_REMOTE_APP_LOG_DIR_SUFFIX,
        YarnConfiguration.DEFAULT_NM_REMOTE_APP_LOG_DIR_SUFFIX);
    return conf;
  }

  /** The node file of {@code node} (where its containers' logs go). */
  Path nodeFile(String node) {
    return controller.getRemoteNodeLogFileForApp(app, user, NodeId.newInstance(node, port));
  }

  /**
   * Writes the logs of {@code attempts} found in the job's logs directory, one node file at a
   * time (each under a temporary name first, which readers skip, as a NodeManager uploads).
   */
  void write(JobDirs dirs, Collection<Attempt> attempts) throws IOException {
    String[] names = dirs.logs().list();
    Set<String> present = new HashSet<>(names == null ? List.of() : Arrays.asList(names));
    Map<String, List<Attempt>> byNode = new TreeMap<>();
    for (Attempt a : attempts) {
      if (a.node() != null && TYPES.stream().anyMatch(t -> present.contains(name(dirs, a, t)))) {
        byNode.computeIfAbsent(a.node(), n -> new ArrayList<>()).add(a);
      }
    }
    if (byNode.isEmpty()) {
      return;
    }
    // What an attempt never wrote to (its stdout and stderr are created at their first byte:
    // runner.AttemptLogs) shows as an empty log, as a YARN container's always-present files.
    File empty = File.createTempFile("ham-empty-log", "");
    try {
      for (Map.Entry<String, List<Attempt>> e : byNode.entrySet()) {
        writeNode(e.getKey(), e.getValue(), dirs, present, empty);
      }
    } finally {
      empty.delete();
    }
  }

  private void writeNode(String node, List<Attempt> attempts, JobDirs dirs, Set<String> present,
      File empty) throws IOException {
    NodeId nodeId = NodeId.newInstance(node, port);
    Path file = nodeFile(node);
    Path tmp = new Path(file.getParent(), file.getName() + LogAggregationUtils.TMP_FILE_SUFFIX);
    LogAggregationFileControllerContext context = new LogAggregationFileControllerContext(file,
        tmp, false, -1, app, acls, nodeId, ugi);
    controller.initializeWriter(context);
    try {
      for (Attempt a : attempts) {
        Set<File> files = new HashSet<>();
        for (String type : TYPES) {
          files.add(new LogFile(present.contains(name(dirs, a, type))
              ? dirs.attemptLog(a.id(), a.node(), type) : empty, type));
        }
        controller.write(new LogKey(a.container()), new ContainerLogs(a.container(), user, files));
      }
    } finally {
      try {
        controller.closeWriter();
      } catch (YarnException e) {
        throw new IOException(e);  // a quota exceeded (LogAggregationDFSException)
      }
    }
    context.setUploadedLogsInThisCycle(true);
    context.setLogUploadTimeStamp(System.currentTimeMillis());
    try {
      controller.postWrite(context);  // the temporary file to its name
    } catch (IOException e) {
      throw e;
    } catch (Exception e) {
      throw new IOException(e);
    }
  }

  /**
   * One container's log files as Hadoop's writer takes them: the files it would have found in
   * the container's log directory, given here (LogValue asks for them with this public call).
   */
  private static final class ContainerLogs extends LogValue {
    private final Set<File> files;

    ContainerLogs(ContainerId container, String user, Set<File> files) {
      super(List.of(), container, user);
      this.files = files;
    }

    @Override
    public Set<File> getPendingLogFilesToUploadForThisContainer() {
      return files;
    }
  }

  /**
   * An attempt's log file under the name of its type (stderr, stdout, syslog): LogValue writes
   * a file's name as its log type, which readers show ("LogType:stderr") and select by.
   */
  private static final class LogFile extends File {
    private final String type;

    LogFile(File file, String type) {
      super(file.getAbsolutePath());
      this.type = type;
    }

    @Override
    public String getName() {
      return type;
    }
  }

  private static String name(JobDirs dirs, Attempt a, String type) {
    return dirs.attemptLog(a.id(), a.node(), type).getName();
  }
}
