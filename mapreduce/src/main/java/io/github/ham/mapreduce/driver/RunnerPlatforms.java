package io.github.ham.mapreduce.driver;

import java.io.IOException;

import io.github.ham.mapreduce.common.HamConfig;
import io.github.ham.mapreduce.driver.launch.LocalPlatform;
import io.github.ham.mapreduce.driver.launch.RunnerPlatform;
import io.github.ham.mapreduce.driver.slurm.SlurmPlatform;

import org.apache.hadoop.conf.Configuration;

/** The one place that reads ham.launcher: which {@link RunnerPlatform} a configuration runs on. */
public final class RunnerPlatforms {
  private RunnerPlatforms() {
  }

  /** The Slurm allocation this JVM runs in, or with ham.launcher=local this machine. */
  public static RunnerPlatform of(Configuration conf) {
    return HamConfig.LAUNCHER_LOCAL.equals(conf.getTrimmed(HamConfig.LAUNCHER,
        HamConfig.DEFAULT_LAUNCHER)) ? new LocalPlatform() : new SlurmPlatform(conf);
  }

  /** As {@link #of}, for a job that is to run now: there must be somewhere to run it. */
  public static RunnerPlatform require(Configuration conf) throws IOException {
    RunnerPlatform platform = of(conf);
    if (!platform.available()) {
      throw new IOException("HAM needs a Slurm allocation: run inside salloc/sbatch or use "
          + "`ham run`");
    }
    return platform;
  }
}
