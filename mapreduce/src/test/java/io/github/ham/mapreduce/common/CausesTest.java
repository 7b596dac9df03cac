package io.github.ham.mapreduce.common;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.EOFException;
import java.io.IOException;
import java.util.List;

import org.junit.jupiter.api.Test;

class CausesTest {
  @Test
  void listsTheChainOutermostFirst() {
    EOFException root = new EOFException("end");
    IOException mid = new IOException("read", root);
    RuntimeException top = new RuntimeException(mid);
    assertEquals(List.of(top, mid, root), Causes.of(top));
    assertTrue(Causes.any(top, c -> c instanceof EOFException));
    assertFalse(Causes.any(top, c -> c instanceof IllegalStateException));
  }

  @Test
  void stopsAtACauseSeenBefore() {
    IOException a = new IOException("a");
    IOException b = new IOException("b", a);
    a.initCause(b); // a loop of two: getCause() == this would not catch it
    assertEquals(List.of(b, a), Causes.of(b));
    assertFalse(Causes.any(b, c -> c instanceof EOFException));
  }

  @Test
  void nothingHasNoCauses() {
    assertEquals(List.of(), Causes.of(null));
  }
}
