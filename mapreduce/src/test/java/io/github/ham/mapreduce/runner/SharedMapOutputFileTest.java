package io.github.ham.mapreduce.runner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class SharedMapOutputFileTest {
  /** A reduce reads a map's index by this name: the output file's, with ".index" (IndexCache). */
  @Test
  void theIndexIsTheOutputFilesNameWithIndex() throws Exception {
    SharedMapOutputFile files = new SharedMapOutputFile(
        new org.apache.hadoop.fs.Path("/shared/job/attempt_1_0001_m_000003_0"),
        new org.apache.hadoop.conf.Configuration(false));
    assertEquals(files.getOutputFile().suffix(".index"), files.getOutputIndexFile());
    assertEquals(files.getOutputFile().suffix(".index").toString(),
        files.getOutputIndexFile().toString());
  }

  @Test
  void onlyShuffleLikeFailuresTriggerTheFullCheck() {
    assertTrue(SharedMapOutputFile.readingMapOutput(new java.io.IOException("error in shuffle",
        new org.apache.hadoop.fs.ChecksumException("Checksum Error", 0))));
    assertTrue(SharedMapOutputFile.readingMapOutput(
        new RuntimeException(new java.io.EOFException())));
    assertTrue(SharedMapOutputFile.readingMapOutput(new ArrayIndexOutOfBoundsException(3)));
    assertFalse(SharedMapOutputFile.readingMapOutput(
        new RuntimeException("the user's reducer failed")));
  }
}
