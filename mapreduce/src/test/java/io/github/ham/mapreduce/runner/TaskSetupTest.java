package io.github.ham.mapreduce.runner;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.github.ham.mapreduce.common.HamConfig;

import org.apache.hadoop.mapred.HamMapOutputBuffer;
import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapred.MapTask;
import org.apache.hadoop.mapreduce.MRJobConfig;
import org.junit.jupiter.api.Test;

class TaskSetupTest {
  private static String collector(JobConf job) {
    TaskSetup.reuseSortBuffer(job);
    return job.get(MRJobConfig.MAP_OUTPUT_COLLECTOR_CLASS_ATTR);
  }

  @Test
  void hadoopsCollectorBecomesTheOneKeepingItsSortBuffer() {
    assertEquals(HamMapOutputBuffer.class.getName(), collector(new JobConf()));
  }

  @Test
  void aCollectorTheJobNamesIsKept() {
    JobConf job = new JobConf();
    job.set(MRJobConfig.MAP_OUTPUT_COLLECTOR_CLASS_ATTR, "com.example.NativeCollector");
    assertEquals("com.example.NativeCollector", collector(job));
  }

  @Test
  void reuseCanBeTurnedOff() {
    JobConf job = new JobConf();
    job.setBoolean(HamConfig.REUSE_SORT_BUFFER, false);
    assertEquals(MapTask.MapOutputBuffer.class.getName(), collector(job));
  }
}
