package io.github.ham.mapreduce.runner;

import java.io.File;
import java.io.IOException;
import java.util.List;

import io.github.ham.mapreduce.common.jobfiles.RunnerWorkDirs;

/**
 * What a runner JVM does whatever way it ends (System.exit from a task included, SIGTERM from
 * srun or scancel): it first says so to the task loop, whose task may fail because of what
 * follows (its script gone) while the JVM is on its way out, since a task taken then would be
 * lost with the JVM; it takes the task's subprocesses (streaming scripts) with it; and it
 * removes its working directory when that is node-local ({@link RunnerWorkDirs#removeMine}).
 */
final class ExitHook {
  private ExitHook() {
  }

  /** Installs the hook; {@code exiting} tells the task loop. */
  static void install(Runnable exiting) throws IOException {
    File cwd = new File(".").getCanonicalFile();  // as the runner's shell made it
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      exiting.run();
      List<ProcessHandle> children = ProcessHandle.current().descendants().toList();
      children.forEach(ProcessHandle::destroyForcibly);
      RunnerWorkDirs.removeMine(System.getenv(), cwd, children);
    }, "ham-runner-exit"));
  }
}
