package io.github.ham.mapreduce.history;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import io.github.ham.mapreduce.common.jobfiles.JobDirs;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.api.records.ApplicationAccessType;
import org.apache.hadoop.yarn.api.records.ApplicationAttemptId;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.logaggregation.ContainerLogsRequest;
import org.apache.hadoop.yarn.logaggregation.filecontroller.LogAggregationFileController;
import org.apache.hadoop.yarn.logaggregation.filecontroller.LogAggregationFileControllerFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * HAM's attempt logs written in YARN's aggregated format and read back by Hadoop's own reader
 * (the one `mapred job -logs` uses): one file per node, each attempt as its container, with
 * its stderr, stdout and syslog.
 */
class AggregatedLogsTest {
  private static final ApplicationId APP = ApplicationId.newInstance(1700000000000L, 7);
  private static final ApplicationAttemptId RUN = ApplicationAttemptId.newInstance(APP, 1);

  private static String read(File root, ContainerId container, String node) throws Exception {
    Configuration conf = AggregatedLogs.configuration(root);
    LogAggregationFileController reader = new LogAggregationFileControllerFactory(conf)
        .getFileControllerForRead(APP, "alice");
    ContainerLogsRequest request = new ContainerLogsRequest();
    request.setAppId(APP);
    request.setAppOwner("alice");
    request.setContainerId(container.toString());
    request.setNodeId(node);
    request.setLogTypes(Set.of());
    request.setBytes(Long.MAX_VALUE);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    assertTrue(reader.readAggregatedLogs(request, out), container + " on " + node);
    return out.toString(StandardCharsets.UTF_8);
  }

  @Test
  void eachAttemptIsItsContainerInItsNodesFile(@TempDir Path tmp) throws Exception {
    JobDirs dirs = JobDirs.of(tmp.resolve("session").toString(), "job_1700000000000_0007");
    Files.createDirectories(dirs.logs().toPath());
    String m0 = "attempt_1700000000000_0007_m_000000_0";
    String r0 = "attempt_1700000000000_0007_r_000000_0";
    String lost = "attempt_1700000000000_0007_m_000001_0";
    Files.writeString(dirs.attemptLog(m0, "node1", "stderr").toPath(), "mapper says hello\n");
    Files.writeString(dirs.attemptLog(m0, "node1", "syslog").toPath(), "Task 'm0' done.\n");
    Files.writeString(dirs.attemptLog(r0, "node2", "stdout").toPath(), "reducer output\n");
    ContainerId c2 = ContainerId.newContainerId(RUN, 2);
    ContainerId c3 = ContainerId.newContainerId(RUN, 3);
    ContainerId c4 = ContainerId.newContainerId(RUN, 4);

    AggregatedLogs logs = new AggregatedLogs(dirs.appLogs(), APP, "alice", -1,
        Map.of(ApplicationAccessType.VIEW_APP, " "));
    logs.write(dirs, List.of(new AggregatedLogs.Attempt(m0, c2, "node1"),
        new AggregatedLogs.Attempt(r0, c3, "node2"),
        new AggregatedLogs.Attempt(lost, c4, "node3")));  // no log files: not written

    File appDir = new File(logs.nodeFile("node1").getParent().toUri().getPath());
    Set<String> nodeFiles = new TreeSet<>(List.of(appDir.list((d, n) -> !n.startsWith("."))));
    assertEquals(Set.of("node1_-1", "node2_-1"), nodeFiles);
    assertEquals(new File(dirs.appLogs(), "alice/bucket-logs-tfile/0007/" + APP), appDir);

    String node1 = read(dirs.appLogs(), c2, "node1:-1");
    assertTrue(node1.contains("Container: " + c2 + " on node1_-1"), node1);
    assertTrue(node1.contains("LogType:stderr") && node1.contains("mapper says hello"), node1);
    assertTrue(node1.contains("LogType:syslog") && node1.contains("Task 'm0' done."), node1);
    // It wrote nothing to stdout (no file): an empty log, as YARN shows one per container.
    assertTrue(node1.contains("LogType:stdout\nLogLastModifiedTime"), node1);
    assertTrue(node1.matches("(?s).*LogType:stdout\n[^\n]*\nLogLength:0\n.*"), node1);
    String node2 = read(dirs.appLogs(), c3, "node2:-1");
    assertTrue(node2.contains("LogType:stdout") && node2.contains("reducer output"), node2);
    assertFalse(node2.contains("mapper says hello"), node2);
  }
}
