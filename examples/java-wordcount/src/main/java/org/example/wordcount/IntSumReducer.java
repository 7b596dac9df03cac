package org.example.wordcount;

import java.io.IOException;
import org.apache.hadoop.io.IntWritable;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.mapreduce.Reducer;

/** Sums the counts of a word; also the combiner, since a sum can be taken in any grouping. */
public class IntSumReducer extends Reducer<Text, IntWritable, Text, IntWritable> {
  private final IntWritable total = new IntWritable();

  @Override
  protected void reduce(Text word, Iterable<IntWritable> counts, Context context)
      throws IOException, InterruptedException {
    int sum = 0;
    for (IntWritable c : counts) {
      sum += c.get();
    }
    total.set(sum);
    context.write(word, total);
  }
}
