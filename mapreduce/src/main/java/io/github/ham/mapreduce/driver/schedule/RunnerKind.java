package io.github.ham.mapreduce.driver.schedule;

/**
 * Which tasks a runner takes. Runners are started with the JVM options, environment and
 * resources of the tasks they run: one kind for all tasks when maps and reduces ask for the
 * same, otherwise map runners and reduce runners (as YARN starts map and reduce containers).
 */
public enum RunnerKind {
  ANY, MAP, REDUCE;

  public boolean runs(boolean isMap) {
    return this == ANY || (this == MAP) == isMap;
  }
}
