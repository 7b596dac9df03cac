package io.github.ham.mapreduce.common.fs;

import java.net.URI;
import java.net.URISyntaxException;

import org.apache.hadoop.fs.Path;

/**
 * Two of Hadoop's Path constructions, giving equal Paths (same URI, same string) without their
 * cost where the input needs none of their work. Hadoop's parse the path again, resolve URIs and
 * normalize with a regular expression: 10-40 us a call, and a reduce asks for every map's
 * output and index file by name, then for their status (bench/README.md, "Per-map cost of a
 * warm runner"). Anything outside the plain cases below goes Hadoop's way.
 */
public final class FastPaths {
  private FastPaths() {
  }

  /**
   * {@code new Path(dir, name)} for a plain name (letters, digits, '.', '_', '-'; not "." or
   * ".."), in an absolute directory without query or fragment whose path has no empty segment
   * (a URI-built directory may: "/%2F"): the directory's path, a slash, the name, which is what
   * Hadoop's resolution and normalization come to.
   */
  public static Path child(Path dir, String name) {
    URI d = dir.toUri();
    String path = d.getPath();
    if (Path.WINDOWS || !plain(name) || d.getQuery() != null || d.getFragment() != null
        || path == null || !path.startsWith("/") || path.contains("//")) {
      return new Path(dir, name);
    }
    return path(d.getScheme(), d.getAuthority(), path.endsWith("/") ? path + name
        : path + "/" + name);
  }

  /**
   * {@code p.makeQualified(fsUri, anyWorkingDir)} for an absolute path without scheme,
   * authority, query or fragment whose text is already normal (no "//", no trailing slash, no
   * escapes: its raw path is {@code normalPath}, e.g. a java.io.File's path): the file system's
   * scheme and authority (none: "") with the same path, as Hadoop's qualification builds it.
   * Null when {@code p} is not such a path.
   */
  public static Path qualifiedOrNull(Path p, String normalPath, URI fsUri) {
    URI u = p.toUri();
    if (Path.WINDOWS || u.getScheme() != null || u.getAuthority() != null
        || u.getQuery() != null || u.getFragment() != null || !normalPath.startsWith("/")
        || !normalPath.equals(u.getRawPath()) || normalPath.contains("//")
        || normalPath.length() > 1 && normalPath.endsWith("/")) {
      return null;
    }
    String authority = fsUri.getAuthority();
    return path(fsUri.getScheme(), authority == null ? "" : authority, normalPath);
  }

  private static Path path(String scheme, String authority, String path) {
    try {
      return new Path(new URI(scheme, authority, path, null, null));  // Path(URI) normalizes
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException(e);
    }
  }

  private static boolean plain(String name) {
    if (name.isEmpty() || name.equals(".") || name.equals("..")) {
      return false;
    }
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      if (!(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.'
          || c == '_' || c == '-')) {
        return false;
      }
    }
    return true;
  }
}
