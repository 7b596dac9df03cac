package io.github.ham.mapreduce.runner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.ham.mapreduce.common.HamConfig;
import io.github.ham.mapreduce.common.protocol.WarmClaims;
import io.github.ham.mapreduce.common.protocol.WarmClaims.Claim;
import io.github.ham.mapreduce.driver.launch.RunnerExit;
import io.github.ham.mapreduce.driver.launch.WarmRunners;

import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A parked runner and the drivers that claim it, in one JVM over loopback TCP. */
class WarmParkTest {
  @TempDir
  Path session;

  private WarmRunners driver() throws Exception {
    Configuration conf = new Configuration(false);
    conf.set(HamConfig.JOB_DIR, session.toString());
    conf.setLong(HamConfig.RUNNER_WARM_IDLE_MS, 20_000);
    WarmRunners w = WarmRunners.of(conf);
    w.workRoot("job_1_0001");
    return w;
  }

  private WarmPark park(String key, long idleMs) throws Exception {
    driver();  // the first job made the registry
    return WarmPark.fromEnv(Map.of(HamConfig.ENV_WARM_DIR,
        WarmClaims.root(session.toFile()).getPath(), HamConfig.ENV_WARM_KEY, key,
        HamConfig.ENV_WARM_IDLE_MS, Long.toString(idleMs)), "nodeA");
  }

  private File parked() {
    return new File(WarmClaims.root(session.toFile()), WarmClaims.PARKED);
  }

  private CompletableFuture<Claim> parkAsync(WarmPark p) throws Exception {
    CompletableFuture<Claim> f = CompletableFuture.supplyAsync(() -> {
      try {
        return p.await("127.0.0.1", "");
      } catch (Exception e) {
        throw new RuntimeException(e);
      }
    });
    long deadline = System.currentTimeMillis() + 10_000;
    while (listed().isEmpty() && System.currentTimeMillis() < deadline) {
      Thread.sleep(10);
    }
    assertEquals(1, listed().size(), "the runner registered itself");
    return f;
  }

  private List<File> listed() {
    File[] f = parked().listFiles((d, n) -> n.endsWith(WarmClaims.SUFFIX) && !n.startsWith("."));
    return f == null ? List.of() : List.of(f);
  }

  private static Claim template() {
    return new Claim("127.0.0.1", 4242, "job_2_0001", "", "/jobs/job_2_0001", "TOKEN", 0);
  }

  @Test
  void aClaimReachesTheParkedRunnerOnceAndItsEndIsSeen() throws Exception {
    WarmRunners first = driver();
    WarmPark p = park("k1", 20_000);
    CompletableFuture<Claim> claimed = parkAsync(p);
    assertEquals(1, first.claim("k1", 1, 1, 3, template()));
    Claim c = claimed.get(10, TimeUnit.SECONDS);
    assertEquals("job_2_0001", c.jobId());
    assertEquals("g3-p0", c.slot());
    assertEquals("TOKEN", c.token());
    assertEquals(20_000, c.idleMs());
    assertTrue(listed().isEmpty(), "a claimed runner is no longer listed");
    assertEquals(0, driver().claim("k1", 1, 1, 0, template()), "claimed by one job only");
    assertTrue(first.alive(3));
    p.release();  // the job told it to exit: it parks again, its claim's connection closes
    long deadline = System.currentTimeMillis() + 10_000;
    List<RunnerExit> exits = first.exits();
    while (exits.isEmpty() && System.currentTimeMillis() < deadline) {
      Thread.sleep(10);
      exits = first.exits();
    }
    assertEquals(List.of("g3-p0"), exits.stream().map(RunnerExit::slot).toList());
    assertFalse(first.alive(3));
  }

  @Test
  void runnersOfAnotherLaunchKeyOrTooFewAreNotClaimed() throws Exception {
    WarmPark p = park("k1", 1_500);
    CompletableFuture<Claim> claimed = parkAsync(p);
    assertEquals(0, driver().claim("k2", 1, 1, 0, template()), "another key");
    assertEquals(0, driver().claim("k1", 1, 2, 0, template()), "2 per node wanted");
    assertEquals(0, driver().claim("k1", 2, 1, 0, template()), "2 nodes wanted");
    assertNull(claimed.get(10, TimeUnit.SECONDS), "not claimed within its idle time: exits");
    assertTrue(listed().isEmpty(), "its entry goes with it");
  }

  @Test
  void theSessionsStopEndsAParkedRunnerAndAWrongNonceDoesNot() throws Exception {
    WarmPark p = park("k1", 20_000);
    CompletableFuture<Claim> claimed = parkAsync(p);
    WarmClaims.Entry e = WarmClaims.Entry.read(listed().get(0));
    send(e, WarmClaims.STOP + "\tnot-the-nonce\n");
    send(e, template().line("not-the-nonce"));
    Thread.sleep(300);
    assertFalse(claimed.isDone(), "a stop or claim without the entry's nonce is ignored");
    send(e, WarmClaims.STOP + "\t" + e.nonce() + "\n");
    assertNull(claimed.get(10, TimeUnit.SECONDS));
  }

  private static void send(WarmClaims.Entry e, String line) throws Exception {
    try (Socket s = new Socket(e.address(), e.port())) {
      OutputStream out = s.getOutputStream();
      out.write(line.getBytes(StandardCharsets.UTF_8));
      out.flush();
      Thread.sleep(50);
    }
  }

  @Test
  void claimLinesCarryEveryFieldAndNeedTheNonce() {
    Claim c = new Claim("10.0.0.1", 1234, "job_9_0002", "g1-p4", "/s/jobs/job_9_0002", "tok",
        3000);
    String line = c.line("abc").strip();
    assertEquals(c, Claim.parse(line, "abc"));
    assertNull(Claim.parse(line, "abd"));
    assertTrue(WarmClaims.isStop(WarmClaims.STOP + "\tabc", "abc"));
    assertFalse(WarmClaims.isStop(WarmClaims.STOP + "\tab", "abc"));
  }

  @Test
  void theLaunchKeyLeavesOutTheJobsTokenAndDirectory() {
    List<String> argv = List.of("java", "-Xmx1g", "-cp", "a:b", "Main");
    String k = WarmRunners.key(argv, Map.of("HAM_JOB_TOKEN", "t1", "HAM_JOB_RUNTIME_DIR", "/j1",
        "X", "1"));
    assertEquals(k, WarmRunners.key(argv, Map.of("HAM_JOB_TOKEN", "t2",
        "HAM_JOB_RUNTIME_DIR", "/j2", "X", "1")));
    assertNotEquals(k, WarmRunners.key(argv, Map.of("X", "2")));
    assertNotEquals(k, WarmRunners.key(List.of("java", "-Xmx2g", "-cp", "a:b", "Main"),
        Map.of("X", "1")));
  }
}
