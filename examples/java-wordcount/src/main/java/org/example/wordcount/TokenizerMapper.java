package org.example.wordcount;

import java.io.IOException;
import java.util.Locale;
import org.apache.commons.lang.StringUtils;
import org.apache.hadoop.io.IntWritable;
import org.apache.hadoop.io.LongWritable;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.mapreduce.Mapper;

/**
 * Emits (word, 1) for every whitespace-separated token, lower-cased and stripped of surrounding
 * punctuation. StringUtils comes from commons-lang 2.6, which is not on Hadoop's class path: it
 * reaches the task runners only through lib/ inside the job jar.
 */
public class TokenizerMapper extends Mapper<LongWritable, Text, Text, IntWritable> {

  /** Counters shown with the job's other counters. */
  public enum Words { COUNTED, SKIPPED }

  static final String PUNCTUATION = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~";

  private static final IntWritable ONE = new IntWritable(1);
  private final Text word = new Text();
  private int minLength;

  @Override
  protected void setup(Context context) {
    minLength = context.getConfiguration().getInt(WordCount.MIN_LENGTH, 1);
  }

  @Override
  protected void map(LongWritable offset, Text line, Context context)
      throws IOException, InterruptedException {
    for (String token : StringUtils.split(line.toString())) {
      String w = StringUtils.lowerCase(StringUtils.strip(token, PUNCTUATION), Locale.ROOT);
      if (w.length() < minLength) {
        context.getCounter(Words.SKIPPED).increment(1);
        continue;
      }
      word.set(w);
      context.write(word, ONE);
      context.getCounter(Words.COUNTED).increment(1);
    }
  }
}
