package io.github.ham.mapreduce.vectors;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The shared test vectors (tests/vectors/*.tsv at the repository's top), which the launcher's
 * and the SPANK plugin's tests read too: one rule, one table, every implementation tested on it.
 */
public final class Vectors {
  /** Maven runs the tests in mapreduce/. */
  private static final Path DIR = Path.of("..", "tests", "vectors");

  private Vectors() {
  }

  /** The rows of {@code name}: tab-separated fields as written (spaces are part of cases). */
  public static List<String[]> rows(String name) {
    try {
      List<String[]> out = new ArrayList<>();
      for (String line : Files.readAllLines(DIR.resolve(name), StandardCharsets.UTF_8)) {
        if (!line.isEmpty() && !line.startsWith("#")) {
          out.add(line.split("\t", -1));
        }
      }
      if (out.isEmpty()) {
        throw new IllegalStateException(DIR.resolve(name) + " has no rows");
      }
      return out;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
