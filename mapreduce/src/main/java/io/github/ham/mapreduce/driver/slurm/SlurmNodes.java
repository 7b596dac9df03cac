package io.github.ham.mapreduce.driver.slurm;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.github.ham.mapreduce.driver.launch.NodeState;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A node's health ({@link NodeState}) as {@code scontrol show node -o NODE} reports it, and
 * as its slurmd answers: the controller takes up to SlurmdTimeout to notice a node that is cut
 * off or dead, the driver (whose runner there just went silent) asks the node itself.
 */
public final class SlurmNodes {
  private static final Logger LOG = LoggerFactory.getLogger(SlurmNodes.class);
  private static final Pattern STATE = Pattern.compile("(?:^|\\s)State=(\\S+)");
  private static final Pattern NODE_ADDR = Pattern.compile("(?:^|\\s)NodeAddr=(\\S+)");
  private static final Pattern SLURMD_PORT =
      Pattern.compile("(?m)^SlurmdPort\\s*=\\s*(\\d+)\\s*$");
  /** Long enough for a busy node's kernel to answer (it does, not slurmd), short for a lost one. */
  static final int CONNECT_TIMEOUT_MS = 5000;

  private static volatile int slurmdPort;

  private SlurmNodes() {
  }

  /**
   * Asks {@code scontrol show node -o NODE}, then, if Slurm thinks the node is up, connects to
   * its slurmd (the address and port srun uses to start steps there). UNKNOWN when scontrol
   * fails or takes more than 10 s (a runner is then not replaced: a step on a node in an
   * unknown state may hang).
   */
  public static NodeState query(String scontrol, String node) {
    String text = showNodes(scontrol, node);
    NodeState state = text == null ? NodeState.UNKNOWN : parse(text);
    if (state != NodeState.HEALTHY) {
      return state;
    }
    Matcher addr = NODE_ADDR.matcher(text);
    int port = slurmdPort(scontrol);
    if (!addr.find() || port <= 0) {
      return state;  // nothing to connect to: Slurm's word stands
    }
    return answers(addr.group(1), port, CONNECT_TIMEOUT_MS) ? NodeState.HEALTHY
        : NodeState.UNREACHABLE;
  }

  /** Whether {@code host:port} accepts a TCP connection within {@code timeoutMs}. */
  static boolean answers(String host, int port, int timeoutMs) {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress(host, port), timeoutMs);
      return true;
    } catch (IOException e) {
      LOG.info("{}:{} does not answer: {}", host, port, e.toString());
      return false;
    }
  }

  /** SlurmdPort from {@code scontrol show config} (asked once), or 0 if it cannot be read. */
  private static int slurmdPort(String scontrol) {
    if (slurmdPort == 0) {
      Scontrol.Answer a = Scontrol.show(scontrol, "config");
      Matcher m = a == null || !a.ok() ? null : SLURMD_PORT.matcher(a.text());
      slurmdPort = m != null && m.find() ? Integer.parseInt(m.group(1)) : -1;
    }
    return slurmdPort;
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
   * A node's health from {@code scontrol show node -o NAME}: unreachable when its state has
   * DOWN, NOT_RESPONDING or the not-responding mark {@code *}; unhealthy when it has DRAIN
   * (DRAINING, DRAINED) or FAIL (FAILING); unknown without a State field.
   */
  public static NodeState parse(String scontrolOutput) {
    if (scontrolOutput == null) {
      return NodeState.UNKNOWN;
    }
    Matcher m = STATE.matcher(scontrolOutput);
    if (!m.find()) {
      return NodeState.UNKNOWN;
    }
    String state = m.group(1).toUpperCase(Locale.ROOT);
    for (String lost : new String[] {"DOWN", "NOT_RESPONDING", "*"}) {
      if (state.contains(lost)) {
        return NodeState.UNREACHABLE;
      }
    }
    for (String bad : new String[] {"DRAIN", "FAIL"}) {
      if (state.contains(bad)) {
        return NodeState.UNHEALTHY;
      }
    }
    return NodeState.HEALTHY;
  }
}
