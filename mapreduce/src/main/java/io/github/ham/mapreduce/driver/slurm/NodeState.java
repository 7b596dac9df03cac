package io.github.ham.mapreduce.driver.slurm;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** A node's health as {@code scontrol show node -o NODE} reports it. */
public enum NodeState {
  HEALTHY, UNHEALTHY, UNKNOWN;

  private static final Logger LOG = LoggerFactory.getLogger(NodeState.class);
  private static final Pattern STATE = Pattern.compile("(?:^|\\s)State=(\\S+)");

  /**
   * Asks {@code scontrol show node -o NODE}; UNKNOWN when scontrol fails or takes more than
   * 10 s (a runner is then not replaced: a step on a node in an unknown state may hang).
   */
  public static NodeState query(String scontrol, String node) {
    String text = showNodes(scontrol, node);
    return text == null ? UNKNOWN : parse(text);
  }

  /**
   * {@code scontrol show node -o NODES} (one line per node; NODES may be a host list such as
   * node[1-3]), or null when it fails or takes more than 10 s.
   */
  public static String showNodes(String scontrol, String nodes) {
    Scontrol.Answer a = Scontrol.show(scontrol, "node", "-o", nodes);
    if (a != null && !a.ok()) {
      LOG.warn("scontrol show node {} failed: {}", nodes, a.text().trim());
    }
    return a == null || !a.ok() ? null : a.text();
  }

  /**
   * A node's health from {@code scontrol show node -o NAME}: unhealthy when its state has DOWN,
   * DRAIN (DRAINING, DRAINED), FAIL (FAILING), NOT_RESPONDING or the not-responding mark
   * {@code *}; unknown without a State field.
   */
  public static NodeState parse(String scontrolOutput) {
    if (scontrolOutput == null) {
      return UNKNOWN;
    }
    Matcher m = STATE.matcher(scontrolOutput);
    if (!m.find()) {
      return UNKNOWN;
    }
    String state = m.group(1).toUpperCase(Locale.ROOT);
    for (String bad : new String[] {"DOWN", "DRAIN", "FAIL", "NOT_RESPONDING", "*"}) {
      if (state.contains(bad)) {
        return UNHEALTHY;
      }
    }
    return HEALTHY;
  }
}
