package io.github.ham.mapreduce.driver.slurm;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Runs {@code scontrol show|update ...} for the driver's questions to Slurm (nodes, its job). */
final class Scontrol {
  private static final Logger LOG = LoggerFactory.getLogger(Scontrol.class);

  /** What scontrol printed, and whether it exited 0. */
  record Answer(boolean ok, String text) {
  }

  private Scontrol() {
  }

  /**
   * {@code scontrol show ARGS}; null when scontrol cannot be run or takes more than 10 s (the
   * controller may be busy: callers then assume nothing).
   */
  static Answer show(String scontrol, String... args) {
    List<String> cmd = new ArrayList<>(List.of(scontrol, "show"));
    cmd.addAll(List.of(args));
    return run(cmd);
  }

  /** {@code scontrol update ARGS}, as {@link #show}. */
  static Answer update(String scontrol, String... args) {
    List<String> cmd = new ArrayList<>(List.of(scontrol, "update"));
    cmd.addAll(List.of(args));
    return run(cmd);
  }

  private static Answer run(List<String> cmd) {
    try {
      Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
      p.getOutputStream().close();
      // Read on another thread: a hung scontrol never closes its output, and the wait below
      // must still end.
      CompletableFuture<byte[]> out = CompletableFuture.supplyAsync(() -> {
        try {
          return p.getInputStream().readAllBytes();
        } catch (IOException e) {
          return new byte[0];
        }
      });
      if (!p.waitFor(10, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        return null;
      }
      return new Answer(p.exitValue() == 0, new String(out.get(10, TimeUnit.SECONDS),
          StandardCharsets.UTF_8));
    } catch (IOException | ExecutionException | TimeoutException e) {
      LOG.warn("Cannot run {}: {}", cmd, e.toString());
      return null;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    }
  }
}
