package io.github.ham.mapreduce.common.fs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.io.File;
import java.net.URI;
import java.util.List;
import java.util.function.Supplier;

import org.apache.hadoop.fs.Path;
import org.junit.jupiter.api.Test;

class FastPathsTest {
  private static final List<String> DIRS = List.of("/", "/a", "/a/b", "/a b/c", "/\u00e4/\u00f6",
      "/%41", "/a:b/c", "file:/x", "file:///x/y", "file:/x/", "hdfs://nn:8020/a",
      "lustre:/scratch/j", "relative", "a/b", "/a/../b", "/a/./b", "/x#frag");
  private static final List<String> NAMES = List.of("file.out", "file.out.index", "spill0.out",
      "map_3.out", "a-b", ".hidden", "a:b", "a b", ".", "..", "x/y", "%41", "\u00e4");

  /** The same Path as Hadoop's, equal and with the same string, for every pair. */
  @Test
  void childIsHadoopsPath() {
    for (String dir : DIRS) {
      for (String name : NAMES) {
        String hadoops = describe(() -> new Path(new Path(dir), name));
        assertEquals(hadoops, describe(() -> FastPaths.child(new Path(dir), name)),
            dir + " " + name);
      }
    }
  }

  /** Directories made from URIs, which may hold what a string path cannot ("/%2F": "//"). */
  @Test
  void childOfUriBuiltDirectoriesIsHadoops() {
    for (String uri : List.of("/%2F", "/a/%2F", "file:/%2F", "hdfs://nn/a%2F", "/a%20b",
        "file:///x/y/", "/a/./b/../c")) {
      for (String name : NAMES) {
        Path dir = new Path(URI.create(uri));
        String hadoops = describe(() -> new Path(dir, name));
        assertEquals(hadoops, describe(() -> FastPaths.child(dir, name)), uri + " " + name);
      }
    }
  }

  /** A path's string, raw path and hash, or the exception that stopped its construction. */
  private static String describe(Supplier<Path> make) {
    try {
      Path p = make.get();
      return p + " " + p.toUri().getRawPath() + " " + p.hashCode();
    } catch (IllegalArgumentException e) {
      return e.toString();
    }
  }

  /** Qualified as Hadoop qualifies a local path, where the fast way applies at all. */
  @Test
  void qualifiedIsHadoopsPath() {
    URI fs = URI.create("file:///");
    Path cwd = new Path("/work");
    for (String text : List.of("/", "/a", "/a/b/file.out", "/a b/c", "/\u00e4/x", "/%41",
        "/a:b", "relative/x", "file:/a", "/a/", "/a//b")) {
      Path p = new Path(text);
      Path fast = FastPaths.qualifiedOrNull(p, new File(text).getPath(), fs);
      if (fast != null) {
        Path hadoops = p.makeQualified(fs, cwd);
        assertEquals(hadoops, fast, text);
        assertEquals(hadoops.toString(), fast.toString(), text);
      }
    }
    assertNotNull(FastPaths.qualifiedOrNull(new Path("/a/b/file.out"), "/a/b/file.out", fs));
    assertNotNull(FastPaths.qualifiedOrNull(new Path("/"), "/", fs));
    // Escaped, schemed, relative: left to Hadoop.
    assertNull(FastPaths.qualifiedOrNull(new Path("/a b"), "/a b", fs));
    assertNull(FastPaths.qualifiedOrNull(new Path("file:/a"), "/a", fs));
    assertNull(FastPaths.qualifiedOrNull(new Path("x"), "x", fs));
    Path withAuthority = FastPaths.qualifiedOrNull(new Path("/a"), "/a",
        URI.create("lustre://fs1/"));
    assertEquals(new Path("/a").makeQualified(URI.create("lustre://fs1/"), cwd), withAuthority);
  }
}
