package io.github.ham.mapreduce.lustre;

import java.util.ArrayList;
import java.util.List;

import io.github.ham.mapreduce.common.HamConfig;

import org.apache.hadoop.fs.GlobPattern;
import org.apache.hadoop.fs.Path;

/**
 * Per-file stripe layouts ({@link HamConfig#LUSTRE_FILE_STRIPES}): comma-separated
 * {@code GLOB=COUNT:SIZE}, tried in order, the first match wins. A glob without '/' matches
 * the file's name ({@code part-*=4:16M}); one with '/' matches its whole path under the
 * lustre root ({@code /projects/big/*=8:64M}; a {@code *} there also matches '/'). Hadoop's
 * glob syntax (GlobPattern), so a glob cannot contain ',' here.
 */
final class StripeRules {
  private record Rule(String glob, GlobPattern pattern, boolean wholePath, StripeLayout layout) {
  }

  private final List<Rule> rules;

  private StripeRules(List<Rule> rules) {
    this.rules = rules;
  }

  static StripeRules parse(String value) {
    List<Rule> out = new ArrayList<>();
    if (value != null) {
      for (String item : value.split(",")) {
        String rule = item.trim();
        if (rule.isEmpty()) {
          continue;
        }
        int eq = rule.lastIndexOf('=');
        if (eq <= 0) {
          throw new IllegalArgumentException(HamConfig.LUSTRE_FILE_STRIPES + ": bad rule '" + rule
              + "': expected GLOB=COUNT:SIZE, e.g. part-*=4:16M");
        }
        String glob = rule.substring(0, eq).trim();
        out.add(new Rule(glob, new GlobPattern(glob), glob.contains("/"),
            StripeLayout.parse(rule.substring(eq + 1), HamConfig.LUSTRE_FILE_STRIPES + " " + glob)));
      }
    }
    return new StripeRules(List.copyOf(out));
  }

  boolean isEmpty() {
    return rules.isEmpty();
  }

  /** The layout for a file (a path under the lustre root), or null when no rule matches. */
  StripeLayout match(Path file) {
    String path = file.toUri().getPath();
    for (Rule r : rules) {
      if (r.pattern().matches(r.wholePath() ? path : file.getName())) {
        return r.layout();
      }
    }
    return null;
  }

  @Override
  public String toString() {
    StringBuilder s = new StringBuilder();
    for (Rule r : rules) {
      s.append(s.length() == 0 ? "" : ",").append(r.glob()).append('=').append(r.layout());
    }
    return s.toString();
  }
}
