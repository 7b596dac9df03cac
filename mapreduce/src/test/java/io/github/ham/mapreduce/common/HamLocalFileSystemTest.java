package io.github.ham.mapreduce.common;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;

import io.github.ham.mapreduce.common.fs.KeptFiles;
import io.github.ham.mapreduce.common.fs.PosixModes;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.CreateFlag;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileContext;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.HamNewFileStream;
import org.apache.hadoop.fs.Options;
import org.apache.hadoop.fs.RawLocalFileSystem;
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

  /** The fields of a status as a string (Hadoop's toString leaves out some). */
  private static String fields(FileStatus s) {
    return String.join(" ", s.getPath().toString(), Long.toString(s.getLen()),
        Boolean.toString(s.isDirectory()), Boolean.toString(s.isSymlink()),
        Short.toString(s.getReplication()), Long.toString(s.getBlockSize()),
        Long.toString(s.getModificationTime()), Long.toString(s.getAccessTime()),
        s.getPermission().toString(), Boolean.toString(s.getPermission().getStickyBit()),
        s.getOwner(), s.getGroup());
  }

  /** HAM's local file system and Hadoop's raw one, both over "/" without site files. */
  private static HamLocalFileSystem ham() throws Exception {
    HamLocalFileSystem ham = new HamLocalFileSystem();
    ham.initialize(new File("/").toURI(), new Configuration(false));
    return ham;
  }

  private static RawLocalFileSystem hadoop() throws Exception {
    RawLocalFileSystem hadoop = new RawLocalFileSystem();
    hadoop.initialize(new File("/").toURI(), new Configuration(false));
    return hadoop;
  }

  @Test
  void statusesAreHadoopsFromOneStat() throws Exception {
    HamLocalFileSystem ham = ham();
    RawLocalFileSystem hadoop = hadoop();
    Files.writeString(dir.resolve("file"), "12345");
    Files.setPosixFilePermissions(dir.resolve("file"), PosixFilePermissions.fromString("rw-r-----"));
    Files.createDirectory(dir.resolve("sticky"));
    Files.setAttribute(dir.resolve("sticky"), "unix:mode", 01777);
    Files.createSymbolicLink(dir.resolve("link"), dir.resolve("file"));
    Files.createDirectory(dir.resolve("with space %"));
    Files.writeString(dir.resolve("\u00e9\u4e2d"), "non-ASCII");
    for (String name : new String[] {"file", "sticky", "link", "", "with space %",
        "\u00e9\u4e2d"}) {
      // As a file: URI (escaped by java.nio), as a path without scheme, qualified by Hadoop,
      // unnormalized, and with a fragment (a cache file's #name).
      org.apache.hadoop.fs.Path plain = new org.apache.hadoop.fs.Path(dir.resolve(name).toString());
      for (org.apache.hadoop.fs.Path p : List.of(
          new org.apache.hadoop.fs.Path(dir.resolve(name).toUri()), plain,
          plain.makeQualified(hadoop.getUri(), hadoop.getWorkingDirectory()),
          new org.apache.hadoop.fs.Path(dir + "//" + name + "/"),
          new org.apache.hadoop.fs.Path(java.net.URI.create(
              dir.resolve(name).toUri() + "#alias")))) {
        FileStatus ours = ham.getRawFileSystem().getFileStatus(p);
        FileStatus theirs = hadoop.getFileStatus(p);
        assertTrue(ours instanceof io.github.ham.mapreduce.common.fs.LocalStatus, name);
        assertEquals(theirs.getPath(), ours.getPath(), p.toString());
        assertEquals(fields(theirs), fields(ours), p.toString());
        assertEquals(fields(theirs), fields(ham.getFileStatus(p)), p.toString());
      }
    }
    assertTrue(ham.getFileStatus(new org.apache.hadoop.fs.Path(dir.resolve("sticky").toUri()))
        .getPermission().getStickyBit());
    org.apache.hadoop.fs.Path dirPath = new org.apache.hadoop.fs.Path(dir.toUri());
    assertEquals(Arrays.stream(hadoop.listStatus(dirPath)).map(HamLocalFileSystemTest::fields)
        .sorted().toList(), Arrays.stream(ham.listStatus(dirPath))
        .map(HamLocalFileSystemTest::fields).sorted().toList());
    org.apache.hadoop.fs.Path missing = new org.apache.hadoop.fs.Path(dir.resolve("none").toUri());
    assertEquals(assertThrows(FileNotFoundException.class, () -> hadoop.getFileStatus(missing))
        .getMessage(), assertThrows(FileNotFoundException.class,
            () -> ham.getFileStatus(missing)).getMessage());
    org.apache.hadoop.fs.Path under = new org.apache.hadoop.fs.Path(
        dir.resolve("file").resolve("x").toUri());
    assertThrows(FileNotFoundException.class, () -> ham.getFileStatus(under));
    // Permissions asked for after the file went: a RuntimeException, as from Hadoop's.
    org.apache.hadoop.fs.Path gone = new org.apache.hadoop.fs.Path(dir.resolve("gone").toUri());
    Files.writeString(dir.resolve("gone"), "x");
    FileStatus ours = ham.getFileStatus(gone);
    FileStatus theirs = hadoop.getFileStatus(gone);
    Files.delete(dir.resolve("gone"));
    assertThrows(RuntimeException.class, theirs::getOwner);
    assertThrows(RuntimeException.class, ours::getOwner);
  }

  /**
   * An open without Hadoop's stat first fails as Hadoop's does: a missing file with Hadoop's
   * message (also one named like a checksum file without its leading dot), a directory with
   * the open's; a missing checksum file keeps the open's message, and is none to
   * ChecksumFileSystem, which reads the file unchecked; a file reads as Hadoop's.
   */
  @Test
  void opensFailAsHadoops() throws Exception {
    HamLocalFileSystem ham = ham();
    RawLocalFileSystem hadoop = hadoop();
    FileSystem raw = ham.getRawFileSystem();
    Files.writeString(dir.resolve("file"), "12345\n");
    Files.createDirectory(dir.resolve("sub"));
    for (String name : new String[] {"none", "sub", "file/x", "none.crc", ".none.crc"}) {
      org.apache.hadoop.fs.Path p = new org.apache.hadoop.fs.Path(dir.resolve(name).toString());
      FileNotFoundException theirs = assertThrows(FileNotFoundException.class,
          () -> hadoop.open(p, 4096));
      FileNotFoundException ours = assertThrows(FileNotFoundException.class,
          () -> raw.open(p, 4096));
      if (name.startsWith(".")) {
        assertTrue(ours.getMessage().endsWith("(No such file or directory)"), ours.getMessage());
      } else {
        assertEquals(theirs.getMessage(), ours.getMessage(), name);
      }
    }
    org.apache.hadoop.fs.Path file = new org.apache.hadoop.fs.Path(dir.resolve("file").toString());
    // A file that opens costs no stat (Hadoop's open stats it first); a missing one costs one.
    HamLocalFileSystem.JavaPermissionsRawLocalFileSystem counted =
        (HamLocalFileSystem.JavaPermissionsRawLocalFileSystem) raw;
    int before = counted.lookups;
    try (FSDataInputStream in = raw.open(file, 4096)) {
      in.seek(2);
      assertEquals("345", new String(in.readNBytes(3), StandardCharsets.US_ASCII));
    }
    assertEquals(before, counted.lookups, "stats for an open that succeeded");
    assertThrows(FileNotFoundException.class,
        () -> raw.open(new org.apache.hadoop.fs.Path(dir.resolve("none").toString()), 4096));
    assertEquals(before + 1, counted.lookups, "stats for an open of a missing file");
    try (FSDataInputStream in = ham.open(file)) {  // checksummed, without a .crc
      assertEquals("12345\n", new String(in.readAllBytes(), StandardCharsets.US_ASCII));
    }
  }

  /**
   * A create gives what Hadoop's gives (the file's bytes and mode, a missing parent made, the
   * same errors) without a stat for a file it may overwrite or a directory that exists; one
   * that may not overwrite still asks first.
   */
  @Test
  void createsAsHadoops() throws Exception {
    HamLocalFileSystem.JavaPermissionsRawLocalFileSystem ham =
        (HamLocalFileSystem.JavaPermissionsRawLocalFileSystem) ham().getRawFileSystem();
    RawLocalFileSystem hadoop = hadoop();
    for (String side : new String[] {"hadoop", "ham"}) {
      FileSystem fs = side.equals("ham") ? ham : hadoop;
      Path base = Files.createDirectories(dir.resolve(side));
      Files.writeString(base.resolve("old"), "a longer old content\n");
      // A mode Hadoop's create changes: an overwrite sets it as Hadoop's does.
      Files.setPosixFilePermissions(base.resolve("old"),
          PosixFilePermissions.fromString("rw-------"));
      Files.writeString(base.resolve("plain"), "x");
      Files.createDirectory(base.resolve("sub"));
      int lookups = ham.lookups;
      for (String name : new String[] {"old", "new", "deeper/still/new"}) {
        try (FSDataOutputStream out = fs.create(path(base.resolve(name)), true)) {
          out.write(("written to " + name).getBytes(StandardCharsets.US_ASCII));
        }
        if (fs == ham && name.equals("new")) {
          assertEquals(lookups, ham.lookups, "stats for creates that may overwrite");
          // The umask this JVM runs with leaves 0644 whole (as 022 or 002 do): no chmod.
          assertEquals(HamNewFileStream.givenByOpen(0644, processUmask()) ? 1 : 2, ham.modesSet,
              "chmods for an overwrite and a new file");
        }
      }
      if (fs == ham) {
        assertTrue(ham.lookups > lookups, "mkdirs for the missing parents");
        assertEquals(HamNewFileStream.givenByOpen(0644, processUmask()) ? 1 : 3, ham.modesSet,
            "chmods, a new file in new directories included");
      }
      lookups = ham.lookups;
      assertThrows(org.apache.hadoop.fs.FileAlreadyExistsException.class,
          () -> fs.create(path(base.resolve("old")), false));
      if (fs == ham) {
        assertEquals(lookups + 1, ham.lookups, "one stat for a create that may not overwrite");
      }
      try (FSDataOutputStream out = fs.create(path(base.resolve("withMode")),
          new FsPermission((short) 0640), true, 4096, (short) 1, 1 << 20, null)) {
        out.write('m');
      }
    }
    for (String name : new String[] {"old", "new", "deeper/still/new", "withMode"}) {
      Path theirs = dir.resolve("hadoop").resolve(name);
      Path ours = dir.resolve("ham").resolve(name);
      assertEquals(Files.readString(theirs), Files.readString(ours), name);
      assertEquals(Files.getPosixFilePermissions(theirs), Files.getPosixFilePermissions(ours),
          name);
    }
    // Errors: a directory in the file's place, a file in its parent's place.
    for (String name : new String[] {"sub", "plain/x", "plain/x/y"}) {
      Exception theirs = assertThrows(IOException.class,
          () -> hadoop.create(path(dir.resolve("hadoop").resolve(name)), true));
      Exception ours = assertThrows(IOException.class,
          () -> ham.create(path(dir.resolve("ham").resolve(name)), true));
      assertEquals(theirs.getClass(), ours.getClass(), name);
      assertEquals(theirs.getMessage().replace("/hadoop/", "/ham/"), ours.getMessage(), name);
    }
  }

  /**
   * A kept file (KeptFiles) reads through the checked file system with the same bytes and the
   * same statistics as any other, without a stat; a read whose kept channel fails goes on from
   * a new open, and the file is no longer kept; after its handle is closed it is read as any.
   */
  @Test
  void keptFilesReadAsOthersWithoutAStat() throws Exception {
    HamLocalFileSystem ham = ham();
    HamLocalFileSystem.JavaPermissionsRawLocalFileSystem raw =
        (HamLocalFileSystem.JavaPermissionsRawLocalFileSystem) ham.getRawFileSystem();
    byte[] content = new byte[3000];
    for (int i = 0; i < content.length; i++) {
      content[i] = (byte) (i * 7);
    }
    org.apache.hadoop.fs.Path split = path(dir.resolve("job.split"));
    try (FSDataOutputStream out = ham.create(split, true)) {
      out.write(content);
    }
    File file = dir.resolve("job.split").toFile();
    File crc = dir.resolve(".job.split.crc").toFile();
    assertTrue(crc.isFile(), "the checksums");
    long[] unkept = readAt(ham, split, 1234, 700);
    int lookups = raw.lookups;
    try (java.io.Closeable kept = KeptFiles.keep(file, crc)) {
      assertArrayEquals(unkept, readAt(ham, split, 1234, 700));
      assertEquals(lookups, raw.lookups, "stats of a kept file");
      assertEquals(content.length, ham.getFileStatus(split).getLen());
      // A kept channel that fails (a client that ended it): read on from a new open.
      KeptFiles.get(file).channel().close();
      assertArrayEquals(unkept, readAt(ham, split, 1234, 700));
      assertEquals(null, KeptFiles.get(file));
    }
    assertEquals(null, KeptFiles.get(crc));
    lookups = raw.lookups;
    assertArrayEquals(unkept, readAt(ham, split, 1234, 700));
    assertTrue(raw.lookups > lookups, "a file no longer kept is stat'ed again");
  }

  /** The checksum of {@code length} bytes read at {@code offset}, and the bytes counted read. */
  private static long[] readAt(FileSystem fs, org.apache.hadoop.fs.Path p, long offset,
      int length) throws Exception {
    long before = readBytes();
    java.util.zip.CRC32 sum = new java.util.zip.CRC32();
    try (FSDataInputStream in = fs.open(p)) {
      in.seek(offset);
      sum.update(in.readNBytes(length));
    }
    return new long[] {sum.getValue(), readBytes() - before};
  }

  private static long readBytes() {
    return FileSystem.getAllStatistics().stream()
        .mapToLong(FileSystem.Statistics::getBytesRead).sum();
  }

  private static org.apache.hadoop.fs.Path path(Path p) {
    return new org.apache.hadoop.fs.Path(p.toString());
  }

  @Test
  void mkdirsAsHadoops() throws Exception {
    Configuration conf = new Configuration(false);
    HamLocalFileSystem ham = new HamLocalFileSystem();
    ham.initialize(new File("/").toURI(), conf);
    RawLocalFileSystem raw = ham.getRawFileSystem() instanceof RawLocalFileSystem r ? r : null;
    org.apache.hadoop.fs.Path deep = new org.apache.hadoop.fs.Path(dir.resolve("a/b/c").toUri());
    assertTrue(raw.mkdirs(deep, new FsPermission((short) 0700)));
    assertTrue(Files.isDirectory(dir.resolve("a/b/c")));
    // An existing directory: true, its permission unchanged.
    assertTrue(raw.mkdirs(deep, new FsPermission((short) 0755)));
    assertTrue(raw.mkdirs(deep));
    assertEquals("rwx------",
        PosixFilePermissions.toString(Files.getPosixFilePermissions(dir.resolve("a/b/c"))));
    // Made with 0777 under the umask, as Hadoop's, parents too.
    Configuration masked = new Configuration(false);
    masked.set("fs.permissions.umask-mode", "027");
    RawLocalFileSystem hadoop = new RawLocalFileSystem();
    hadoop.initialize(new File("/").toURI(), masked);
    HamLocalFileSystem ours = new HamLocalFileSystem();
    ours.initialize(new File("/").toURI(), masked);
    assertTrue(hadoop.mkdirs(new org.apache.hadoop.fs.Path(dir.resolve("h/x").toUri())));
    assertTrue(ours.getRawFileSystem().mkdirs(
        new org.apache.hadoop.fs.Path(dir.resolve("o/x").toUri())));
    for (String d : new String[] {"", "/x"}) {
      assertEquals(Files.getPosixFilePermissions(dir.resolve("h" + d)),
          Files.getPosixFilePermissions(dir.resolve("o" + d)), d);
    }
    assertEquals("rwxr-x---",
        PosixFilePermissions.toString(Files.getPosixFilePermissions(dir.resolve("o/x"))));
    Files.writeString(dir.resolve("f"), "x");
    org.apache.hadoop.fs.Path file = new org.apache.hadoop.fs.Path(dir.resolve("f").toUri());
    assertThrows(org.apache.hadoop.fs.FileAlreadyExistsException.class, () -> raw.mkdirs(file));
    // A dangling symlink at the name: false at once, as Hadoop's (no wait for a stale cache).
    Files.createSymbolicLink(dir.resolve("dangling"), dir.resolve("nowhere"));
    org.apache.hadoop.fs.Path dangling =
        new org.apache.hadoop.fs.Path(dir.resolve("dangling").toUri());
    long start = System.nanoTime();
    assertEquals(hadoop.mkdirs(dangling), raw.mkdirs(dangling));
    assertTrue(System.nanoTime() - start < HamLocalFileSystem.JavaPermissionsRawLocalFileSystem
        .STALE_NAME_WAIT_MS * 1_000_000L / 2, "waited for a name that is there");
    assertThrows(org.apache.hadoop.fs.ParentNotDirectoryException.class,
        () -> raw.mkdirs(new org.apache.hadoop.fs.Path(file, "x")));
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

  /** The process's umask as a file made with mode 0777 shows it. */
  private int processUmask() throws IOException {
    Path probe = Files.createFile(dir.resolve("umask-probe"),
        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxrwxrwx")));
    int mode = 0;
    for (java.nio.file.attribute.PosixFilePermission p : Files.getPosixFilePermissions(probe)) {
      mode |= 0400 >> p.ordinal();  // OWNER_READ .. OTHERS_EXECUTE in the order of their bits
    }
    Files.delete(probe);
    return 0777 & ~mode;
  }

  /** The umask HamNewFileStream reads from /proc is the one the kernel applies. */
  @Test
  void readsTheProcessUmask() throws Exception {
    assertEquals(processUmask(), HamNewFileStream.umask());
  }

  /** Which modes an open gives whole: rwx bits only, none the umask takes away. */
  @Test
  void modesGivenByTheOpen() {
    assertTrue(HamNewFileStream.givenByOpen(0644, 022));
    assertTrue(HamNewFileStream.givenByOpen(0640, 027));
    assertFalse(HamNewFileStream.givenByOpen(0666, 022), "group and others' write cut");
    assertFalse(HamNewFileStream.givenByOpen(0644, 077));
    assertFalse(HamNewFileStream.givenByOpen(01644, 022), "the sticky bit");
    assertFalse(HamNewFileStream.givenByOpen(0644, -1), "an unknown umask");
  }

  /**
   * A mode the process's umask would cut (0666 under a job's umask of 000) is set as Hadoop
   * sets it, after the open; so is any mode with HAM's file system when the umask leaves it.
   */
  @Test
  void modesTheOpenCannotGiveAreSetAfterIt() throws Exception {
    for (String umask : new String[] {"000", "027", "077"}) {
      Configuration conf = new Configuration(false);
      conf.set("fs.permissions.umask-mode", umask);
      HamLocalFileSystem ham = new HamLocalFileSystem();
      ham.initialize(new File("/").toURI(), conf);
      RawLocalFileSystem hadoop = new RawLocalFileSystem();
      hadoop.initialize(new File("/").toURI(), conf);
      HamLocalFileSystem.JavaPermissionsRawLocalFileSystem raw =
          (HamLocalFileSystem.JavaPermissionsRawLocalFileSystem) ham.getRawFileSystem();
      Path ours = dir.resolve("ham-" + umask);
      Path theirs = dir.resolve("hadoop-" + umask);
      try (FSDataOutputStream out = raw.create(path(ours), true)) {
        out.write('x');
      }
      try (FSDataOutputStream out = hadoop.create(path(theirs), true)) {
        out.write('x');
      }
      assertEquals(Files.getPosixFilePermissions(theirs), Files.getPosixFilePermissions(ours),
          umask);
      int mode = 0666 & ~Integer.parseInt(umask, 8);
      assertEquals(HamNewFileStream.givenByOpen(mode, processUmask()) ? 0 : 1, raw.modesSet, umask);
    }
  }

  /**
   * A stream of a file made with its mode writes, counts and answers as Hadoop's: the bytes,
   * the statistics (bytes written), the capabilities, hsync; a write that fails is an FSError.
   */
  @Test
  void newFileStreamsBehaveAsHadoops() throws Exception {
    FileSystem[] both = {ham().getRawFileSystem(), hadoop()};
    String[] capabilities = {"hflush", "hsync", "iostatistics", "fs.capability.iocontext.supported",
        "in:readahead", "dropbehind", "unbuffer", "fs.capability.outputstream.abortable"};
    List<String> answers = new java.util.ArrayList<>();
    HamLocalFileSystem.JavaPermissionsRawLocalFileSystem ours =
        (HamLocalFileSystem.JavaPermissionsRawLocalFileSystem) both[0];
    for (FileSystem fs : both) {
      Path file = dir.resolve(fs.getClass().getSimpleName());
      try (FSDataOutputStream out = fs.create(path(file), true)) {
        out.write("0123456789".getBytes(StandardCharsets.US_ASCII));
        out.hsync();
        out.write('x');
        out.hflush();
        StringBuilder a = new StringBuilder();
        for (String c : capabilities) {
          a.append(c).append('=').append(out.hasCapability(c)).append(' ');
        }
        answers.add(a.toString());
        out.close();
        assertEquals(11L, (long) out.getIOStatistics().counters().get("stream_write_bytes"),
            fs.getClass().getSimpleName());
      }
      assertEquals("0123456789x", Files.readString(file));
    }
    assertEquals(answers.get(1), answers.get(0));
    assertEquals(HamNewFileStream.givenByOpen(0644, processUmask()) ? 0 : 1, ours.modesSet,
        "HAM's create took HamNewFileStream");
    java.io.OutputStream mine = HamNewFileStream.create(dir.resolve("closed").toFile(),
        new FsPermission((short) 0600));
    org.junit.jupiter.api.Assumptions.assumeTrue(mine != null, "a umask that cuts 0600");
    mine.close();
    assertThrows(org.apache.hadoop.fs.FSError.class, () -> mine.write(new byte[3], 0, 3));
  }

  /**
   * Buffers: a map output and its index are read 4 KB at a time (what a 1-byte read takes from
   * the file), other files with the buffer asked for; an index is written through 4 KB (what a
   * 5,000-byte write leaves in the file before close), other files through at least
   * io.file.buffer.size.
   */
  @Test
  void mapOutputsAndIndexesGetSmallBuffers() throws Exception {
    Configuration conf = new Configuration(false);
    conf.setInt("io.file.buffer.size", 128 * 1024);
    HamLocalFileSystem ham = new HamLocalFileSystem();
    ham.initialize(new File("/").toURI(), conf);
    FileSystem raw = ham.getRawFileSystem();
    FileSystem.Statistics stats = FileSystem.getStatistics("file", raw.getClass());
    for (String name : new String[] {"file.out", "file.out.index", "spill0.out.index", "other"}) {
      Path file = dir.resolve("read").resolve(name);
      Files.createDirectories(file.getParent());
      Files.write(file, new byte[200_000]);
      long before = stats.getBytesRead();
      try (FSDataInputStream in = raw.open(path(file), 128 * 1024)) {
        in.read();
      }
      assertEquals(name.equals("other") ? 128 * 1024 : 4096, stats.getBytesRead() - before, name);
    }
    for (String name : new String[] {"file.out.index", "other"}) {
      Path file = dir.resolve("write").resolve(name);
      try (FSDataOutputStream out = raw.create(path(file), true)) {
        for (int i = 0; i < 5000; i++) {
          out.write('x');
        }
        assertEquals(name.equals("other") ? 0 : 4096, Files.size(file), name);
      }
      assertEquals(5000, Files.size(file), name);
    }
  }

  /**
   * A thread with its interrupt flag set (or interrupted while it writes) writes, syncs and
   * closes a new file as Hadoop's stream lets it (a FileOutputStream ignores interrupts; the
   * JDK closes a FileChannel for one), and its flag is still set afterwards.
   */
  @Test
  void writesGoOnThroughAnInterruptAsHadoops() throws Exception {
    FileSystem[] both = {ham().getRawFileSystem(), hadoop()};
    for (FileSystem fs : both) {
      Path file = dir.resolve("interrupted-" + fs.getClass().getSimpleName());
      try (FSDataOutputStream out = fs.create(path(file), true)) {
        Thread.currentThread().interrupt();
        out.write(new byte[200_000]);  // past the buffer: to the file while interrupted
        out.hsync();
        Thread.currentThread().interrupt();
        out.write("end".getBytes(StandardCharsets.US_ASCII));
        out.hsync();
      } finally {
        assertTrue(Thread.interrupted(), "the interrupt flag kept");
      }
      assertEquals(200_003, Files.size(file), fs.getClass().getSimpleName());
    }
    assertEquals(HamNewFileStream.givenByOpen(0644, processUmask()) ? 0 : 1,
        ((HamLocalFileSystem.JavaPermissionsRawLocalFileSystem) both[0]).modesSet);
  }
}
