package io.github.ham.mapreduce.driver.schedule;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * Nodes the job stops using after too many failed attempts there, as the MRAppMaster's
 * container allocator does: a node with {@code maxFailures} failed attempts (0: never) gets no
 * more tasks, unless that would exclude more than {@code ignorePercent} of the nodes seen, when
 * blacklisting is ignored altogether. A lost node (down or cut off, as YARN's resource manager
 * reports a LOST node) gets no more tasks either way, unless no other node is left. Not
 * thread-safe: the {@link TaskScheduler} synchronizes.
 */
final class NodeBlacklist {
  private final int maxFailures;
  private final int ignorePercent;
  private final Set<String> seen = new HashSet<>();
  private final Map<String, Integer> failures = new HashMap<>();
  private final Set<String> blacklisted = new HashSet<>();
  private final Set<String> lost = new HashSet<>();

  NodeBlacklist(int maxFailures, int ignorePercent) {
    this.maxFailures = maxFailures;
    this.ignorePercent = ignorePercent;
  }

  void seen(String node) {
    if (node != null) {
      seen.add(node);
    }
  }

  /** An attempt failed on {@code node}; returns true if the node was blacklisted just now. */
  boolean failed(String node) {
    if (node == null || maxFailures <= 0) {
      return false;
    }
    seen.add(node);
    int n = failures.merge(node, 1, Integer::sum);
    return n >= maxFailures && blacklisted.add(node);
  }

  /** The node is down or cut off; returns true if it was not known lost before. */
  boolean lost(String node) {
    if (node == null) {
      return false;
    }
    seen.add(node);
    return lost.add(node);
  }

  /** Whether tasks should not go to {@code node}. */
  boolean excludes(String node) {
    if (node == null) {
      return false;
    }
    if (lost.contains(node) && !lost.containsAll(seen)) {
      return true;
    }
    return blacklisted.contains(node)
        && blacklisted.size() * 100 <= ignorePercent * seen.size();
  }

  /** The nodes blacklisted for failures or lost. */
  Set<String> blacklisted() {
    Set<String> all = new HashSet<>(blacklisted);
    all.addAll(lost);
    return Set.copyOf(all);
  }
}
