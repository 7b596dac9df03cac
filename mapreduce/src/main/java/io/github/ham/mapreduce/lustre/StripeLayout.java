package io.github.ham.mapreduce.lustre;

import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A Lustre stripe layout as HAM's settings and keys write it, {@code COUNT:SIZE} (e.g.
 * {@code 4:16M}): stripe count (-1 = every OST) and stripe size in lfs's syntax (bytes, or a
 * number with K, M or G). What {@code lfs setstripe -c COUNT -S SIZE} takes.
 */
public record StripeLayout(int count, long size) {
  private static final Pattern SPEC = Pattern.compile("^\\s*(-?\\d+)\\s*:\\s*(\\d+)([KMG]?)\\s*$",
      Pattern.CASE_INSENSITIVE);
  /** Lustre stripe sizes are multiples of 64 KiB. */
  static final long STRIPE_UNIT = 64 << 10;

  public StripeLayout {
    if (count < -1 || count == 0) {
      throw new IllegalArgumentException("stripe count " + count + ": expected -1 (all OSTs) or "
          + "a positive number");
    }
    if (size <= 0 || size % STRIPE_UNIT != 0) {
      throw new IllegalArgumentException("stripe size " + size + ": expected a positive "
          + "multiple of 64K");
    }
  }

  /**
   * Parses {@code COUNT:SIZE}; null for an empty value (no layout). {@code what} names the
   * setting or key in the error message.
   */
  public static StripeLayout parse(String spec, String what) {
    if (spec == null || spec.isBlank()) {
      return null;
    }
    Matcher m = SPEC.matcher(spec);
    if (!m.matches()) {
      throw new IllegalArgumentException(what + ": bad stripe layout '" + spec
          + "': expected COUNT:SIZE, e.g. 4:16M");
    }
    try {
      long unit = switch (m.group(3).toUpperCase(Locale.ROOT)) {
        case "K" -> 1L << 10;
        case "M" -> 1L << 20;
        case "G" -> 1L << 30;
        default -> 1L;
      };
      return new StripeLayout(Integer.parseInt(m.group(1)),
          Math.multiplyExact(Long.parseLong(m.group(2)), unit));
    } catch (IllegalArgumentException | ArithmeticException e) {
      throw new IllegalArgumentException(what + ": bad stripe layout '" + spec + "': "
          + e.getMessage(), e);
    }
  }

  /** The arguments of lfs setstripe for this layout. */
  public List<String> lfsArgs() {
    return List.of("-c", Integer.toString(count), "-S", sizeText());
  }

  /** Bytes of one full row of stripes (count x size), or -1 when the count is "all OSTs". */
  public long width() {
    return count < 0 ? -1 : count * size;
  }

  private String sizeText() {
    for (String[] u : new String[][] {{"G", "30"}, {"M", "20"}, {"K", "10"}}) {
      long unit = 1L << Integer.parseInt(u[1]);
      if (size % unit == 0) {
        return (size / unit) + u[0];
      }
    }
    return Long.toString(size);
  }

  @Override
  public String toString() {
    return count + ":" + sizeText();
  }
}
