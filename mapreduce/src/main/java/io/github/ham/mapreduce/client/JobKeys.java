package io.github.ham.mapreduce.client;

import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.TreeSet;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.mapred.JobConf;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What HAM does with each configuration key a job may set (job-keys.tsv beside this class):
 * honoured as on YARN, honoured differently, or ignored. At submission the client prints one
 * WARN line for every ignored key the job sets to other than its default, so that nothing
 * differs from YARN silently; {@link #main} prints the tables of docs/job-keys.md. A key set
 * under a deprecated name (mapred.job.queue.name) is the key it stands for
 * (mapreduce.job.queuename): Hadoop's Configuration sets and reads it so.
 */
public final class JobKeys {
  /** HAM's notices to the user: this logger goes to the console (rendered log4j file). */
  private static final Logger NOTICE = LoggerFactory.getLogger("ham");

  /** A rule of job-keys.tsv: a key, or a prefix ending in {@code *}. */
  record Rule(String pattern, String status, String note) {
    boolean matches(String key) {
      return pattern.endsWith("*") ? key.startsWith(pattern.substring(0, pattern.length() - 1))
          : key.equals(pattern);
    }
  }

  private final List<Rule> rules;

  private JobKeys(List<Rule> rules) {
    this.rules = rules;
  }

  static JobKeys load() throws IOException {
    List<Rule> rules = new ArrayList<>();
    try (InputStream in = JobKeys.class.getResourceAsStream("job-keys.tsv");
        BufferedReader r = new BufferedReader(new InputStreamReader(
            Objects.requireNonNull(in, "job-keys.tsv"), StandardCharsets.UTF_8))) {
      for (String line; (line = r.readLine()) != null;) {
        if (line.isBlank() || line.startsWith("#")) {
          continue;
        }
        String[] f = line.split("\t", -1);
        if (f.length != 3) {
          throw new IOException("job-keys.tsv: not key<TAB>status<TAB>note: " + line);
        }
        rules.add(new Rule(f[0], f[1], f[2]));
      }
    }
    return new JobKeys(rules);
  }

  /** The rule for {@code key}: the longest pattern that matches, or null. */
  Rule rule(String key) {
    Rule best = null;
    for (Rule r : rules) {
      if (r.matches(key) && (best == null || r.pattern.length() > best.pattern.length())) {
        best = r;
      }
    }
    return best;
  }

  /** Hadoop's defaults of the keys a job's configuration holds (job.xml has them all). */
  private static Configuration defaults() {
    Configuration d = new Configuration(false);
    d.addResource("core-default.xml");
    d.addResource("mapred-default.xml");
    return d;
  }

  /** The keys {@code job} sets, other than to their default, that HAM ignores: key to note. */
  List<String[]> ignoredIn(Configuration job) {
    Configuration defaults = defaults();
    TreeSet<String> keys = new TreeSet<>();
    for (Map.Entry<String, String> e : job) {
      keys.add(e.getKey());
    }
    List<String[]> out = new ArrayList<>();
    for (String key : keys) {
      Rule r = rule(key);
      // Raw values: a default such as ${fs.defaultFS} expands differently here and there.
      if (r != null && r.status.equals("ignored")
          && !Objects.equals(job.getRaw(key), defaults.getRaw(key))) {
        out.add(new String[] {key, r.note});
      }
    }
    return out;
  }

  /** One WARN line on the console for each ignored key the job sets. */
  static void warnIgnored(Configuration job) {
    try {
      for (String[] k : load().ignoredIn(job)) {
        NOTICE.warn("{} is ignored by HAM: {} (docs/job-keys.md)", k[0], k[1]);
      }
    } catch (IOException | RuntimeException e) {
      NOTICE.warn("Cannot check the job's keys against HAM's table: {}", e.toString());
    }
  }

  /**
   * Hadoop's deprecated key names, each with the keys it stands for: Configuration's own and
   * MapReduce's (ConfigUtil, registered when JobConf loads), as Hadoop lists them.
   */
  static Map<String, List<String>> deprecatedNames() {
    new JobConf(false);
    // Hadoop's one public listing prints to System.out (main only: nothing else prints then).
    PrintStream out = System.out;
    ByteArrayOutputStream listing = new ByteArrayOutputStream();
    try {
      System.setOut(new PrintStream(listing, true, StandardCharsets.UTF_8));
      Configuration.dumpDeprecatedKeys();
    } finally {
      System.setOut(out);
    }
    Map<String, List<String>> names = new TreeMap<>();
    for (String line : listing.toString(StandardCharsets.UTF_8).split("\n")) {
      String[] f = line.split("\t");
      if (f.length > 1) {
        names.put(f[0], Arrays.stream(f, 1, f.length).filter(k -> !k.isBlank()).toList());
      }
    }
    return names;
  }

  /**
   * Prints the Markdown tables of docs/job-keys.md: every key of mapred-default.xml, every key
   * a deprecated name stands for, and the keys of job-keys.tsv; then every deprecated name.
   */
  public static void main(String[] args) throws IOException {
    JobKeys keys = load();
    Configuration defaults = defaults();
    Map<String, List<String>> deprecated = deprecatedNames();
    Configuration mapredDefault = new Configuration(false);
    mapredDefault.addResource("mapred-default.xml");
    TreeSet<String> all = new TreeSet<>();
    for (Map.Entry<String, String> e : mapredDefault) {
      all.add(e.getKey());
    }
    for (Rule r : keys.rules) {
      if (!r.pattern.endsWith("*")) {
        all.add(r.pattern);
      }
    }
    deprecated.values().forEach(all::addAll);
    StringBuilder out = new StringBuilder(
        "| key | default | HAM | what HAM does |\n|---|---|---|---|\n");
    List<String> unclassified = new ArrayList<>();
    for (String key : all) {
      Rule r = keys.rule(key);
      if (r == null) {
        unclassified.add(key);
        continue;
      }
      String value = defaults.getRaw(key);
      out.append("| `").append(key).append("` | ").append(code(value)).append(" | ")
          .append(r.status).append(" | ").append(r.note.replace("|", "\\|")).append(" |\n");
    }
    if (!unclassified.isEmpty()) {
      throw new IllegalStateException("keys without a rule in job-keys.tsv: " + unclassified);
    }
    out.append("\nDeprecated names (Hadoop's own table: Configuration's and MapReduce's "
        + "ConfigUtil): a job that sets one sets the key it stands for.\n\n"
        + "| deprecated name | stands for | HAM | what HAM does |\n|---|---|---|---|\n");
    for (Map.Entry<String, List<String>> e : deprecated.entrySet()) {
      for (String key : e.getValue()) {
        Rule r = keys.rule(key);
        out.append("| `").append(e.getKey()).append("` | `").append(key).append("` | ")
            .append(r.status).append(" | ").append(r.note.replace("|", "\\|")).append(" |\n");
      }
    }
    System.out.print(out);
  }

  private static String code(String value) {
    return value == null || value.isBlank() ? "" : "`" + value.replace("|", "\\|") + "`";
  }
}
