package io.github.ham.mapreduce.common;

/**
 * How a runner names itself to the driver: {@code <node>/<slot>/<pid>}, where the slot
 * ({@code g<generation>-p<procid>}) is the name of the working directory the launcher gave it.
 * The runner builds it, the driver takes it apart. Pure functions.
 */
public final class RunnerId {
  private RunnerId() {
  }

  public static String of(String node, String slot, long pid) {
    return node + "/" + slot + "/" + pid;
  }

  /** The slot of a runner id (the id itself if it has another form). */
  public static String slotOf(String runnerId) {
    String[] parts = runnerId.split("/");
    return parts.length >= 3 ? parts[parts.length - 2] : runnerId;
  }

  /** The node of a runner id, or null. */
  public static String nodeOf(String runnerId) {
    int slash = runnerId.indexOf('/');
    return slash > 0 ? runnerId.substring(0, slash) : null;
  }
}
