package io.github.ham.mapreduce.driver.launch;

/**
 * A node's health as the platform sees it when a runner there goes silent: whether a
 * replacement runner (or any task) may go there.
 */
public enum NodeState {
  /** Up, and it answers. */
  HEALTHY,
  /** Drained or failing: no new runner goes there, but the node answers. */
  UNHEALTHY,
  /** Down, not responding, or not answering a connection. */
  UNREACHABLE,
  /** The platform cannot say. */
  UNKNOWN
}
