package io.github.ham.mapreduce.lustre;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Arrays;
import java.util.List;

import io.github.ham.mapreduce.common.HamConfig;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.BlockLocation;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileAlreadyExistsException;
import org.apache.hadoop.fs.FileContext;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.IOUtils;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LustreFileSystemTest {
  @TempDir
  java.nio.file.Path tmp;

  private static final String ME = System.getProperty("user.name");

  static Configuration conf(java.nio.file.Path root) {
    Configuration conf = new Configuration();
    conf.set(HamConfig.LUSTRE_ROOT, root.toString());
    conf.set("fs.permissions.umask-mode", "022");
    return conf;
  }

  static FileSystem lustre(Configuration conf) throws IOException {
    return FileSystem.newInstance(URI.create("lustre:///"), conf);
  }

  static void write(FileSystem fs, Path p, byte[] data) throws IOException {
    try (FSDataOutputStream out = fs.create(p)) {
      out.write(data);
    }
  }

  static byte[] read(FileSystem fs, Path p) throws IOException {
    try (FSDataInputStream in = fs.open(p)) {
      return IOUtils.readFullyToByteArray(in);
    }
  }

  @Test
  void pathsAreUnderTheRootAndRelativeOnesUnderUserHome() throws Exception {
    try (FileSystem fs = lustre(conf(tmp))) {
      assertTrue(fs instanceof LustreFileSystem, fs.getClass().getName());
      assertEquals(new Path("lustre:/user/" + ME), fs.getHomeDirectory());
      assertEquals(fs.getHomeDirectory(), fs.getWorkingDirectory());
      write(fs, new Path("/a/b.txt"), "abs".getBytes(StandardCharsets.UTF_8));
      write(fs, new Path("rel.txt"), "rel".getBytes(StandardCharsets.UTF_8));
      write(fs, new Path("lustre:///c.txt"), "uri".getBytes(StandardCharsets.UTF_8));
      assertEquals("abs", Files.readString(tmp.resolve("a/b.txt")));
      assertEquals("rel", Files.readString(tmp.resolve("user/" + ME + "/rel.txt")));
      assertEquals("uri", Files.readString(tmp.resolve("c.txt")));
      // Nothing resolves above the root, as nothing does above HDFS's "/".
      assertEquals(tmp.resolve("etc").toFile(), ((LustreFileSystem) fs).pathToFile(
          new Path("/../etc")));
      assertEquals(tmp.toFile(), ((LustreFileSystem) fs).pathToFile(new Path("lustre:///")));
      fs.setWorkingDirectory(new Path("/a"));
      assertEquals("abs", new String(read(fs, new Path("b.txt")), StandardCharsets.UTF_8));
      assertThrows(IllegalArgumentException.class, () -> fs.exists(new Path("file:///tmp")));
    }
  }

  @Test
  void rawLargeFilesWithoutChecksumFiles() throws Exception {
    byte[] data = new byte[5 * 1024 * 1024 + 17];
    new java.util.Random(7).nextBytes(data);
    try (FileSystem fs = lustre(conf(tmp))) {
      write(fs, new Path("/d/big"), data);
      assertArrayEquals(data, read(fs, new Path("/d/big")));
      assertEquals(data.length, fs.getFileStatus(new Path("/d/big")).getLen());
      assertFalse(FakeLfs.hasCrcFiles(tmp.toFile()));
      assertTrue(fs.rename(new Path("/d/big"), new Path("/d/moved")));
      assertTrue(fs.delete(new Path("/d"), true));
      assertFalse(tmp.resolve("d").toFile().exists());
    }
  }

  @Test
  void statusPermissionsAndOwnersAreTheMounts() throws Exception {
    try (FileSystem fs = lustre(conf(tmp))) {
      write(fs, new Path("/p/f"), new byte[3]);
      FileStatus[] listed = fs.listStatus(new Path("/p"));
      assertEquals(1, listed.length);
      FileStatus f = listed[0];
      assertEquals(new Path("lustre:/p/f"), f.getPath());
      assertEquals(ME, f.getOwner());
      assertEquals(Files.readAttributes(tmp.resolve("p/f"),
          java.nio.file.attribute.PosixFileAttributes.class).group().getName(), f.getGroup());
      assertEquals("rw-r--r--", f.getPermission().toString());
      assertEquals("rwxr-xr-x", fs.getFileStatus(new Path("/p")).getPermission().toString());
      assertTrue(fs.getFileStatus(new Path("/p")).isDirectory());
      fs.setPermission(new Path("/p/f"), new org.apache.hadoop.fs.permission.FsPermission(
          (short) 0640));
      assertEquals("rw-r-----", PosixFilePermissions.toString(
          Files.getPosixFilePermissions(tmp.resolve("p/f"))));
      fs.setOwner(new Path("/p/f"), ME, f.getGroup());
      assertEquals(ME, fs.getFileStatus(new Path("/p/f")).getOwner());
      assertThrows(java.io.FileNotFoundException.class,
          () -> fs.getFileStatus(new Path("/p/nothing")));
    }
  }

  @Test
  void blocksFollowTheSettingAndNameNoHosts() throws Exception {
    Configuration conf = conf(tmp);
    conf.setLong(HamConfig.LUSTRE_BLOCK_SIZE, 1 << 20);
    try (FileSystem fs = lustre(conf)) {
      write(fs, new Path("/f"), new byte[(5 << 19) + 1]);  // 2.5 MiB + 1
      FileStatus st = fs.getFileStatus(new Path("/f"));
      assertEquals(1 << 20, st.getBlockSize());
      BlockLocation[] blocks = fs.getFileBlockLocations(st, 0, st.getLen());
      assertEquals(3, blocks.length);
      assertEquals(2L << 20, blocks[2].getOffset());
      assertEquals((1 << 19) + 1, blocks[2].getLength());
      for (BlockLocation b : blocks) {
        assertEquals(0, b.getHosts().length, Arrays.toString(b.getHosts()));
      }
    }
    try (FileSystem fs = lustre(conf(tmp))) {
      assertEquals(32L << 20, fs.getFileStatus(new Path("/f")).getBlockSize());
    }
  }

  @Test
  void splitsCoverTheFileInBlocksWithoutHosts() throws Exception {
    Configuration conf = conf(tmp);
    conf.set("fs.defaultFS", "lustre:///");
    conf.setBoolean("fs.lustre.impl.disable.cache", true);  // this root is this test's only
    conf.setLong(HamConfig.LUSTRE_BLOCK_SIZE, 1 << 20);
    byte[] data = new byte[(7 << 19) + 3];  // 3.5 MiB + 3: four splits
    java.util.Arrays.fill(data, (byte) 'x');
    try (FileSystem fs = lustre(conf)) {
      write(fs, new Path("/in/f"), data);
    }
    org.apache.hadoop.mapreduce.Job job = org.apache.hadoop.mapreduce.Job.getInstance(conf);
    org.apache.hadoop.mapreduce.lib.input.FileInputFormat.addInputPath(job, new Path("/in"));
    List<org.apache.hadoop.mapreduce.InputSplit> splits =
        new org.apache.hadoop.mapreduce.lib.input.TextInputFormat().getSplits(job);
    long covered = 0;
    for (org.apache.hadoop.mapreduce.InputSplit split : splits) {
      covered += split.getLength();
      assertEquals(0, split.getLocations().length);
    }
    assertEquals(4, splits.size());
    assertEquals(data.length, covered);
    // The old API plans the same.
    org.apache.hadoop.mapred.JobConf old = new org.apache.hadoop.mapred.JobConf(conf);
    org.apache.hadoop.mapred.FileInputFormat.setInputPaths(old, new Path("/in"));
    org.apache.hadoop.mapred.InputSplit[] oldSplits =
        new org.apache.hadoop.mapred.TextInputFormat() {
          {
            configure(old);
          }
        }.getSplits(old, 1);
    assertEquals(4, oldSplits.length);
    assertEquals(0, oldSplits[0].getLocations().length);
  }

  @Test
  void onLustreTheBlockSizeComesFromTheStripeLayout() throws Exception {
    java.nio.file.Path root = FakeLfs.onLustre("blocks");
    FakeLfs lfs = new FakeLfs(tmp, 3, 4 << 20);
    Configuration conf = conf(root);
    conf.set(HamConfig.LFS, lfs.script.toString());
    try (FileSystem fs = lustre(conf)) {
      write(fs, new Path("/f"), new byte[10]);
      assertEquals(36L << 20, fs.getFileStatus(new Path("/f")).getBlockSize());
      assertEquals(36L << 20, fs.listStatus(new Path("/"))[0].getBlockSize());
      assertEquals(List.of("getstripe -c -S " + root.resolve("f")), lfs.calls());
    }
  }

  @Test
  void perFileStripeRulesCreateTheFileWithItsLayoutOnLustreOnly() throws Exception {
    java.nio.file.Path root = FakeLfs.onLustre("rules");
    FakeLfs lfs = new FakeLfs(tmp, 1, 1 << 20);
    Configuration conf = conf(root);
    conf.set(HamConfig.LFS, lfs.script.toString());
    conf.set(HamConfig.LUSTRE_FILE_STRIPES, "part-*=4:16M,/wide/*=-1:4M");
    try (FileSystem fs = lustre(conf)) {
      write(fs, new Path("/out/part-r-00000"), "data".getBytes(StandardCharsets.UTF_8));
      write(fs, new Path("/out/_SUCCESS"), new byte[0]);
      write(fs, new Path("/wide/x/y"), new byte[1]);
      assertEquals("data", Files.readString(root.resolve("out/part-r-00000")));
      assertEquals(List.of("setstripe -c 4 -S 16M " + root.resolve("out/part-r-00000"),
          "setstripe -c -1 -S 4M " + root.resolve("wide/x/y")), lfs.calls());
      assertThrows(FileAlreadyExistsException.class,
          () -> fs.create(new Path("/out/part-r-00000"), false));
      write(fs, new Path("/out/part-r-00000"), "again".getBytes(StandardCharsets.UTF_8));
      assertEquals("again", Files.readString(root.resolve("out/part-r-00000")));
    }
    // The same rules where the root is not on Lustre: no lfs call at all.
    FakeLfs none = new FakeLfs(tmp.resolve("..").resolve(tmp.getFileName() + "-x"), 1, 1);
    conf = conf(tmp);
    conf.set(HamConfig.LFS, none.script.toString());
    conf.set(HamConfig.LUSTRE_FILE_STRIPES, "part-*=4:16M");
    try (FileSystem fs = lustre(conf)) {
      write(fs, new Path("/out/part-r-00000"), "data".getBytes(StandardCharsets.UTF_8));
      fs.getFileStatus(new Path("/out/part-r-00000")).getBlockSize();
    }
    assertEquals(List.of(), none.calls());
  }

  @Test
  void halClassNamesAndFileContextWork() throws Exception {
    Configuration conf = conf(tmp);
    conf.set("fs.lustre.impl", "org.apache.hadoop.fs.LustreFileSystem");
    conf.set("fs.AbstractFileSystem.lustre.impl", "org.apache.hadoop.fs.LustreFileSystem$LustreFs");
    conf.set("fs.defaultFS", "lustre:///");
    try (FileSystem fs = FileSystem.newInstance(conf)) {
      assertEquals(org.apache.hadoop.fs.LustreFileSystem.class, fs.getClass());
      write(fs, new Path("/hal"), "x".getBytes(StandardCharsets.UTF_8));
    }
    FileContext fc = FileContext.getFileContext(conf);
    assertEquals(new Path("lustre:/user/" + ME), fc.getWorkingDirectory());
    try (FSDataOutputStream out = fc.create(new Path("/fc/file"),
        java.util.EnumSet.of(org.apache.hadoop.fs.CreateFlag.CREATE),
        org.apache.hadoop.fs.Options.CreateOpts.createParent())) {
      out.writeBytes("fc");
    }
    assertEquals("fc", Files.readString(tmp.resolve("fc/file")));
    assertTrue(fc.util().exists(new Path("/hal")));
    assertEquals(1, fc.util().listStatus(new Path("/fc")).length);
  }

  @Test
  void aMissingRootIsOneClearError() {
    Configuration conf = new Configuration();
    IOException e = assertThrows(IOException.class, () -> lustre(conf));
    assertTrue(e.getMessage().contains("fs.root.dir"), e.getMessage());
    conf.set(HamConfig.LUSTRE_ROOT, new File(tmp.toFile(), "nope").getPath());
    e = assertThrows(IOException.class, () -> lustre(conf));
    assertTrue(e.getMessage().contains("is not a directory"), e.getMessage());
  }
}
