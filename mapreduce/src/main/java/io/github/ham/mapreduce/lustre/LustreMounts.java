package io.github.ham.mapreduce.lustre;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.github.ham.mapreduce.common.HamConfig;

/**
 * The one place the Java runtime decides whether a path is on Lustre (the launcher's twin is
 * jobdir.is_lustre): a directory listed in {@link HamConfig#ENV_LUSTRE_MOUNTS}, else the type
 * of the mount holding it ("lustre", which Linux derives from statfs magic 0x0BD00BD0). Only
 * then does HAM run lfs; elsewhere it runs nothing. The answer is cached per device.
 */
public final class LustreMounts {
  private static final Map<Object, Boolean> BY_DEVICE = new ConcurrentHashMap<>();

  private final List<Path> forced;

  LustreMounts(String forcedMounts) {
    List<Path> out = new ArrayList<>();
    if (forcedMounts != null) {
      for (String p : forcedMounts.split(":")) {
        if (!p.isBlank()) {
          out.add(Path.of(p.trim()).toAbsolutePath().normalize());
        }
      }
    }
    this.forced = List.copyOf(out);
  }

  /** As the environment says (HAM_LUSTRE_MOUNTS). */
  public static LustreMounts fromEnvironment() {
    return new LustreMounts(System.getenv(HamConfig.ENV_LUSTRE_MOUNTS));
  }

  /** Whether {@code file} (which need not exist yet) is on a Lustre file system. */
  public boolean isLustre(File file) {
    Path p = file.toPath().toAbsolutePath().normalize();
    for (Path m : forced) {
      if (p.startsWith(m)) {
        return true;
      }
    }
    while (p != null && !Files.exists(p)) {
      p = p.getParent();
    }
    if (p == null) {
      return false;
    }
    try {
      Object dev = Files.getAttribute(p, "unix:dev");
      Boolean known = BY_DEVICE.get(dev);
      if (known == null) {
        known = "lustre".equals(Files.getFileStore(p).type());
        BY_DEVICE.put(dev, known);
      }
      return known;
    } catch (IOException | UnsupportedOperationException e) {
      return false;
    }
  }
}
