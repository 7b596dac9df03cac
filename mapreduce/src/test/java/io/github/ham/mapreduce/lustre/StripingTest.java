package io.github.ham.mapreduce.lustre;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import io.github.ham.mapreduce.common.HamConfig;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StripingTest {
  @TempDir
  java.nio.file.Path tmp;

  @Test
  void outputAndMapOutputDirectoriesGetTheirLayoutOnLustre() throws Exception {
    java.nio.file.Path lustre = FakeLfs.onLustre("striping");
    FakeLfs lfs = new FakeLfs(tmp, 1, 1 << 20);
    Configuration conf = new Configuration();
    conf.set(HamConfig.LFS, lfs.script.toString());
    conf.set(HamConfig.LUSTRE_OUTPUT_STRIPE, "8:32M");
    Striping.outputDir(conf, new Path(lustre.resolve("out").toUri()));
    assertTrue(lustre.resolve("out").toFile().isDirectory());
    Striping.outputDir(conf, new Path(lustre.resolve("out").toUri()));  // exists: left alone
    Striping.mapOutputDir(conf, lustre.resolve("intermediate").toFile());
    assertEquals(List.of("setstripe -c 8 -S 32M " + lustre.resolve("out"),
        "setstripe -c 1 -S 1M " + lustre.resolve("intermediate")), lfs.calls());
  }

  @Test
  void elsewhereNothingRuns() throws Exception {
    FakeLfs lfs = new FakeLfs(tmp, 1, 1 << 20);
    Configuration conf = new Configuration();
    conf.set(HamConfig.LFS, lfs.script.toString());
    conf.set(HamConfig.LUSTRE_OUTPUT_STRIPE, "8:32M");
    Striping.outputDir(conf, new Path(tmp.resolve("out").toUri()));
    Striping.mapOutputDir(conf, tmp.resolve("intermediate").toFile());
    assertEquals(List.of(), lfs.calls());
    // No layout configured: nothing, not even the directory.
    Configuration none = new Configuration();
    none.set(HamConfig.LFS, lfs.script.toString());
    Striping.outputDir(none, new Path(FakeLfs.onLustre("none").resolve("out").toUri()));
    assertEquals(List.of(), lfs.calls());
  }

  @Test
  void mountsListedInTheEnvironmentCountAsLustre() {
    LustreMounts m = new LustreMounts("/x/lustre:/y");
    assertTrue(m.isLustre(new java.io.File("/x/lustre/a/b")));
    assertTrue(!m.isLustre(new java.io.File("/x/lustre2")));
    assertTrue(!new LustreMounts(null).isLustre(tmp.toFile()));
  }
}
