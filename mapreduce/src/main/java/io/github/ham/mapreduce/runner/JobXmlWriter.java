package io.github.ham.mapreduce.runner;

import java.io.BufferedOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.reflect.Field;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;

import org.apache.hadoop.conf.Configuration;

/**
 * Writes a configuration as Hadoop's {@link Configuration#writeXml} does (every property with
 * its value, final flag and sources); the result parses to the same configuration.
 * Configuration.writeXml builds a DOM and serializes it with an XSLT identity transformer,
 * which cost more of a runner's CPU per no-op task than the task itself (~6 ms for the ~1,100
 * properties of a job, more on a loaded node). The tasks of a job share all but a few
 * properties, so one writer per job keeps each property's XML and only renders the properties
 * whose value, final flag or sources differ from the last time it saw them; and as a runner's
 * tasks write the same file, it rewrites that file from the first property that differs from
 * the last write, having moved the properties that changed to the end: after a job's first
 * tasks, a task rewrites the few properties that are its own, not the whole file (hundreds of
 * KB: their write was 0.2 ms of a runner's CPU a task on tmpfs, though finding where to start
 * costs about as much there; a gain where writes cost more, a slow disk or the shared file
 * system with runner_local_dir "none"; bench/results/trials/runner-cuts/job-xml-tail). Like
 * Hadoop's, the order of the properties is unspecified (it only shows in the "because X is
 * deprecated" notes a parser adds to the sources of deprecated keys).
 */
final class JobXmlWriter {
  /** A property's XML (UTF-8, its line's end included) and what it was rendered from. */
  private static final class Rendered {
    final String value;
    final boolean isFinal;
    final String[] sources;
    final byte[] xml;
    /**
     * The last write that had this property as it is (see {@link #write(Configuration, File)}),
     * negated once that write has placed it in its order.
     */
    int seenIn;

    Rendered(String value, boolean isFinal, String[] sources, byte[] xml) {
      this.value = value;
      this.isFinal = isFinal;
      this.sources = sources;
      this.xml = xml;
    }

    boolean renders(String value, boolean isFinal, String[] sources) {
      return this.value.equals(value) && this.isFinal == isFinal
          && Arrays.equals(this.sources, sources);
    }
  }

  /**
   * The file as the last write left it: its properties in their order, where each begins (and,
   * last, where they end), and the file's identity, size and time then (a file that anything
   * else changed since is written whole; an edit that keeps its size within the file system's
   * tick of time, a few ms locally, a second on some network file systems, goes unseen).
   */
  private record Written(Path path, Object fileKey, long size, FileTime modified,
      Rendered[] order, long[] offsets) {
    boolean isStill(Path path) {
      if (!path.equals(this.path)) {
        return false;
      }
      try {
        BasicFileAttributes now = Files.readAttributes(path, BasicFileAttributes.class);
        return now.isRegularFile() && Objects.equals(now.fileKey(), fileKey)
            && now.size() == size && now.lastModifiedTime().equals(modified);
      } catch (IOException e) {
        return false;
      }
    }
  }

  private static final byte[] HEAD = ("<?xml version=\"1.0\" encoding=\"UTF-8\" "
      + "standalone=\"no\"?><configuration>\n").getBytes(StandardCharsets.UTF_8);
  private static final byte[] TAIL = "</configuration>\n".getBytes(StandardCharsets.UTF_8);
  private static final int BUFFER = 64 * 1024;

  /** Configuration's map of each property's sources, or null if this Hadoop has none. */
  private static final Field UPDATING_RESOURCE =
      ConfigurationFields.field("updatingResource", Map.class);

  private final Map<String, Rendered> rendered = new HashMap<>();
  private Written last;
  private int writes;
  /** Where the last write to a file began (for tests). */
  private long rewrittenFrom;

  /**
   * Writes {@code conf} over {@code file} in place, from the first property that differs from
   * what this writer last wrote there (all of it if the file changed since, or is another),
   * then cuts it to its new length. The tasks of a runner write the same few hundred kilobytes
   * to the same file, and truncating it first freed its blocks for the write to allocate again
   * (on ext4 also a writeback at close, its guard for files replaced by truncation; on Lustre a
   * punch of its objects).
   */
  synchronized void write(Configuration conf, File file) throws IOException {
    List<Rendered> now = rendered(conf);
    int stamp = ++writes;
    for (Rendered r : now) {
      r.seenIn = stamp;
    }
    Path path = file.toPath();
    Rendered[] before = last != null && last.isStill(path) ? last.order() : new Rendered[0];
    // The properties of the last write that are still as they were, up to the first that is
    // not (changed or gone), stay where they are; the rest follow, those that changed last.
    int kept = 0;
    while (kept < before.length && before[kept].seenIn == stamp) {
      kept++;
    }
    Rendered[] order = new Rendered[now.size()];
    System.arraycopy(before, 0, order, 0, kept);
    int placed = kept;
    for (int i = kept; i < before.length; i++) {
      if (before[i].seenIn == stamp) {
        before[i].seenIn = -stamp;  // placed
        order[placed++] = before[i];
      }
    }
    for (int i = 0; i < kept; i++) {
      before[i].seenIn = -stamp;
    }
    for (Rendered r : now) {
      if (r.seenIn == stamp) {
        order[placed++] = r;
      }
    }
    // Where each property begins, and (last) where the properties end.
    long[] offsets = new long[order.length + 1];
    if (kept > 0) {
      System.arraycopy(last.offsets(), 0, offsets, 0, kept);
    }
    long from = kept == 0 ? 0 : last.offsets()[kept];
    last = null;  // until this write is whole: a failed one leaves a file to write whole again
    try (FileChannel channel = FileChannel.open(path, StandardOpenOption.CREATE,
        StandardOpenOption.WRITE)) {
      channel.position(from);
      OutputStream xml = new BufferedOutputStream(Channels.newOutputStream(channel), BUFFER);
      long at = from;
      if (kept == 0) {
        xml.write(HEAD);
        at += HEAD.length;
      }
      for (int i = kept; i < order.length; i++) {
        offsets[i] = at;
        byte[] b = order[i].xml;
        xml.write(b);
        at += b.length;
      }
      offsets[order.length] = at;
      xml.write(TAIL);
      xml.flush();
      channel.truncate(channel.position());
    }
    BasicFileAttributes written = Files.readAttributes(path, BasicFileAttributes.class);
    last = new Written(path, written.fileKey(), written.size(), written.lastModifiedTime(),
        order, offsets);
    rewrittenFrom = from;
  }

