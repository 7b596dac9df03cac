package io.github.ham.mapreduce.runner;

import java.lang.reflect.Field;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import org.apache.hadoop.mapred.JobConf;

/**
 * A task's copy of its job's configuration ({@link RunnerJob#newTaskConf}): a JobConf whose
 * {@link #iterator} and {@link #getPropsWithPrefix} walk its ~1,100 properties once, without
 * Hadoop's copy of all of them first (into a new map for the iterator, into a new set of
 * names for the prefix). Each keeps Hadoop's filter: names and values that are strings.
 * LineRecordReader asks for the prefixed properties twice a task (FutureIO.propagateOptions,
 * for the input file's open options): while the copy has the job's names and those set on it
 * since (none removed), those come from the job's {@link KeyIndex} without a walk (0.13 ms of
 * a runner's CPU a one-line map; bench/results/trials/runner-cuts/prefix-index). The task's
 * job.xml ({@link JobXmlWriter}) iterates over all, as does any caller given the task's
 * configuration.
 */
public final class TaskConf extends JobConf {
  /**
   * Configuration's overlay (the names set on it), or null if this Hadoop has none; read as
   * JobXmlWriter reads the sources.
   */
  private static final Field OVERLAY = ConfigurationFields.field("overlay", Properties.class);
  /** The job's names when this copy was made from it; null if unknown. */
  private final KeyIndex jobKeys;
  /** Whether a name may have gone since the copy (unset, clear, a reload). */
  private volatile boolean keysRemoved;

  /** For Hadoop's copies by reflection (WritableUtils.clone, ReflectionUtils.newInstance). */
  public TaskConf() {
    this.jobKeys = null;
  }

  TaskConf(JobConf job) {
    this(job, null);
  }

  /** A copy of {@code job}, whose names {@code jobKeys} holds (it is {@code job}'s index). */
  TaskConf(JobConf job, KeyIndex jobKeys) {
    super(job);
    this.jobKeys = jobKeys;
  }

  @Override
  public synchronized void unset(String name) {
    keysRemoved = true;
    super.unset(name);
  }

  @Override
  public void clear() {
    keysRemoved = true;
    super.clear();
  }

  @Override
  public synchronized void reloadConfiguration() {
    keysRemoved = true;
    super.reloadConfiguration();
  }

  /**
   * As Configuration's: the properties whose name and value are strings, as they are set (no
   * variables expanded), in an unspecified order; an entry's setValue and the iterator's
   * remove change only this list, as they change only Configuration's copy there.
   */
  @Override
  public Iterator<Map.Entry<String, String>> iterator() {
    Properties props = getProps();
    List<Map.Entry<String, String>> out = new ArrayList<>(props.size());
    synchronized (props) {
      for (Map.Entry<Object, Object> e : props.entrySet()) {
        if (e.getKey() instanceof String name && e.getValue() instanceof String value) {
          out.add(new AbstractMap.SimpleEntry<>(name, value));
        }
      }
    }
    return out.iterator();
  }

  /**
   * As Configuration's: every property whose name starts with {@code confPrefix}, by its name
   * without the prefix, with its value as {@link #get} gives it (variables expanded,
   * deprecations handled). The names are found first, as there, since a deprecated name's get
   * may add its replacement.
   */
  @Override
  public Map<String, String> getPropsWithPrefix(String confPrefix) {
    List<String> names;
    Properties props = getProps();
    synchronized (props) {
      names = fromJobKeys(props, confPrefix);
      if (names == null) {
        names = KeyIndex.walk(props, confPrefix);
      }
    }
    Map<String, String> configMap = new HashMap<>();
    for (String name : names) {
      configMap.put(name.substring(confPrefix.length()), get(name));
    }
    return configMap;
  }

  /**
   * The names with {@code prefix}, from the job's index and the names set on this copy since it
   * was made (Configuration's overlay: each name a set wrote, a deprecated name's replacements
   * and a new name's deprecated aliases included); null unless those are all of its names: none
   * removed, and no more than those (a deprecated key's replacement that a get added, a
   * resource's new names: then a walk).
   */
  private List<String> fromJobKeys(Properties props, String prefix) {
    Properties overlay = overlay();
    if (jobKeys == null || keysRemoved || overlay == null) {
      return null;
    }
    List<String> names = jobKeys.withPrefix(prefix);
    int added = 0;
    for (Object key : overlay.keySet()) {
      if (key instanceof String name && !jobKeys.contains(name) && props.containsKey(name)) {
        added++;
        if (name.startsWith(prefix) && props.get(name) instanceof String) {
          names.add(name);
        }
      }
    }
    return props.size() == jobKeys.size() + added ? names : null;
  }

  /** This configuration's overlay (an empty one if nothing was set), or null if unreadable. */
  private Properties overlay() {
    if (OVERLAY == null) {
      return null;
    }
    try {
      Object overlay = OVERLAY.get(this);
      return overlay == null ? new Properties() : (Properties) overlay;
    } catch (IllegalAccessException | ClassCastException e) {
      return null;
    }
  }
}
