package io.github.ham.mapreduce.driver.slurm;

/** A runner process that exited, as the launcher saw it: its slot, node (if known) and why. */
public record RunnerExit(String slot, String node, String reason) {
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
