package io.github.ham.mapreduce.runner;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;

/**
 * The names of a job's properties, sorted, as they were when a runner's copies of the job's
 * configuration were made from it ({@link RunnerJob#newTaskConf}): the names with a prefix come
 * from a binary search instead of a walk over ~1,100 ({@link TaskConf#getPropsWithPrefix}).
 * Made once a job, and again if the job's configuration was loaded again (a new properties
 * object) or has more names (a get of a deprecated name adds its replacement; nothing in the
 * runner removes a name from the job's configuration).
 */
final class KeyIndex {
  private final Properties of;
  private final int size;
  private final String[] names;

  private KeyIndex(Properties of, int size, String[] names) {
    this.of = of;
    this.size = size;
    this.names = names;
  }

  /** The string names with string values of {@code props}, as Configuration lists them. */
  static KeyIndex of(Properties props) {
    List<String> names;
    int size;
    synchronized (props) {
      size = props.size();
      names = walk(props, "");
    }
    String[] sorted = names.toArray(new String[0]);
    Arrays.sort(sorted);
    return new KeyIndex(props, size, sorted);
  }

  /**
   * The string names of {@code props} with {@code prefix} and a string value, by a walk over all
   * (the caller holds the properties' lock). The names alone: walking the entries makes an
   * object for each of the ~1,100.
   */
  static List<String> walk(Properties props, String prefix) {
    List<String> names = new ArrayList<>();
    for (Object key : props.keySet()) {
      if (key instanceof String name && name.startsWith(prefix)
          && props.get(name) instanceof String) {
        names.add(name);
      }
    }
    return names;
  }

  /** Whether this is the index of {@code props} as they are (the same object, no more names). */
  boolean isOf(Properties props) {
    return props == of && props.size() == size;
  }

  /** How many properties the indexed object held (names of other types included). */
  int size() {
    return size;
  }

  /** Whether {@code name} is one of the names. */
  boolean contains(String name) {
    return Arrays.binarySearch(names, name) >= 0;
  }

  /** The names that start with {@code prefix}, in order. */
  List<String> withPrefix(String prefix) {
    int i = Arrays.binarySearch(names, prefix);
    List<String> out = new ArrayList<>();
    for (i = i < 0 ? -i - 1 : i; i < names.length && names[i].startsWith(prefix); i++) {
      out.add(names[i]);
    }
    return out;
  }
}
