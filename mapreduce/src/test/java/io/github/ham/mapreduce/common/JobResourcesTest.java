package io.github.ham.mapreduce.common;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.File;
import java.net.URI;

import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;

class JobResourcesTest {
  @Test
  void linkNameIsFragmentElseFileName() {
    assertEquals("_partition.lst",
        JobResources.linkName(URI.create("file:/out/_partition.lst#_partition.lst")));
    assertEquals("mapper.py", JobResources.linkName(URI.create("file:/staging/files/mapper.py")));
  }

  @Test
  void relativeCachePathsResolveAgainstJobWorkingDir() {
    Configuration conf = new Configuration(false);
    conf.set("mapreduce.job.working.dir", "file:/home/u/proj");
    JobResources r = new JobResources(conf, new JobDirs(new File("/tmp/x")));
    assertEquals(new File("/home/u/proj/data/a.txt"), r.resolve(URI.create("data/a.txt")));
    assertEquals(new File("/abs/b.txt"), r.resolve(URI.create("file:/abs/b.txt")));
  }
}
