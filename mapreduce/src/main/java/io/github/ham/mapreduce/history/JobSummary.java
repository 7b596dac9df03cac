package io.github.ham.mapreduce.history;

import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapreduce.JobCounter;
import org.apache.hadoop.mapreduce.JobID;
import org.apache.hadoop.mapreduce.MRJobConfig;
import org.apache.hadoop.mapreduce.TaskType;
import org.apache.hadoop.util.StringUtils;

/**
 * The one-line job summary the MRAppMaster writes beside the history (JobSummary, not public
 * in Hadoop): its keys in its order, its escaping, its spelling ("succededMaps").
 */
final class JobSummary {
  private static final char[] SPECIAL = {',', '=', '\\'};

  private JobSummary() {
  }

  static String line(JobID id, long submit, long launch, long firstMap, long firstReduce,
      long finish, JobConf conf, JobTotals t, String user, String state) {
    StringBuilder sb = new StringBuilder();
    add(sb, "jobId", id);
    add(sb, "submitTime", submit);
    add(sb, "launchTime", launch);
    add(sb, "firstMapTaskLaunchTime", firstMap);
    add(sb, "firstReduceTaskLaunchTime", firstReduce);
    add(sb, "finishTime", finish);
    add(sb, "resourcesPerMap", conf.getMemoryRequired(TaskType.MAP));
    add(sb, "resourcesPerReduce", conf.getMemoryRequired(TaskType.REDUCE));
    add(sb, "numMaps", t.succeeded()[0] + t.failed()[0] + t.killed()[0]);
    add(sb, "numReduces", t.succeeded()[1] + t.failed()[1] + t.killed()[1]);
    add(sb, "succededMaps", t.succeeded()[0]);
    add(sb, "succeededReduces", t.succeeded()[1]);
    add(sb, "failedMaps", t.failed()[0]);
    add(sb, "failedReduces", t.failed()[1]);
    add(sb, "killedMaps", t.killed()[0]);
    add(sb, "killedReduces", t.killed()[1]);
    add(sb, "user", user);
    add(sb, "queue", conf.get(MRJobConfig.QUEUE_NAME, "default"));
    add(sb, "status", state);
    add(sb, "mapSlotSeconds", t.total().findCounter(JobCounter.SLOTS_MILLIS_MAPS).getValue() / 1000);
    add(sb, "reduceSlotSeconds",
        t.total().findCounter(JobCounter.SLOTS_MILLIS_REDUCES).getValue() / 1000);
    add(sb, "jobName", conf.getJobName());
    return sb.toString();
  }

  private static void add(StringBuilder sb, String key, Object value) {
    if (sb.length() > 0) {
      sb.append(',');
    }
    String v = StringUtils.escapeString(String.valueOf(value), StringUtils.ESCAPE_CHAR, SPECIAL)
        .replace("\n", "\\n").replace("\r", "\\r");
    sb.append(key).append('=').append(v);
  }
}