  /** Where the last write to a file began: 0 if it wrote all of it (for tests). */
  synchronized long rewrittenFrom() {
    return rewrittenFrom;
  }

  /** Writes all of {@code conf} to {@code out}, in its own order. */
  synchronized void write(Configuration conf, OutputStream out) throws IOException {
    OutputStream xml = new BufferedOutputStream(out, BUFFER);
    xml.write(HEAD);
    for (Rendered r : rendered(conf)) {
      xml.write(r.xml);
    }
    xml.write(TAIL);
    xml.flush();
  }

  /** Each property of {@code conf} rendered (kept from before where it has not changed). */
  private List<Rendered> rendered(Configuration conf) {
    List<Map.Entry<String, String>> properties = withDeprecationHandled(conf);
    Set<String> finals = conf.getFinalParameters();
    Function<String, String[]> sources = sources(conf);
    // Bytes kept per property: encoding ~150 KB of characters again for every task cost more
    // than the rest of the writing (bench/results/runner-profile-wordcount).
    List<Rendered> out = new ArrayList<>(properties.size());
    for (Map.Entry<String, String> property : properties) {
      String name = property.getKey();
      out.add(xml(name, property.getValue(), finals.contains(name), sources.apply(name)));
    }
    return out;
  }

  /**
   * The properties, after what writeXml does first: a deprecated key also sets its
   * replacements. One pass over the configuration unless it has deprecated keys, whose
   * handling may add or change properties.
   */
  private static List<Map.Entry<String, String>> withDeprecationHandled(Configuration conf) {
    List<Map.Entry<String, String>> properties = properties(conf);
    boolean deprecated = false;
    for (Map.Entry<String, String> property : properties) {
      if (Configuration.isDeprecated(property.getKey())) {
        conf.get(property.getKey());
        deprecated = true;
      }
    }
    return deprecated ? properties(conf) : properties;
  }

  /**
   * The string properties of {@code conf}, from its iterator (a task's {@link TaskConf} lists
   * them without the copy into a new map that Configuration's makes first).
   */
  private static List<Map.Entry<String, String>> properties(Configuration conf) {
    List<Map.Entry<String, String>> properties = new ArrayList<>(conf.size());
    for (Map.Entry<String, String> property : conf) {
      properties.add(property);
    }
    return properties;
  }

  /**
   * Looks up a property's sources as Configuration keeps them, without the copy that
   * {@link Configuration#getPropertySources} makes for every call (~1,100 a task: 0.10-0.15 ms
   * of a runner's CPU a task, bench/results/trials/runner-cuts/small-cuts). Hadoop's own
   * getter where this Hadoop keeps them elsewhere.
   */
  private static Function<String, String[]> sources(Configuration conf) {
    if (UPDATING_RESOURCE != null) {
      try {
        Map<?, ?> map = (Map<?, ?>) UPDATING_RESOURCE.get(conf);
        return map == null ? name -> null : name -> (String[]) map.get(name);
      } catch (IllegalAccessException e) {
        // Hadoop's getter below.
      }
    }
    return conf::getPropertySources;
  }

  /** Whether this Hadoop's Configuration keeps sources where {@link #sources} reads them. */
  static boolean readsSourcesWithoutCopies() {
    return UPDATING_RESOURCE != null;
  }

  private Rendered xml(String name, String value, boolean isFinal, String[] sources) {
    Rendered r = rendered.get(name);
    if (r == null || !r.renders(value, isFinal, sources)) {
      // A copy: the array is Configuration's own (see sources).
      r = new Rendered(value, isFinal, sources == null ? null : sources.clone(),
          render(name, value, isFinal, sources));
      rendered.put(name, r);
    }
    return r;
  }

  private static byte[] render(String name, String value, boolean isFinal, String[] sources) {
    StringBuilder b = new StringBuilder(64 + name.length() + value.length());
    b.append("<property>");
    element(b, "name", name);
    element(b, "value", value);
    element(b, "final", Boolean.toString(isFinal));
    for (String source : Objects.requireNonNullElse(sources, new String[0])) {
      element(b, "source", source);
    }
    return b.append("</property>\n").toString().getBytes(StandardCharsets.UTF_8);
  }

  private static void element(StringBuilder b, String tag, String text) {
    b.append('<').append(tag).append('>');
    escape(b, text);
    b.append("</").append(tag).append('>');
  }

  /** Character data as the JDK's serializer escapes it (CR kept as a reference). */
  private static void escape(StringBuilder b, String text) {
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      switch (c) {
        case '&' -> b.append("&amp;");
        case '<' -> b.append("&lt;");
        case '>' -> b.append("&gt;");
        case '\r' -> b.append("&#13;");
        default -> b.append(c);
      }
    }
  }
}
