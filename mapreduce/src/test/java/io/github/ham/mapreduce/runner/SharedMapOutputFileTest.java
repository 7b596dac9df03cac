package io.github.ham.mapreduce.runner;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class SharedMapOutputFileTest {
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
