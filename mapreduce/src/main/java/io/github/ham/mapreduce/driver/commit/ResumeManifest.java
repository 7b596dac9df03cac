package io.github.ham.mapreduce.driver.commit;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;

import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapreduce.lib.input.FileInputFormat;
import org.apache.hadoop.security.Credentials;

/**
 * What a resume must find unchanged, written when the job first runs
 * (jobs/&lt;id&gt;/resume.json): the staged files' SHA-256 (job.xml with the job's whole
 * configuration, job.split, job.splitmetainfo, job.jar), every input file (path, length,
 * modification time, listed as FileInputFormat lists them: names starting with _ or . left
 * out), and whether the client gave the job secrets (they are not kept, so such a job cannot
 * be resumed). MRAppMaster checks none of this (YARN re-runs the same staged files); HAM
 * resumes in a later allocation, when the user may have changed them.
 */
public final class ResumeManifest {
  static final List<String> STAGED = List.of("job.xml", "job.split", "job.splitmetainfo",
      "job.jar");
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final List<String> HADOOP_SECRETS = List.of("MapReduceShuffleToken",
      "MapReduceEncryptedSpillKey");

  private ResumeManifest() {
  }

  static void write(File file, File stagingDir, JobConf conf, Credentials credentials)
      throws IOException {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("staging", stagingDir.getPath());
    m.put("staged", staged(stagingDir));
    m.put("inputs", inputs(conf));
    m.put("secrets", hasSecrets(credentials));
    JSON.copy().enable(SerializationFeature.INDENT_OUTPUT).writeValue(file, m);
  }

  /**
   * What changed since the manifest was written, one line each (empty: the job can be
   * resumed); {@code conf} is the job's staged configuration.
   */
  @SuppressWarnings("unchecked")
  public static List<String> changes(File file, JobConf conf) throws IOException {
    if (!file.isFile()) {
      return List.of("the job kept no resume manifest (" + file + "): it ran with "
          + "ham.resumable=false or before HAM could resume jobs");
    }
    Map<String, Object> m = JSON.readValue(file, Map.class);
    List<String> out = new ArrayList<>();
    if (Boolean.TRUE.equals(m.get("secrets"))) {
      out.add("the job was given secrets or tokens by its client, which HAM does not keep");
    }
    File staging = new File((String) m.get("staging"));
    Map<String, Object> staged = (Map<String, Object>) m.get("staged");
    Map<String, String> now = staged(staging);
    for (String name : staged.keySet()) {
      if (!Objects.equals(staged.get(name), now.get(name))) {
        out.add("its staged " + name + " (" + new File(staging, name) + ") "
            + (now.containsKey(name) ? "changed" : "is gone"));
      }
    }
    Map<String, List<Object>> before = byPath((List<Map<String, Object>>) m.get("inputs"));
    Map<String, List<Object>> after = byPath(inputs(conf));
    for (Map.Entry<String, List<Object>> e : before.entrySet()) {
      List<Object> a = after.get(e.getKey());
      if (a == null) {
        out.add("input " + e.getKey() + " is gone");
      } else if (!a.equals(e.getValue())) {
        out.add("input " + e.getKey() + " changed (length and modification time were "
            + e.getValue() + ", now " + a + ")");
      }
    }
    for (String path : after.keySet()) {
      if (!before.containsKey(path)) {
        out.add("input " + path + " is new");
      }
    }
    return out;
  }

  private static Map<String, List<Object>> byPath(List<Map<String, Object>> inputs) {
    Map<String, List<Object>> out = new LinkedHashMap<>();
    for (Map<String, Object> e : inputs) {
      out.put((String) e.get("path"), List.of(((Number) e.get("length")).longValue(),
          ((Number) e.get("mtime")).longValue()));
    }
    return out;
  }

  private static Map<String, String> staged(File stagingDir) throws IOException {
    Map<String, String> staged = new LinkedHashMap<>();
    for (String name : STAGED) {
      File f = new File(stagingDir, name);
      if (f.isFile()) {
        staged.put(name, sha256(f));
      }
    }
    return staged;
  }

  /** The job's input files, through their file systems (file://, lustre://...). */
  private static List<Map<String, Object>> inputs(JobConf conf) throws IOException {
    List<Map<String, Object>> out = new ArrayList<>();
    for (Path dir : FileInputFormat.getInputPaths(new org.apache.hadoop.mapreduce.Job(conf))) {
      FileSystem fs = dir.getFileSystem(conf);
      FileStatus[] matched = fs.globStatus(dir);
      for (FileStatus s : matched == null ? new FileStatus[0] : matched) {
        list(fs, s, out);
      }
    }
    return out;
  }

  private static void list(FileSystem fs, FileStatus s, List<Map<String, Object>> out)
      throws IOException {
    if (s.isDirectory()) {
      FileStatus[] children = fs.listStatus(s.getPath(), p -> !p.getName().startsWith("_")
          && !p.getName().startsWith("."));
      Arrays.sort(children);
      for (FileStatus c : children) {
        list(fs, c, out);
      }
    } else {
      Map<String, Object> e = new LinkedHashMap<>();
      e.put("path", s.getPath().toString());
      e.put("length", s.getLen());
      e.put("mtime", s.getModificationTime());
      out.add(e);
    }
  }

  /**
   * Whether the client gave the job secrets or tokens of its own (beyond the shuffle secret
   * and intermediate-data key Hadoop makes, and the job token, which a resumed run makes anew).
   */
  static boolean hasSecrets(Credentials credentials) {
    for (Text alias : credentials.getAllSecretKeys()) {
      if (!HADOOP_SECRETS.contains(alias.toString())) {
        return true;
      }
    }
    for (Text alias : credentials.getTokenMap().keySet()) {
      if (!alias.toString().equals("JobToken")) {
        return true;
      }
    }
    return false;
  }

  static String sha256(File f) throws IOException {
    try (InputStream in = Files.newInputStream(f.toPath())) {
      MessageDigest md = MessageDigest.getInstance("SHA-256");
      byte[] buf = new byte[1 << 16];
      for (int n; (n = in.read(buf)) > 0;) {
        md.update(buf, 0, n);
      }
      StringBuilder sb = new StringBuilder();
      for (byte b : md.digest()) {
        sb.append(String.format("%02x", b));
      }
      return sb.toString();
    } catch (NoSuchAlgorithmException e) {
      throw new IOException(e);
    }
  }
}
