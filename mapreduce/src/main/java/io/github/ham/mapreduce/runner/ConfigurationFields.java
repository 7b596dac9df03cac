package io.github.ham.mapreduce.runner;

import java.lang.reflect.Field;

import org.apache.hadoop.conf.Configuration;

/**
 * Configuration's private fields that a runner reads where Hadoop's getters copy (a property's
 * sources for each task's job.xml, {@link JobXmlWriter}; the names set on a task's copy,
 * {@link TaskConf}). A Hadoop without the field, or with one of another type, gets null: the
 * caller then takes Hadoop's own way.
 */
final class ConfigurationFields {
  private ConfigurationFields() {
  }

  /** Configuration's field {@code name}, readable, if it holds a {@code type}; else null. */
  static Field field(String name, Class<?> type) {
    try {
      Field f = Configuration.class.getDeclaredField(name);
      f.setAccessible(true);
      return type.isAssignableFrom(f.getType()) ? f : null;
    } catch (ReflectiveOperationException | RuntimeException e) {
      return null;
    }
  }
}
