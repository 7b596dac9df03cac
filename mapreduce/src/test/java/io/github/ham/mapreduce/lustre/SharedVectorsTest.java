package io.github.ham.mapreduce.lustre;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.File;
import java.util.Arrays;

import io.github.ham.mapreduce.vectors.Vectors;

import org.junit.jupiter.api.Test;

/** lustre's rules on the vectors the launcher's tests read too (tests/vectors/). */
class SharedVectorsTest {
  @Test
  void stripeLayouts() {
    for (String[] row : Vectors.rows("stripe_layouts.tsv")) {
      String text = row[0];
      if (row[1].equals("-")) {
        assertThrows(IllegalArgumentException.class, () -> StripeLayout.parse(text, "k"),
            "'" + text + "' is refused");
      } else {
        StripeLayout layout = StripeLayout.parse(text, "k");
        assertEquals(row[1], layout.toString(), "'" + text + "'");
        assertEquals(Arrays.asList(row[2].split(" ")), layout.lfsArgs(), "'" + text + "'");
      }
    }
  }

  @Test
  void lustrePaths() {
    for (String[] row : Vectors.rows("lustre_paths.tsv")) {
      LustreMounts mounts = new LustreMounts(row[0].equals("\"\"") ? "" : row[0]);
      assertEquals(row[2].equals("yes"), mounts.isLustre(new File(row[1])),
          "HAM_LUSTRE_MOUNTS='" + row[0] + "', " + row[1]);
    }
  }
}
