package io.github.ham.mapreduce.client;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.File;
import java.io.FileOutputStream;
import java.io.OutputStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.apache.hadoop.mapred.JobConf;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class JobKeysTest {
  private static List<String> warned(JobConf conf) throws Exception {
    return JobKeys.load().ignoredIn(conf).stream().map(k -> k[0]).toList();
  }

  /**
   * A job that sets ignored keys under their deprecated names is warned about the keys they
   * stand for, once each, whether the configuration is the client's or the job.xml the driver
   * reads; a deprecated name of an honoured key (mapred.reduce.tasks) gets no warning.
   */
  @Test
  void ignoredKeysSetUnderTheirDeprecatedNamesAreWarnedAbout(@TempDir Path dir)
      throws Exception {
    JobConf client = new JobConf(false);
    client.set("mapred.job.queue.name", "prod");
    client.set("mapred.task.profile", "true");
    client.set("mapred.reduce.tasks", "2");
    client.set("mapreduce.job.ubertask.enable", "true");
    List<String> expected = List.of("mapreduce.job.queuename", "mapreduce.job.ubertask.enable",
        "mapreduce.task.profile");
    assertEquals(expected, warned(client));

    File xml = dir.resolve("job.xml").toFile();
    try (OutputStream out = new FileOutputStream(xml)) {
      client.writeXml(out);
    }
    JobConf driver = new JobConf(new org.apache.hadoop.fs.Path(xml.toURI()));  // as HamJob
    assertEquals(expected, warned(driver));
  }

  @Test
  void deprecatedNamesAreHadoopsTable() {
    Map<String, List<String>> names = JobKeys.deprecatedNames();
    assertEquals(List.of("mapreduce.job.reduces"), names.get("mapred.reduce.tasks"));
    assertEquals(List.of("mapreduce.map.java.opts"), names.get("mapred.map.child.java.opts"));
    assertEquals(List.of("fs.defaultFS"), names.get("fs.default.name"));
    assertEquals(null, names.get("mapred.child.java.opts"), "not deprecated: a key of its own");
  }
}
