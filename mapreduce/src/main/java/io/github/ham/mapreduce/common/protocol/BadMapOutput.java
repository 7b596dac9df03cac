package io.github.ham.mapreduce.common.protocol;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How a runner tells the driver that a reduce attempt could not read some maps' output: one
 * line {@code HAM bad map output: <map attempt id> (<reason>)} per map at the head of the
 * reduce attempt's failure report (TaskUmbilicalProtocol.fatalError). The driver then re-runs
 * those maps and the reduce. Pure functions.
 */
public final class BadMapOutput {
  public static final String MARKER = "HAM bad map output: ";
  private static final Pattern LINE = Pattern.compile(
      Pattern.quote(MARKER) + "(attempt_\\d+_\\d+_m_\\d+_\\d+)");

  private BadMapOutput() {
  }

  /** The report lines for {@code problems} (map attempt id to reason). */
  public static String describe(java.util.Map<String, String> problems) {
    StringBuilder sb = new StringBuilder();
    for (java.util.Map.Entry<String, String> e : problems.entrySet()) {
      sb.append(MARKER).append(e.getKey()).append(" (")
          .append(e.getValue().replace('\n', ' ')).append(")\n");
    }
    return sb.toString();
  }

  /** The map attempt ids a failure report names as unreadable, in order, without repeats. */
  public static List<String> parse(String report) {
    Set<String> out = new LinkedHashSet<>();
    if (report != null) {
      Matcher m = LINE.matcher(report);
      while (m.find()) {
        out.add(m.group(1));
      }
    }
    return new ArrayList<>(out);
  }

  /** Thrown in a runner when a reduce's map outputs fail the check before the task starts. */
  public static final class Exception extends java.io.IOException {
    private static final long serialVersionUID = 1L;

    public Exception(String message) {
      super(message);
    }
  }
}
