package io.github.ham.mapreduce;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;

import io.github.ham.mapreduce.client.ResumeJob;
import io.github.ham.mapreduce.common.HamConfig;
import io.github.ham.mapreduce.common.HamLocalFileSystem;
import io.github.ham.mapreduce.common.HamLocalFs;
import io.github.ham.mapreduce.common.ids.AttemptKey;
import io.github.ham.mapreduce.common.jobfiles.JobDirs;
import io.github.ham.mapreduce.common.jobfiles.RunnerWorkDirs;
import io.github.ham.mapreduce.common.protocol.WarmClaims;
import io.github.ham.mapreduce.driver.report.StatusRecord;
import io.github.ham.mapreduce.driver.schedule.AttemptIds;
import io.github.ham.mapreduce.driver.schedule.SchedulingPolicy;
import io.github.ham.mapreduce.driver.schedule.TaskScheduler;
import io.github.ham.mapreduce.lustre.LustreFileSystem;
import io.github.ham.mapreduce.lustre.LustreFs;

import org.apache.hadoop.mapred.JobID;
import org.apache.hadoop.mapreduce.Counters;
import org.apache.hadoop.mapreduce.TaskCounter;
import org.apache.hadoop.util.HamRunJar;

/**
 * Prints, as JSON, what the Java runtime shares with the launcher (Python) and the SPANK
 * plugin (C): configuration keys and their defaults, environment variables, the job-directory
 * layout, the status record's fields, and a sample status record made by the real writer.
 * tests/unit/test_contract.py compares it with launcher/ham/contract.py and the plugin, so a
 * name changed on one side only fails a test.
 * <pre>java -cp ham-mapreduce.jar:lib/* io.github.ham.mapreduce.Contract</pre>
 */
public final class Contract {
  private Contract() {
  }

  public static void main(String[] args) throws Exception {
    System.out.println(new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT)
        .enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS).writeValueAsString(contract()));
  }

  static Map<String, Object> contract() throws IllegalAccessException {
    Map<String, Object> out = new LinkedHashMap<>();
    Map<String, Object> constants = constants(HamConfig.class);
    Map<String, Object> keys = new TreeMap<>();
    Map<String, Object> defaults = new TreeMap<>();
    Map<String, Object> env = new TreeMap<>();
    Map<String, Object> values = new TreeMap<>();
    for (Map.Entry<String, Object> c : constants.entrySet()) {
      String name = c.getKey();
      if (name.startsWith("DEFAULT_") && constants.get(name.substring(8)) instanceof String key
          && isKey(key)) {
        defaults.put(key, String.valueOf(c.getValue()));
      } else if (name.startsWith("ENV_")) {
        env.put(name, c.getValue());
      } else if (c.getValue() instanceof String s && isKey(s)) {
        keys.put(name, s);
      } else if (!name.startsWith("DEFAULT_")) {
        values.put(name, c.getValue());
      }
    }
    out.put("keys", keys);
    out.put("defaults", defaults);
    out.put("env", env);
    out.put("values", values);
    out.put("layout", constants(JobDirs.class));
    out.put("classes", Map.of("LUSTRE_FS_CLASS", LustreFileSystem.class.getName(),
        "LUSTRE_AFS_CLASS", LustreFs.class.getName(), "LUSTRE_SCHEME", LustreFileSystem.SCHEME,
        "LOCAL_FS_CLASS", HamLocalFileSystem.class.getName(),
        "LOCAL_AFS_CLASS", HamLocalFs.class.getName()));
    out.put("client", Map.of("CLIENT_UNJAR_PROPERTY", HamRunJar.UNJAR_PROPERTY));
    out.put("resume", Map.of("CLASS", ResumeJob.class.getName(), "CHANGED", ResumeJob.CHANGED));
    out.put("warm", constants(WarmClaims.class));
    out.put("workdirs", constants(RunnerWorkDirs.class));
    Map<String, Object> status = new LinkedHashMap<>();
    status.put("JOB_FIELDS", StatusRecord.JOB_FIELDS);
    status.put("COUNT_FIELDS", StatusRecord.COUNT_FIELDS);
    status.put("ATTEMPT_FIELDS", StatusRecord.ATTEMPT_FIELDS);
    out.put("status", status);
    out.put("sample_status", sampleStatus());
    return out;
  }

  /** HAM's own keys, and the HAL keys (fs.root.dir, fs.lustre.*) HAM reads. */
  private static boolean isKey(String s) {
    return s.startsWith("ham.") || s.startsWith("fs.");
  }

  /** Public static final fields of a class, by name. */
  private static Map<String, Object> constants(Class<?> type) throws IllegalAccessException {
    Map<String, Object> out = new TreeMap<>();
    for (Field f : type.getDeclaredFields()) {
      int m = f.getModifiers();
      if (Modifier.isPublic(m) && Modifier.isStatic(m) && Modifier.isFinal(m)) {
        out.put(f.getName(), f.get(null));
      }
    }
    return out;
  }

  /**
   * The record of a job with 2 maps and 1 reduce, at 10 s: map 0 failed once then succeeded,
   * map 1 is half done on node2, the reduce waits. Made by the scheduler and writer the driver
   * uses, so the launcher's readers are tested on what the runtime really writes.
   */
  private static Map<String, Object> sampleStatus() {
    JobID id = new JobID("1700000000000", 7);
    AttemptIds ids = new AttemptIds(id);
    TaskScheduler s = new TaskScheduler(2, 1, SchedulingPolicy.basic(4, 600_000, 30_000));
    s.setTaskNames(t -> ids.task(t).toString());
    long t0 = 1_700_000_000_000L;
    AttemptKey m0 = s.assign("node1/g0-p0/11", t0 + 1000);
    AttemptKey m1 = s.assign("node2/g0-p1/12", t0 + 1000);
    s.failed(m0, "java.io.IOException: disk on fire", t0 + 2000);
    AttemptKey m0again = s.assign("node3/g0-p2/13", t0 + 3000);
    s.succeeded(m0again, t0 + 6000);
    s.progress(m1, 0.5f, t0 + 9000);
    Counters counters = new Counters();
    counters.findCounter(TaskCounter.MAP_INPUT_RECORDS).increment(42);
    StatusRecord.Job job = new StatusRecord.Job(id.toString(), "word count", "alice", "RUNNING",
        t0, 0, null, "/lustre/alice/out", true, 3, 1, List.of(4242L),
        new StatusRecord.Resume(1, 0, false));
    return StatusRecord.build(job, s, counters, ids);
  }
}
