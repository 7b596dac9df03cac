package io.github.ham.mapreduce.driver.commit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.apache.hadoop.io.Text;
import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapreduce.lib.input.FileInputFormat;
import org.apache.hadoop.security.Credentials;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What a resume finds changed: staged files, inputs (changed, gone, new), secrets. */
class ResumeManifestTest {
  private static JobConf job(Path in) {
    JobConf conf = new JobConf(false);
    conf.set(FileInputFormat.INPUT_DIR, in.toUri().toString());
    return conf;
  }

  @Test
  void unchangedJobCanBeResumedAndEachChangeIsNamed(@TempDir Path tmp) throws Exception {
    Path in = Files.createDirectories(tmp.resolve("in"));
    Files.writeString(in.resolve("a.txt"), "one\n");
    Files.writeString(in.resolve("b.txt"), "two\n");
    Files.writeString(in.resolve("_SUCCESS"), "");
    Path staging = Files.createDirectories(tmp.resolve("staging"));
    Files.writeString(staging.resolve("job.jar"), "jar");
    Files.writeString(staging.resolve("job.split"), "split");
    File manifest = tmp.resolve("resume.json").toFile();
    ResumeManifest.write(manifest, staging.toFile(), job(in), new Credentials());
    assertEquals(List.of(), ResumeManifest.changes(manifest, job(in)));

    Files.writeString(in.resolve("_SUCCESS"), "hidden files are not inputs");
    assertEquals(List.of(), ResumeManifest.changes(manifest, job(in)));

    Files.writeString(in.resolve("a.txt"), "one, changed\n");
    Files.delete(in.resolve("b.txt"));
    Files.writeString(in.resolve("c.txt"), "three\n");
    Files.writeString(staging.resolve("job.jar"), "another jar");
    List<String> changes = ResumeManifest.changes(manifest, job(in));
    assertEquals(4, changes.size(), changes.toString());
    assertTrue(changes.get(0).startsWith("its staged job.jar"), changes.get(0));
    assertTrue(changes.get(1).matches("input file:.*/a.txt changed .*"), changes.get(1));
    assertTrue(changes.get(2).matches("input file:.*/b.txt is gone"), changes.get(2));
    assertTrue(changes.get(3).matches("input file:.*/c.txt is new"), changes.get(3));
  }

  @Test
  void changedStagedConfigurationIsTheOneChangeNamed(@TempDir Path tmp) throws Exception {
    Path in = Files.createDirectories(tmp.resolve("in"));
    Files.writeString(in.resolve("a.txt"), "one\n");
    Path staging = Files.createDirectories(tmp.resolve("staging"));
    JobConf staged = job(in);
    staged.set("mapreduce.job.reduces", "2");
    try (OutputStream o = Files.newOutputStream(staging.resolve("job.xml"))) {
      staged.writeXml(o);
    }
    File manifest = tmp.resolve("resume.json").toFile();
    ResumeManifest.write(manifest, staging.toFile(), staged, new Credentials());
    assertEquals(List.of(), ResumeManifest.changes(manifest, staged));

    // The staged configuration edited (one key) while the job waited to be resumed.
    staged.set("mapreduce.job.reduces", "3");
    try (OutputStream o = Files.newOutputStream(staging.resolve("job.xml"))) {
      staged.writeXml(o);
    }
    List<String> changes = ResumeManifest.changes(manifest, staged);
    assertEquals(List.of("its staged job.xml (" + staging.resolve("job.xml") + ") changed"),
        changes);
  }

  @Test
  void jobWithTheClientsSecretsCannotBeResumed(@TempDir Path tmp) throws Exception {
    Path in = Files.createDirectories(tmp.resolve("in"));
    Credentials credentials = new Credentials();
    credentials.addSecretKey(new Text("MapReduceShuffleToken"), new byte[] {1});
    File manifest = tmp.resolve("resume.json").toFile();
    ResumeManifest.write(manifest, tmp.toFile(), job(in), credentials);
    assertEquals(List.of(), ResumeManifest.changes(manifest, job(in)), "Hadoop's own secret");
    credentials.addSecretKey(new Text("my.password"), new byte[] {2});
    ResumeManifest.write(manifest, tmp.toFile(), job(in), credentials);
    assertTrue(ResumeManifest.changes(manifest, job(in)).get(0).contains("secrets"));
  }
}
