package io.github.ham.mapreduce.common.ids;

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
    // The last name but one between slashes, as split("/") would give it (trailing slashes
    // dropped), without split's array and regex check: the driver takes apart the id of every
    // call a runner makes (String.split was 4% of its IPC handlers' samples at 100k maps).
    int end = runnerId.length();
    while (end > 0 && runnerId.charAt(end - 1) == '/') {
      end--;
    }
    int last = end > 0 ? runnerId.lastIndexOf('/', end - 1) : -1;
    int before = last > 0 ? runnerId.lastIndexOf('/', last - 1) : -1;
    return before >= 0 ? runnerId.substring(before + 1, last) : runnerId;
  }

  /** The node of a runner id, or null. */
  public static String nodeOf(String runnerId) {
    int slash = runnerId.indexOf('/');
    return slash > 0 ? runnerId.substring(0, slash) : null;
  }
}
