package io.github.ham.mapreduce.runner;

import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class TaskRunnerTest {
  @Test
  void onlyShuffleLikeFailuresTriggerTheFullCheck() {
    assertTrue(TaskRunner.readingMapOutput(new java.io.IOException("error in shuffle",
        new org.apache.hadoop.fs.ChecksumException("Checksum Error", 0))));
    assertTrue(TaskRunner.readingMapOutput(new RuntimeException(new java.io.EOFException())));
    assertTrue(TaskRunner.readingMapOutput(new ArrayIndexOutOfBoundsException(3)));
    assertTrue(!TaskRunner.readingMapOutput(new RuntimeException("the user's reducer failed")));
  }
}
