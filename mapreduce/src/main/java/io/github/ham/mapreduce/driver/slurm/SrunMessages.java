package io.github.ham.mapreduce.driver.slurm;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.github.ham.mapreduce.driver.launch.RunnerExit;

/** What srun says on its standard error about the tasks of a step. Pure functions. */
public final class SrunMessages {
  private static final Pattern SRUN_ERROR = Pattern.compile(
      "srun: error: (\\S+): tasks? ([0-9][0-9,\\-]*): (.+)");

  private SrunMessages() {
  }

  /**
   * Runner exits reported by srun, such as {@code srun: error: node2: task 3: Killed} or
   * {@code srun: error: node1: tasks 0-1,4: Exited with exit code 3}, for a step of
   * {@code generation}. Other lines give nothing.
   */
  public static List<RunnerExit> exits(String line, int generation) {
    List<RunnerExit> out = new ArrayList<>();
    Matcher m = SRUN_ERROR.matcher(line);
    if (!m.find()) {
      return out;
    }
    for (String range : m.group(2).split(",")) {
      if (range.isEmpty()) {
        continue;
      }
      int dash = range.indexOf('-');
      try {
        int from = Integer.parseInt(dash < 0 ? range : range.substring(0, dash));
        int to = dash < 0 ? from : Integer.parseInt(range.substring(dash + 1));
        for (int p = from; p <= to && p - from < 100_000; p++) {
          out.add(new RunnerExit(RunnerExit.slotName(generation, p), m.group(1),
              m.group(3).trim()));
        }
      } catch (NumberFormatException e) {
        // Not a task list: ignore the line.
      }
    }
    return out;
  }
}
