package io.github.ham.mapreduce.driver.launch;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** A runner process that exited, as the launcher saw it: its slot, node (if known) and why. */
public record RunnerExit(String slot, String node, String reason) {
  /** srun's "Exited with exit code N", or the launcher's own "exit status N". */
  private static final Pattern STATUS = Pattern.compile("(?:exit code|exit status) (\\d+)$");

  /** The status the runner exited with, or -1 (killed by a signal, or lost otherwise). */
  public int exitStatus() {
    Matcher m = STATUS.matcher(reason);
    return m.find() ? Integer.parseInt(m.group(1)) : -1;
  }

  /** The slot name of runner {@code procId} of launch {@code generation}: its working dir. */
  public static String slotName(int generation, int procId) {
    return "g" + generation + "-p" + procId;
  }

  /** The generation of a slot name {@code g<generation>-p<procid>}, or -1. */
  public static int generationOf(String slot) {
    int dash = slot.indexOf("-p");
    try {
      return slot.startsWith("g") && dash > 1 ? Integer.parseInt(slot.substring(1, dash)) : -1;
    } catch (NumberFormatException e) {
      return -1;
    }
  }
}
