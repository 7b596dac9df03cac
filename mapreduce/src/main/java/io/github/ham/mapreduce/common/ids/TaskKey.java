package io.github.ham.mapreduce.common.ids;

/** A task of the job: map or reduce, and its index. */
public record TaskKey(boolean isMap, int index) {
  @Override
  public String toString() {
    return (isMap ? "m_" : "r_") + String.format("%06d", index);
  }
}
