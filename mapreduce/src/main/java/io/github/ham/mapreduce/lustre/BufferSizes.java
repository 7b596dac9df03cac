package io.github.ham.mapreduce.lustre;

import io.github.ham.mapreduce.common.HamConfig;

import org.apache.hadoop.conf.Configuration;

/**
 * The two buffers of a lustre:// stream: the one it gathers records in
 * ({@link HamConfig#LUSTRE_RECORD_BUFFER_SIZE}, cache-sized) and the unit of its direct I/O
 * ({@link HamConfig#LUSTRE_BUFFER_SIZE}, a stripe). Each is at least what the caller asks for
 * (io.file.buffer.size) and at least a page.
 */
record BufferSizes(int records, int direct) {
  static BufferSizes of(Configuration conf) {
    return new BufferSizes(
        Math.max(conf.getInt(HamConfig.LUSTRE_RECORD_BUFFER_SIZE,
            HamConfig.DEFAULT_LUSTRE_RECORD_BUFFER_SIZE), 4096),
        Math.max(conf.getInt(HamConfig.LUSTRE_BUFFER_SIZE, HamConfig.DEFAULT_LUSTRE_BUFFER_SIZE),
            4096));
  }

  int records(int asked) {
    return Math.max(asked, records);
  }

  int direct(int asked) {
    return Math.max(asked, direct);
  }
}
