package io.github.ham.mapreduce.runner;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import org.apache.hadoop.mapred.JobConf;

/**
 * A task's copy of its job's configuration ({@link RunnerJob#newTaskConf}): a JobConf, except
 * that {@link #getPropsWithPrefix} does not copy every name first. Hadoop's copies all ~1,100
 * names of a job into a new set to find the few with the prefix, and LineRecordReader asks it
 * twice a task (FutureIO.propagateOptions, for the input file's open options): 0.25 ms of a
 * runner's CPU per one-line map (bench/README.md, "Per-map cost of a warm runner"). It also
 * lists its properties for the task's job.xml ({@link JobXmlWriter}) without a copy.
 */
public final class TaskConf extends JobConf {
  /** For Hadoop's copies by reflection (WritableUtils.clone, ReflectionUtils.newInstance). */
  public TaskConf() {
  }

  TaskConf(JobConf job) {
    super(job);
  }

  /**
   * The properties whose name and value are strings, as Configuration's iterator gives them
   * (in another order), without its copy into a new map.
   */
  List<Map.Entry<String, String>> stringProperties() {
    Properties props = getProps();
    List<Map.Entry<String, String>> out = new ArrayList<>(props.size());
    synchronized (props) {
      for (Map.Entry<Object, Object> e : props.entrySet()) {
        if (e.getKey() instanceof String name && e.getValue() instanceof String value) {
          out.add(Map.entry(name, value));
        }
      }
    }
    return out;
  }

  /**
   * As Configuration's: every property whose name starts with {@code confPrefix}, by its name
   * without the prefix, with its value as {@link #get} gives it (variables expanded,
   * deprecations handled). The names are found first, as there, since a deprecated name's get
   * may add its replacement.
   */
  @Override
  public Map<String, String> getPropsWithPrefix(String confPrefix) {
    Properties props = getProps();
    List<String> names = new ArrayList<>();
    synchronized (props) {
      for (Map.Entry<Object, Object> e : props.entrySet()) {
        if (e.getKey() instanceof String name && e.getValue() instanceof String
            && name.startsWith(confPrefix)) {
          names.add(name);
        }
      }
    }
    Map<String, String> configMap = new HashMap<>();
    for (String name : names) {
      configMap.put(name.substring(confPrefix.length()), get(name));
    }
    return configMap;
  }
}
