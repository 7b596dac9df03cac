package io.github.ham.mapreduce.driver.commit;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

import io.github.ham.mapreduce.common.jobfiles.JobDirs;
import io.github.ham.mapreduce.vectors.Vectors;

import org.apache.hadoop.mapred.JobConf;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The end of a run (RunFiles.clean) on tests/vectors/job_dir_cleaning.tsv, the tree the
 * launcher's and the SPANK epilog's cleaners are tested on: each Hadoop job in jobs/ cleaned as
 * its run ends, resumable when it has its marker.
 */
class RunFilesVectorsTest {
  @Test
  void theEndOfARunLeavesWhatTheVectorsSay(@TempDir Path tmp) throws IOException {
    Map<String, Map<String, Boolean>> cases = new LinkedHashMap<>();
    for (String[] row : Vectors.rows("job_dir_cleaning.tsv")) {
      cases.computeIfAbsent(row[0], c -> new LinkedHashMap<>()).put(row[1], row[3].equals("kept"));
    }
    for (Map.Entry<String, Map<String, Boolean>> c : cases.entrySet()) {
      Path session = tmp.resolve(c.getKey());
      for (String p : c.getValue().keySet()) {
        Files.createDirectories(session.resolve(p).getParent());
        Files.writeString(session.resolve(p), "x");
      }
      for (String job : new TreeSet<>(List.of(session.resolve(JobDirs.JOBS).toFile().list()))) {
        JobDirs dirs = JobDirs.of(session.toString(), job);
        RunFiles.clean(new JobConf(false), dirs, dirs.resumable().exists());
      }
      Map<String, Boolean> left = new LinkedHashMap<>();
      for (String p : c.getValue().keySet()) {
        left.put(p, new File(session.toFile(), p).exists());
      }
      assertEquals(c.getValue(), left, c.getKey());
    }
  }
}
