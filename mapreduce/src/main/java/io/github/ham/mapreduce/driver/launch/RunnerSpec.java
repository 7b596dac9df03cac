package io.github.ham.mapreduce.driver.launch;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.github.ham.mapreduce.common.HamConfig;
import io.github.ham.mapreduce.driver.schedule.RunnerKind;

import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapreduce.MRJobConfig;
import org.apache.hadoop.mapreduce.TaskType;
import org.apache.hadoop.mapreduce.v2.util.MRApps;

/**
 * How the runners of one kind start, as YARN starts a task's container: as many per node as
 * the node's CPUs and memory hold tasks of the job's {@code mapreduce.{map,reduce}.cpu.vcores}
 * and {@code memory.mb} (or as many as the job sets: {@link RunnerPlatform#configuredPerNode}),
 * with the task's JVM options (HAM's runner options first, then the
 * job's admin and user options, with the heap YARN derives from memory.mb when they set none)
 * and its environment ({@code mapreduce.{map,reduce}.env}).
 */
public record RunnerSpec(RunnerKind kind, int perNode, List<String> jvmOptions,
    Map<String, String> env) {

  /**
   * One kind of runner for all tasks when maps and reduces ask for the same JVMs, else map
   * runners and reduce runners.
   */
  public static List<RunnerSpec> of(JobConf conf, RunnerPlatform platform) {
    RunnerSpec map = of(conf, true, platform);
    RunnerSpec reduce = of(conf, false, platform);
    if (conf.getNumReduceTasks() == 0 || map.sameRunners(reduce)) {
      return List.of(new RunnerSpec(RunnerKind.ANY, map.perNode, map.jvmOptions, map.env));
    }
    return List.of(map, reduce);
  }

  private boolean sameRunners(RunnerSpec other) {
    return perNode == other.perNode && jvmOptions.equals(other.jvmOptions)
        && env.equals(other.env);
  }

  /**
   * The map (or reduce) slots of an allocation: the runners it holds for such tasks, as
   * YARN's cluster metrics count its containers. Self-sizing jobs read these.
   */
  public static int slots(JobConf conf, boolean isMap, RunnerPlatform platform) {
    return platform.allocation().nodes() * of(conf, isMap, platform).perNode();
  }

  /**
   * YARN's placeholder for the JVM's --add-opens in task options: Hadoop 3.4's
   * ApplicationConstants.JVM_ADD_OPENS_VAR, spelled out here because Hadoop 3.3 has neither the
   * constant nor the placeholder, and HAM's jar runs on both.
   */
  static final String JVM_ADD_OPENS_VAR = "<ADD_OPENS>";

  static RunnerSpec of(JobConf conf, boolean isMap, RunnerPlatform platform) {
    TaskType type = isMap ? TaskType.MAP : TaskType.REDUCE;
    int vcores = conf.getInt(isMap ? MRJobConfig.MAP_CPU_VCORES : MRJobConfig.REDUCE_CPU_VCORES,
        1);
    int perNode = platform.allocation().runnersPerNode(platform.configuredPerNode(conf), vcores,
        conf.getMemoryRequired(type));
    List<String> opts = new ArrayList<>(split(conf.get(HamConfig.RUNNER_JAVA_OPTS,
        HamConfig.DEFAULT_RUNNER_JAVA_OPTS)));
    // A YARN NodeManager expands this placeholder; the runners need no extra opens.
    opts.addAll(split(conf.getTaskJavaOpts(type).replace(JVM_ADD_OPENS_VAR, "")));
    Map<String, String> env = new HashMap<>();
    MRApps.setEnvFromInputString(env, conf.get(MRJobConfig.MAPRED_ADMIN_USER_ENV,
        MRJobConfig.DEFAULT_MAPRED_ADMIN_USER_ENV), conf);
    MRApps.setEnvFromInputProperty(env, isMap ? JobConf.MAPRED_MAP_TASK_ENV
        : JobConf.MAPRED_REDUCE_TASK_ENV, conf.get(JobConf.MAPRED_TASK_ENV), conf);
    // As YARN sets it: a `hadoop` command a task starts (streaming) logs at the task's level.
    env.putIfAbsent("HADOOP_ROOT_LOGGER", conf.get(isMap ? MRJobConfig.MAP_LOG_LEVEL
        : MRJobConfig.REDUCE_LOG_LEVEL, "INFO") + ",console");
    return new RunnerSpec(isMap ? RunnerKind.MAP : RunnerKind.REDUCE, perNode, List.copyOf(opts),
        Map.copyOf(env));
  }

  private static List<String> split(String opts) {
    List<String> out = new ArrayList<>();
    for (String o : opts == null ? new String[0] : opts.trim().split("\\s+")) {
      if (!o.isEmpty()) {
        out.add(o);
      }
    }
    return out;
  }
}
