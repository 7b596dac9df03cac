package io.github.ham.mapreduce.history;

import org.apache.hadoop.mapreduce.Counters;

/**
 * What the job-end events and the summary say: task counts per type (index 0 maps, 1 reduces;
 * tasks, not attempts) and the counters of the maps, the reduces and the job.
 */
public record JobTotals(int[] succeeded, int[] failed, int[] killed, Counters maps,
    Counters reduces, Counters total) {
}
