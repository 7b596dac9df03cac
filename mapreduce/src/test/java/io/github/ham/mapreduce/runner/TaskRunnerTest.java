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

  /** A class whose static initializer fails, as Hadoop's FileSystem's did in an outage. */
  static final class FailsToInitialize {
    static final int VALUE = Integer.parseInt(System.getProperty("no.such.property.here", "x"));
  }

  @Test
  void aClassLeftUninitializedPoisonsTheJvmOtherFailuresDoNot() {
    Throwable first = null;
    Throwable later = null;
    try {
      int unused = FailsToInitialize.VALUE;
    } catch (Throwable t) {
      first = t;
    }
    try {
      int unused = FailsToInitialize.VALUE;
    } catch (Throwable t) {
      later = t;
    }
    assertTrue(first instanceof ExceptionInInitializerError, String.valueOf(first));
    assertTrue(later instanceof NoClassDefFoundError, String.valueOf(later));
    assertTrue(TaskRunner.poisonsJvm(first));
    assertTrue(TaskRunner.poisonsJvm(later));
    assertTrue(TaskRunner.poisonsJvm(new RuntimeException("wrapped", later)));
    assertTrue(!TaskRunner.poisonsJvm(new NoClassDefFoundError("org/example/Missing")));
    assertTrue(!TaskRunner.poisonsJvm(new java.io.IOException("disk full")));
    assertTrue(!TaskRunner.poisonsJvm(new OutOfMemoryError("Java heap space")));
  }
}
