package io.github.ham.mapreduce.lustre;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.github.ham.mapreduce.common.HamConfig;

import org.apache.hadoop.conf.Configuration;

/**
 * Lustre's {@code lfs} command, the way HAM sets and reads stripe layouts (ham.lfs, found on
 * PATH by default). Callers decide first, with {@link LustreMounts}, that the path is on
 * Lustre: nothing here runs for other file systems.
 */
public final class Lfs {
  private static final long TIMEOUT_S = 60;
  private static final Pattern COUNT = Pattern.compile("(?m)^\\s*(?:lmm_stripe_count:)?\\s*(-?\\d+)\\s*$");
  private static final Pattern LABELLED_COUNT = Pattern.compile("lmm_stripe_count:\\s*(-?\\d+)");
  private static final Pattern LABELLED_SIZE = Pattern.compile("lmm_stripe_size:\\s*(\\d+)");

  private final String command;

  public Lfs(Configuration conf) {
    this.command = conf.getTrimmed(HamConfig.LFS, HamConfig.DEFAULT_LFS);
  }

  /**
   * {@code lfs setstripe -c COUNT -S SIZE target}: a directory's default layout (files and
   * directories created in it inherit it), or a new, empty file with that layout.
   */
  public void setstripe(File target, StripeLayout layout) throws IOException {
    List<String> argv = new ArrayList<>(List.of(command, "setstripe"));
    argv.addAll(layout.lfsArgs());
    argv.add(target.getPath());
    run(argv);
  }

  /**
   * The layout of an existing file: {@code lfs getstripe -c -S FILE}, which prints
   * {@code lmm_stripe_count: N} and {@code lmm_stripe_size: N} (a composite file: its first
   * component's).
   */
  public StripeLayout getstripe(File file) throws IOException {
    String out = run(List.of(command, "getstripe", "-c", "-S", file.getPath()));
    Matcher count = LABELLED_COUNT.matcher(out);
    Matcher size = LABELLED_SIZE.matcher(out);
    if (count.find() && size.find()) {
      return new StripeLayout(Integer.parseInt(count.group(1)), Long.parseLong(size.group(1)));
    }
    // Some lfs versions print bare values, count first.
    Matcher bare = COUNT.matcher(out);
    if (bare.find()) {
      int c = Integer.parseInt(bare.group(1));
      if (bare.find()) {
        return new StripeLayout(c, Long.parseLong(bare.group(1)));
      }
    }
    throw new IOException("cannot read the stripe layout of " + file + " from `"
        + String.join(" ", command, "getstripe", "-c", "-S") + "`: " + out.strip());
  }

  private static String run(List<String> argv) throws IOException {
    Process p;
    try {
      p = new ProcessBuilder(argv).redirectErrorStream(true).start();
    } catch (IOException e) {
      throw new IOException(String.join(" ", argv) + ": cannot run " + argv.get(0) + " ("
          + e.getMessage() + "); set " + HamConfig.LFS + " to Lustre's lfs", e);
    }
    p.getOutputStream().close();
    String out;
    try (InputStream in = p.getInputStream()) {
      ByteArrayOutputStream buf = new ByteArrayOutputStream();
      in.transferTo(buf);
      out = buf.toString(StandardCharsets.UTF_8);
    }
    try {
      if (!p.waitFor(TIMEOUT_S, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new IOException(String.join(" ", argv) + ": no answer in " + TIMEOUT_S + " s");
      }
    } catch (InterruptedException e) {
      p.destroyForcibly();
      Thread.currentThread().interrupt();
      throw new IOException(String.join(" ", argv) + ": interrupted", e);
    }
    if (p.exitValue() != 0) {
      throw new IOException(String.join(" ", argv) + " failed (exit " + p.exitValue() + "): "
          + out.strip());
    }
    return out;
  }
}
