package io.github.ham.mapreduce.common;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.EnumSet;

import io.github.ham.mapreduce.common.fs.PosixModes;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.CreateFlag;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileContext;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Options;
import org.apache.hadoop.fs.permission.FsPermission;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HamLocalFileSystemTest {
  @TempDir
  Path dir;

  @Test
  void permissionBitsMapToPosix() {
    assertEquals(PosixFilePermissions.fromString("rwxr-x--x"),
        PosixModes.of(new FsPermission((short) 0751)));
    assertEquals(PosixFilePermissions.fromString("rw-r--r--"),
        PosixModes.of(new FsPermission((short) 0644)));
    assertEquals(PosixFilePermissions.fromString("---------"),
        PosixModes.of(new FsPermission((short) 0)));
  }

  @Test
  void createdFilesGetTheUmaskedDefaultAndSetPermissionWorks() throws Exception {
    Configuration conf = new Configuration(false);
    conf.set("fs.permissions.umask-mode", "027");
    HamLocalFileSystem fs = new HamLocalFileSystem();
    fs.initialize(new File("/").toURI(), conf);
    org.apache.hadoop.fs.Path file = new org.apache.hadoop.fs.Path(dir.resolve("a").toUri());
    try (FSDataOutputStream out = fs.create(file)) {
      out.writeBytes("x");
    }
    assertEquals("rw-r-----",
        PosixFilePermissions.toString(Files.getPosixFilePermissions(dir.resolve("a"))));
    fs.setPermission(file, new FsPermission((short) 0600));
    assertEquals("rw-------",
        PosixFilePermissions.toString(Files.getPosixFilePermissions(dir.resolve("a"))));
  }

  @Test
  void isTheLocalFileSystemWhenConfigured() throws Exception {
    Configuration conf = new Configuration(false);
    conf.setClass("fs.file.impl", HamLocalFileSystem.class, FileSystem.class);
    conf.setBoolean("fs.file.impl.disable.cache", true);
    assertSame(HamLocalFileSystem.class, FileSystem.getLocal(conf).getClass());
  }

  @Test
  void fileContextGetsTheSameWithItsChecksums() throws Exception {
    Configuration conf = new Configuration(false);
    conf.set("fs.permissions.umask-mode", "027");
    conf.set("fs.AbstractFileSystem.file.impl", HamLocalFs.class.getName());
    FileContext fc = FileContext.getLocalFSFileContext(conf);
    assertSame(HamLocalFs.class, fc.getDefaultFileSystem().getClass());
    org.apache.hadoop.fs.Path file = new org.apache.hadoop.fs.Path(dir.resolve("b").toUri());
    try (FSDataOutputStream out = fc.create(file, EnumSet.of(CreateFlag.CREATE),
        Options.CreateOpts.perms(new FsPermission((short) 0640)))) {
      out.writeBytes("log");
    }
    assertEquals("rw-r-----",
        PosixFilePermissions.toString(Files.getPosixFilePermissions(dir.resolve("b"))));
    assertTrue(Files.exists(dir.resolve(".b.crc")), "LocalFs's checksum file");
    try (FSDataInputStream in = fc.open(file)) {
      assertEquals("log", new String(in.readAllBytes(), StandardCharsets.UTF_8));
    }
  }
}
