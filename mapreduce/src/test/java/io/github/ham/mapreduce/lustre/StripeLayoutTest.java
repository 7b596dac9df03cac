package io.github.ham.mapreduce.lustre;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.apache.hadoop.fs.Path;
import org.junit.jupiter.api.Test;

class StripeLayoutTest {
  @Test
  void parsesCountAndSize() {
    assertEquals(new StripeLayout(4, 16L << 20), StripeLayout.parse("4:16M", "k"));
    assertEquals(new StripeLayout(-1, 1L << 20), StripeLayout.parse(" -1 : 1m ", "k"));
    assertEquals(new StripeLayout(1, 65536), StripeLayout.parse("1:65536", "k"));
    assertEquals(List.of("-c", "4", "-S", "16M"), StripeLayout.parse("4:16M", "k").lfsArgs());
    assertEquals("2:1G", StripeLayout.parse("2:1024M", "k").toString());
    assertNull(StripeLayout.parse("", "k"));
    assertNull(StripeLayout.parse(null, "k"));
  }

  @Test
  void badLayoutsNameTheKey() {
    for (String bad : new String[] {"4", "x:1M", "0:1M", "-2:1M", "4:1000", "4:1T", "4:0"}) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> StripeLayout.parse(bad, "ham.lustre.output.stripe"));
      assertTrue(e.getMessage().startsWith("ham.lustre.output.stripe: bad stripe layout"),
          e.getMessage());
    }
  }

  @Test
  void rulesMatchNamesOrPathsFirstWins() {
    StripeRules r = StripeRules.parse("part-*=4:16M, /big/*=8:64M ,*=1:1M");
    assertEquals(new StripeLayout(4, 16L << 20), r.match(new Path("lustre:/big/x/part-r-0")));
    assertEquals(new StripeLayout(8, 64L << 20), r.match(new Path("lustre:/big/x/data")));
    assertEquals(new StripeLayout(1, 1L << 20), r.match(new Path("lustre:/small/data")));
    assertNull(StripeRules.parse("part-*=4:16M").match(new Path("/a/file.out")));
    assertTrue(StripeRules.parse(" , ").isEmpty());
    assertThrows(IllegalArgumentException.class, () -> StripeRules.parse("part-*"));
    assertThrows(IllegalArgumentException.class, () -> StripeRules.parse("part-*=4"));
  }

  @Test
  void blockSizesAreWholeStripeRowsNearTheTarget() {
    assertEquals(32L << 20, Blocks.forLayout(new StripeLayout(1, 1L << 20)));
    assertEquals(36L << 20, Blocks.forLayout(new StripeLayout(3, 4L << 20)));
    assertEquals(64L << 20, Blocks.forLayout(new StripeLayout(1, 64L << 20)));
    assertEquals(32L << 20, Blocks.forLayout(new StripeLayout(-1, 4L << 20)));
  }
}
