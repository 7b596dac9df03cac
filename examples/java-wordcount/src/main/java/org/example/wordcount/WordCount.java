package org.example.wordcount;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.conf.Configured;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.IntWritable;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.lib.input.FileInputFormat;
import org.apache.hadoop.mapreduce.lib.output.FileOutputFormat;
import org.apache.hadoop.util.Tool;
import org.apache.hadoop.util.ToolRunner;

/**
 * Counts words, case-folded and with surrounding punctuation removed.
 *
 * <pre>
 *   hadoop jar ham-wordcount-1.0.jar [-D mapreduce.job.reduces=N] [-D wordcount.min.length=L] IN... OUT
 * </pre>
 *
 * <p>A {@link Tool}, so ToolRunner handles the generic options (-D, -files, -libjars, -conf).
 */
public class WordCount extends Configured implements Tool {

  /** Words shorter than this (after normalisation) are not counted. */
  public static final String MIN_LENGTH = "wordcount.min.length";

  @Override
  public int run(String[] args) throws Exception {
    if (args.length < 2) {
      System.err.println("usage: hadoop jar ham-wordcount-1.0.jar [generic options] IN... OUT");
      ToolRunner.printGenericCommandUsage(System.err);
      return 2;
    }
    Configuration conf = getConf();
    Job job = Job.getInstance(conf, "ham example wordcount");
    job.setJarByClass(WordCount.class);
    job.setMapperClass(TokenizerMapper.class);
    job.setCombinerClass(IntSumReducer.class);
    job.setReducerClass(IntSumReducer.class);
    job.setOutputKeyClass(Text.class);
    job.setOutputValueClass(IntWritable.class);
    for (int i = 0; i < args.length - 1; i++) {
      FileInputFormat.addInputPath(job, new Path(args[i]));
    }
    FileOutputFormat.setOutputPath(job, new Path(args[args.length - 1]));
    boolean ok = job.waitForCompletion(true);
    if (ok) {
      long words = job.getCounters().findCounter(TokenizerMapper.Words.COUNTED).getValue();
      System.out.println("words counted: " + words);
    }
    return ok ? 0 : 1;
  }

  public static void main(String[] args) throws Exception {
    System.exit(ToolRunner.run(new Configuration(), new WordCount(), args));
  }
}
