package io.github.ham.mapreduce.driver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The scale bench's harness end to end, small: a real driver, simulated runners warmed up
 * against their own stand-in, one hung.
 */
class ScaleBenchTest {
  @TempDir
  Path tmp;

  @Test
  @SuppressWarnings("unchecked")
  void simulatedRunnersFinishTheJobAndAHungOneIsNoticed() throws Exception {
    ScaleBench bench = new ScaleBench();
    bench.parse(new String[] {"--maps", "60", "--runners", "6", "--jvms", "2", "--hang", "1",
        "--heartbeat-ms", "1000", "--sim-warmup", "40", "--work", tmp.resolve("work").toString(), "--out",
        tmp.resolve("scale.json").toString()});
    Map<String, Object> m = (Map<String, Object>) bench.run().get("metrics");
    assertEquals(1, m.get("succeeded"));
    assertEquals(60, m.get("tasks_done"), "every map once, the hung one's run again");
    assertEquals(1, m.get("reruns"));
    assertEquals(0, m.get("rpc_errors"));
    assertEquals(6, m.get("runners_connected"));
    assertEquals(6, m.get("handshakes"), "one connection a runner, counted by the driver");
    // Each runner JVM ended its warm-up attempts against its own stand-in before connecting:
    // none of them reached the driver (tasks_done and reruns above count the job's alone).
    assertEquals(40, m.get("sim_warmup_tasks"));
    assertTrue((Double) m.get("sim_warmup_s") > 0, "warm-up timed: " + m.get("sim_warmup_s"));
    assertEquals(1, m.get("lost_detected"));
    double detect = (Double) m.get("lost_detect_s");
    // From the runner's last call; the driver counts from its own side of it, a little earlier.
    assertTrue(detect >= 0.9 && detect < 5.0, "noticed after the heartbeat timeout: " + detect);
    assertTrue((Double) m.get("dispatches_per_s") > 0);
    assertTrue((Long) m.get("record_bytes") > 0);
    // Runners with nothing to do while the hung attempt waits are held by the driver (up to a
    // third of the heartbeat timeout), not answered at once: a held call takes ~333 ms. On a
    // loaded machine the other maps may end after the hung one was already found lost, and then
    // no call was ever answered empty: only the calls that were answered empty say anything.
    Number idle = (Number) m.get("rpc_getTask_idle_p50_ms");
    assertTrue(idle == null || idle.doubleValue() >= 200,
        "idle runners' calls are held: median " + idle + " ms");
  }
}
