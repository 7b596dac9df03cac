package io.github.ham.mapreduce.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.exceptions.ApplicationNotFoundException;
import org.junit.jupiter.api.Test;

class YarnLogsTest {
  @Test
  void theJobOfAnApplicationOrAContainer() {
    assertEquals("job_1764_0003",
        YarnLogs.jobId(List.of("-applicationId", "application_1764_0003")));
    assertEquals("job_1764_0003", YarnLogs.jobId(List.of("-containerId",
        "container_1764_0003_01_000002", "-log_files", "stdout")));
    assertEquals("job_1764_0003",
        YarnLogs.jobId(List.of("-containerId", "container_e17_1764_0003_01_000002")));
    assertNull(YarnLogs.jobId(List.of("-help")));
    assertNull(YarnLogs.jobId(List.of("-applicationId")));
  }

  @Test
  void theResourceManagerKnowsNothingAndSaysSoAtOnce() {
    YarnLogs.NoResourceManager client = new YarnLogs.NoResourceManager();
    client.init(new Configuration(false));
    client.start();
    assertThrows(ApplicationNotFoundException.class,
        () -> client.getApplicationReport(ApplicationId.newInstance(1764, 3)));
    client.stop();
  }
}
