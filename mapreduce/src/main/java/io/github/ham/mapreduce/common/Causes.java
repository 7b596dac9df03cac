package io.github.ham.mapreduce.common;

import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;

/** The chain of an exception's causes, for the few places that decide by what lies beneath. */
public final class Causes {
  private Causes() {}

  /**
   * {@code t} and its causes, outermost first. Stops at a cause seen before: a cause chain may
   * loop (an exception whose cause was set to itself, or to one wrapping it).
   */
  public static List<Throwable> of(Throwable t) {
    List<Throwable> out = new ArrayList<>();
    Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
    for (Throwable c = t; c != null && seen.add(c); c = c.getCause()) {
      out.add(c);
    }
    return out;
  }

  /** Whether {@code t} or any of its causes matches. */
  public static boolean any(Throwable t, Predicate<Throwable> match) {
    return of(t).stream().anyMatch(match);
  }
}
