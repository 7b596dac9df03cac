package io.github.ham.mapreduce.common.protocol;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Properties;

/**
 * How another process of the job's user reaches its driver: the address of the driver's IPC
 * server and a token for {@link DriverControl}, in {@code jobs/<jobid>/control} (mode 0600
 * in a 0700 job directory: only the user can read it, so only the user can connect). Written
 * when the driver starts, removed when it ends.
 */
public record ControlFile(String host, int port, String token) {
  private static final String HOST = "host";
  private static final String PORT = "port";
  private static final String TOKEN = "token";

  public void write(File file) throws IOException {
    Properties p = new Properties();
    p.setProperty(HOST, host);
    p.setProperty(PORT, Integer.toString(port));
    p.setProperty(TOKEN, token);
    File tmp = new File(file.getParentFile(), "." + file.getName() + ".tmp");
    Files.deleteIfExists(tmp.toPath());
    // Created 0600 (not chmod'ed after): the token is never readable by anyone else.
    Files.createFile(tmp.toPath(), PosixFilePermissions.asFileAttribute(
        PosixFilePermissions.fromString("rw-------")));
    try (var out = Files.newBufferedWriter(tmp.toPath(), StandardCharsets.UTF_8,
        StandardOpenOption.TRUNCATE_EXISTING)) {
      p.store(out, "HAM driver control: address and token (private to the job's user)");
    }
    Files.move(tmp.toPath(), file.toPath(), StandardCopyOption.REPLACE_EXISTING,
        StandardCopyOption.ATOMIC_MOVE);
  }

  /** The control file's contents, or null if there is none (the driver has ended). */
  public static ControlFile read(File file) throws IOException {
    Properties p = new Properties();
    try (var in = Files.newBufferedReader(file.toPath(), StandardCharsets.UTF_8)) {
      p.load(in);
    } catch (java.nio.file.NoSuchFileException e) {
      return null;
    }
    return new ControlFile(p.getProperty(HOST), Integer.parseInt(p.getProperty(PORT)),
        p.getProperty(TOKEN));
  }
}
