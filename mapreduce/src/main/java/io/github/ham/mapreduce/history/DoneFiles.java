package io.github.ham.mapreduce.history;

import java.io.DataOutputStream;
import java.io.File;
import java.io.IOException;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.FileUtil;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.mapreduce.JobID;
import org.apache.hadoop.mapreduce.v2.jobhistory.FileNameIndexUtils;
import org.apache.hadoop.mapreduce.v2.jobhistory.JobIndexInfo;

/**
 * history/done/: the files a JobHistoryServer picks up, as the MRAppMaster moves them into the
 * server's intermediate directory: the summary, the configuration, and the .jhist under the
 * name servers index jobs by, each written under a temporary name first, the .jhist last.
 */
final class DoneFiles {
  private DoneFiles() {
  }

  static void publish(FileSystem fs, File doneDir, JobID id, File jhist, File confXml,
      JobIndexInfo index, String summaryLine, int jobNameLimit) throws IOException {
    Path done = new Path(doneDir.getPath());
    fs.mkdirs(done);
    Path summary = new Path(done, id + ".summary");
    try (DataOutputStream o = fs.create(suffix(summary), true)) {
      o.writeUTF(summaryLine);
    }
    fs.rename(suffix(summary), summary);
    Path conf = new Path(done, id + "_conf.xml");
    fs.delete(conf, false);
    fs.rename(new Path(confXml.getPath()), suffix(conf));
    fs.rename(suffix(conf), conf);
    Path jhistDone = new Path(done, FileNameIndexUtils.getDoneFileName(index, jobNameLimit));
    FileUtil.copy(fs, new Path(jhist.getPath()), fs, suffix(jhistDone), false, true,
        new Configuration(false));
    fs.rename(suffix(jhistDone), jhistDone);
  }

  private static Path suffix(Path p) {
    return new Path(p.getParent(), p.getName() + "_tmp");
  }
}
