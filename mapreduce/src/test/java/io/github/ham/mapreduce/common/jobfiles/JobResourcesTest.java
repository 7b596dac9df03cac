package io.github.ham.mapreduce.common.jobfiles;

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

  @Test
  void theStagedJobJarIsOnTheSharedMountWhateverTheDefaultFileSystem(
      @org.junit.jupiter.api.io.TempDir File dir) throws java.io.IOException {
    File staged = new File(dir, "staging/job_1_0001/job.jar");
    staged.getParentFile().mkdirs();
    java.nio.file.Files.write(staged.toPath(), new byte[] {'P', 'K'});
    Configuration conf = new Configuration(false);
    conf.set("fs.defaultFS", "lustre:///");
    conf.set("fs.lustre.impl", "io.github.ham.mapreduce.lustre.LustreFileSystem");
    conf.set("fs.root.dir", new File(dir, "lustre-root").getPath());
    conf.set("mapreduce.job.jar", staged.getPath());
    assertEquals(staged, new JobResources(conf, new JobDirs(dir)).jobJar());
  }
}
