"""YARN behaviour jobs rely on, on the 3-node cluster, each compared with what YARN or the local
runner does: cluster size for self-sizing jobs, task JVM options and memory limits, credentials
and encrypted intermediate data, speculation, System.exit in a task, and job class loading."""

from __future__ import annotations

import filecmp
import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import HADOOP_CP
from tests.integration.test_runtime import (EXAMPLES, MAPPER, REDUCER, STREAMING,
                                            check_job_counters)
from tests.integration.test_runtime_faults import expected_counts, output_counts
from tests.integration.test_security import private

JOBS = {
    "hamtest/SecretJob.java": """package hamtest;
import java.io.IOException;
import org.apache.hadoop.conf.Configured;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.*;
import org.apache.hadoop.mapreduce.*;
import org.apache.hadoop.mapreduce.lib.input.FileInputFormat;
import org.apache.hadoop.mapreduce.lib.output.FileOutputFormat;
import org.apache.hadoop.util.*;
/** A secret added to the job's credentials by the client, read by every map. */
public class SecretJob extends Configured implements Tool {
  static final Text KEY = new Text("hamtest.secret");
  public static class M extends Mapper<LongWritable, Text, Text, NullWritable> {
    @Override protected void setup(Context c) throws IOException, InterruptedException {
      byte[] secret = c.getCredentials().getSecretKey(KEY);
      c.write(new Text("secret=" + (secret == null ? "MISSING" : new String(secret, "UTF-8"))),
          NullWritable.get());
    }
    @Override protected void map(LongWritable k, Text v, Context c) {}
  }
  public int run(String[] a) throws Exception {
    Job job = Job.getInstance(getConf(), "secret");
    job.setJarByClass(SecretJob.class);
    job.setMapperClass(M.class);
    job.setNumReduceTasks(0);
    job.setOutputKeyClass(Text.class);
    job.setOutputValueClass(NullWritable.class);
    job.getCredentials().addSecretKey(KEY, a[2].getBytes("UTF-8"));
    FileInputFormat.addInputPath(job, new Path(a[0]));
    FileOutputFormat.setOutputPath(job, new Path(a[1]));
    return job.waitForCompletion(true) ? 0 : 1;
  }
  public static void main(String[] a) throws Exception { System.exit(ToolRunner.run(new SecretJob(), a)); }
}
""",
    "hamtest/HeapJob.java": """package hamtest;
import java.io.IOException;
import org.apache.hadoop.conf.Configured;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.*;
import org.apache.hadoop.mapreduce.*;
import org.apache.hadoop.mapreduce.lib.input.FileInputFormat;
import org.apache.hadoop.mapreduce.lib.output.FileOutputFormat;
import org.apache.hadoop.util.*;
/** Each map and the reduce report the maximum heap of the JVM they run in, in MB. */
public class HeapJob extends Configured implements Tool {
  static long mb() { return Runtime.getRuntime().maxMemory() / (1024 * 1024); }
  public static class M extends Mapper<LongWritable, Text, Text, LongWritable> {
    @Override protected void map(LongWritable k, Text v, Context c) {}
    @Override protected void cleanup(Context c) throws IOException, InterruptedException {
      c.write(new Text("map"), new LongWritable(mb()));
    }
  }
  public static class R extends Reducer<Text, LongWritable, Text, LongWritable> {
    @Override protected void reduce(Text k, Iterable<LongWritable> vs, Context c)
        throws IOException, InterruptedException {
      for (LongWritable v : vs) { c.write(k, v); }
      c.write(new Text("reduce"), new LongWritable(mb()));
    }
  }
  public int run(String[] a) throws Exception {
    Job job = Job.getInstance(getConf(), "heap");
    job.setJarByClass(HeapJob.class);
    job.setMapperClass(M.class);
    job.setReducerClass(R.class);
    job.setNumReduceTasks(1);
    job.setOutputKeyClass(Text.class);
    job.setOutputValueClass(LongWritable.class);
    FileInputFormat.addInputPath(job, new Path(a[0]));
    FileOutputFormat.setOutputPath(job, new Path(a[1]));
    return job.waitForCompletion(true) ? 0 : 1;
  }
  public static void main(String[] a) throws Exception { System.exit(ToolRunner.run(new HeapJob(), a)); }
}
""",
    "hamtest/ExitJob.java": """package hamtest;
import java.io.IOException;
import org.apache.hadoop.conf.Configured;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.*;
import org.apache.hadoop.mapreduce.*;
import org.apache.hadoop.mapreduce.lib.input.FileInputFormat;
import org.apache.hadoop.mapreduce.lib.output.FileOutputFormat;
import org.apache.hadoop.util.*;
/** The first attempt of map 0 calls System.exit; every map copies its lines. */
public class ExitJob extends Configured implements Tool {
  public static class M extends Mapper<LongWritable, Text, Text, NullWritable> {
    @Override protected void setup(Context c) {
      if (c.getTaskAttemptID().toString().endsWith("_m_000000_0")) { System.exit(3); }
    }
    @Override protected void map(LongWritable k, Text v, Context c)
        throws IOException, InterruptedException {
      c.write(v, NullWritable.get());
    }
  }
  public int run(String[] a) throws Exception {
    Job job = Job.getInstance(getConf(), "exit");
    job.setJarByClass(ExitJob.class);
    job.setMapperClass(M.class);
    job.setNumReduceTasks(0);
    job.setOutputKeyClass(Text.class);
    job.setOutputValueClass(NullWritable.class);
    FileInputFormat.addInputPath(job, new Path(a[0]));
    FileOutputFormat.setOutputPath(job, new Path(a[1]));
    return job.waitForCompletion(true) ? 0 : 1;
  }
  public static void main(String[] a) throws Exception { System.exit(ToolRunner.run(new ExitJob(), a)); }
}
""",
    "hamtest/LoaderJob.java": """package hamtest;
import java.io.IOException;
import org.apache.hadoop.conf.Configured;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.*;
import org.apache.hadoop.mapreduce.*;
import org.apache.hadoop.mapreduce.lib.input.FileInputFormat;
import org.apache.hadoop.mapreduce.lib.output.FileOutputFormat;
import org.apache.hadoop.util.*;
/** Uses the job jar's own StringUtils, which Hadoop's commons-lang3 hides unless the job's
 *  classes come first. */
public class LoaderJob extends Configured implements Tool {
  public static class M extends Mapper<LongWritable, Text, Text, NullWritable> {
    @Override protected void setup(Context c) throws IOException, InterruptedException {
      c.write(new Text(org.apache.commons.lang3.StringUtils.hamMarker()), NullWritable.get());
    }
    @Override protected void map(LongWritable k, Text v, Context c) {}
  }
  public int run(String[] a) throws Exception {
    Job job = Job.getInstance(getConf(), "loader");
    job.setJarByClass(LoaderJob.class);
    job.setMapperClass(M.class);
    job.setNumReduceTasks(0);
    job.setOutputKeyClass(Text.class);
    job.setOutputValueClass(NullWritable.class);
    FileInputFormat.addInputPath(job, new Path(a[0]));
    FileOutputFormat.setOutputPath(job, new Path(a[1]));
    return job.waitForCompletion(true) ? 0 : 1;
  }
  public static void main(String[] a) throws Exception { System.exit(ToolRunner.run(new LoaderJob(), a)); }
}
""",
    "org/apache/commons/lang3/StringUtils.java": """package org.apache.commons.lang3;
/** The job's own copy of a class Hadoop also ships (commons-lang3). */
public class StringUtils {
  public static String hamMarker() { return "the job's own StringUtils"; }
}
""",
}


@pytest.fixture(scope="module")
def app(tmp_path_factory) -> Path:
    """One job jar with every test program (and its own org.apache.commons.lang3.StringUtils)."""
    base = tmp_path_factory.mktemp("yarnjobs")
    src, classes = base / "src", base / "classes"
    for name, text in JOBS.items():
        (src / name).parent.mkdir(parents=True, exist_ok=True)
        (src / name).write_text(text)
    subprocess.run(["javac", "-d", str(classes), "-cp", HADOOP_CP,
                    *[str(src / n) for n in JOBS]], check=True)
    subprocess.run(["jar", "cf", str(base / "app.jar"), "-C", str(classes), "."], check=True)
    return base / "app.jar"


def write_input(d: Path, files: int = 3) -> None:
    (d / "in").mkdir()
    for i in range(files):
        (d / "in" / f"f{i}").write_text("".join(f"line {i} {j} w{(i + j) % 5}\n" for j in range(40)))
    (d / "shared").mkdir()


def ham_run(d: Path, cluster: dict[str, str], cmd: list[str], *run_opts: str,
            timeout: float = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "ham", "run", "-N", "3", "--retention", "all",
                           *run_opts, "--", *cmd], cwd=d, capture_output=True, text=True,
                          env={**cluster, "HAM_SHARED_ROOT": str(d / "shared")}, timeout=timeout)


def local_run(d: Path, cluster: dict[str, str], cmd: list[str]) -> None:
    """The same command with Hadoop's local runner (the bundled client, no HADOOP_CONF_DIR)."""
    env = {k: v for k, v in cluster.items() if k != "HADOOP_CONF_DIR"}
    r = subprocess.run([sys.executable, "-m", "ham", "hadoop", *cmd[1:]], cwd=d, env=env,
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]


def statuses(d: Path) -> list[dict]:
    return [json.loads(p.read_text()) for p in sorted((d / "shared").glob("*/*/jobs/*/status.json"),
                                                      key=lambda p: p.stat().st_mtime)]


def job_dirs(d: Path) -> list[Path]:
    """The HAM jobs' directories, in the order of statuses()."""
    return [p.parent for p in sorted((d / "shared").glob("*/*/jobs/*/status.json"),
                                     key=lambda p: p.stat().st_mtime)]


def lines(out: Path) -> list[str]:
    return sorted(line for p in out.glob("part-*") for line in p.read_text().splitlines())


def test_self_sizing_jobs_see_the_allocation(cluster, tmp_path):
    """randomwriter starts maps per tracker and sort asks for 0.9 x the reduce slots: on a
    3-node allocation with 2 CPUs a node (2 runners), 3 maps and 5 reduces, as on YARN; the
    sorted records are those of the local runner's sort with that many reduces (the files are
    SequenceFiles, whose sync markers are random). 500 KB a map: a record averages 10 KB, and
    with 50 KB a map (~15 records) one of the 5 partitions came out empty about one run in 7,
    for HAM and the local runner alike."""
    d = tmp_path
    (d / "shared").mkdir()
    r = ham_run(d, cluster, ["bash", "-c",
                             f"hadoop jar {EXAMPLES} randomwriter "
                             "-D mapreduce.randomwriter.mapsperhost=1 "
                             "-D mapreduce.randomwriter.bytespermap=500000 rw && "
                             f"hadoop jar {EXAMPLES} sort rw sorted"], "-c", "2")
    assert r.returncode == 0, r.stderr[-4000:]
    assert len(list((d / "rw").glob("part-m-*"))) == 3, "one map per tracker (node)"
    parts = sorted(p.name for p in (d / "sorted").glob("part-r-*"))
    assert len(parts) == int(0.9 * 3 * 2) == 5, parts
    local_run(d, cluster, ["hadoop", "jar", str(EXAMPLES), "sort", "-r", "5", "rw", "local"])
    for name in parts:
        ham, local = (text(d, cluster, f"{out}/{name}") for out in ("sorted", "local"))
        assert ham == local and ham.strip(), name


def text(d: Path, cluster: dict[str, str], path: str) -> str:
    """A SequenceFile's records, as `hadoop fs -text` prints them."""
    env = {k: v for k, v in cluster.items() if k != "HADOOP_CONF_DIR"}
    return subprocess.run([sys.executable, "-m", "ham", "hadoop", "fs", "-text", path], cwd=d,
                          env=env, capture_output=True, text=True, check=True).stdout


def test_task_jvm_options_and_separate_runners(cluster, tmp_path, app):
    """-Dmapreduce.{map,reduce}.java.opts set each task's heap: maps and reduce run in JVMs
    started with them (separate map and reduce runners, as YARN's separate containers)."""
    d = tmp_path
    write_input(d)
    r = ham_run(d, cluster, ["hadoop", "jar", str(app), "hamtest.HeapJob",
                             "-D", "mapreduce.map.java.opts=-Xmx300m",
                             "-D", "mapreduce.reduce.java.opts=-Xmx200m", "in", "out"])
    assert r.returncode == 0, r.stderr[-4000:]
    heaps = [line.split("\t") for line in lines(d / "out")]
    maps = [int(mb) for kind, mb in heaps if kind == "map"]
    reduces = [int(mb) for kind, mb in heaps if kind == "reduce"]
    assert len(maps) == 3 and all(250 < mb <= 300 for mb in maps), heaps
    assert len(reduces) == 1 and 150 < reduces[0] <= 200, heaps
    driver = next((d / "shared").glob("*/*/driver.log")).read_text()
    assert re.search(r"Started \d+ MAP runner.*-Xmx300m", driver), driver[-3000:]
    assert re.search(r"Started \d+ REDUCE runner.*-Xmx200m", driver), driver[-3000:]


HUNGRY = MAPPER.replace("import sys\n", "import os, sys, time\n"
                        "if os.environ['mapreduce_task_attempt_id'].endswith('_0'):\n"
                        "    hog = b'x' * (700 * 1024 * 1024)\n"
                        "    time.sleep(30)\n", 1)
ALWAYS_HUNGRY = MAPPER.replace("import sys\n", "import sys, time\n"
                               "hog = b'x' * (700 * 1024 * 1024)\n"
                               "time.sleep(30)\n", 1)
MEMORY_DIAGNOSTIC = (r"Container \[pid=\d+,containerID=\S+\] is running \d+B beyond the "
                     r"'PHYSICAL' memory limit\. Current usage: .* of 512 MB physical memory")


def test_task_past_its_memory_is_killed_and_retried(cluster, tmp_path):
    """Every map's first attempt takes 700 MB with memory.mb = 512: killed with YARN's
    diagnostic, FAILED (counted, as on YARN), retried; the job succeeds with the second."""
    d = tmp_path
    write_input(d)
    (d / "mapper.py").write_text(HUNGRY)
    (d / "reducer.py").write_text(REDUCER)
    r = ham_run(d, cluster, ["hadoop", "jar", str(STREAMING), "-D", "mapreduce.map.memory.mb=512",
                             "-D", "ham.memory.check.interval.ms=500",
                             "-D", "ham.runner.max.relaunches=0",
                             "-files", "mapper.py,reducer.py", "-mapper", "python3 mapper.py",
                             "-reducer", "python3 reducer.py", "-input", "in", "-output", "out"])
    assert r.returncode == 0, r.stderr[-4000:]
    assert output_counts(d / "out") == expected_counts(d)
    status = statuses(d)[-1]
    failed = [a for a in status["attempts"] if a["state"] == "FAILED"]
    assert len(failed) == 3 and all(a["id"].endswith("_0") for a in failed), failed
    for a in failed:
        assert re.search(MEMORY_DIAGNOSTIC, a["error"]), a["error"]
    # The runners killed themselves; their replacements did not use up the (zero) budget.
    assert status["runner_launches"] >= 4
    check_job_counters(job_dirs(d)[-1], status)  # 6 maps launched, 3 failed


def test_every_attempt_past_its_memory_fails_the_job(cluster, tmp_path):
    """Every attempt of the one map takes 700 MB with memory.mb = 512: each is killed with
    YARN's diagnostic, and after mapreduce.map.maxattempts (2) the job fails as on YARN, its
    error and that diagnostic ending the client's output; the job counters count both failed
    attempts with the map's memory, vcores (2) and slots of a 256 MB minimum allocation."""
    d = tmp_path
    write_input(d, files=1)
    (d / "mapper.py").write_text(ALWAYS_HUNGRY)
    (d / "reducer.py").write_text(REDUCER)
    r = ham_run(d, cluster, ["hadoop", "jar", str(STREAMING), "-D", "mapreduce.map.memory.mb=512",
                             "-D", "mapreduce.map.cpu.vcores=2",
                             "-D", "yarn.scheduler.minimum-allocation-mb=256",
                             "-D", "mapreduce.map.maxattempts=2",
                             "-D", "mapreduce.job.maps=1",  # one split (streaming asks for 2)
                             "-D", "ham.memory.check.interval.ms=500",
                             "-D", "ham.runner.max.relaunches=0",
                             "-files", "mapper.py,reducer.py", "-mapper", "python3 mapper.py",
                             "-reducer", "python3 reducer.py", "-input", "in", "-output", "out"])
    assert r.returncode != 0
    # The last line (before salloc's goodbye): the job's error, ending with YARN's diagnostic.
    last = [line for line in r.stderr.splitlines() if not line.startswith("salloc:")][-1]
    assert re.match(r"ham: ERROR: job_\S+ FAILED: Task task_\S+_m_000000 failed 2 times; "
                    r"last error: " + MEMORY_DIAGNOSTIC, last), last
    assert not (d / "out" / "_SUCCESS").exists()
    status = statuses(d)[-1]
    assert status["state"] == "FAILED"
    attempts = [(a["id"][-11:], a["state"]) for a in status["attempts"]]
    assert attempts == [("_m_000000_0", "FAILED"), ("_m_000000_1", "FAILED")], attempts
    assert all(re.search(MEMORY_DIAGNOSTIC, a["error"]) for a in status["attempts"])
    check_job_counters(job_dirs(d)[-1], status)
    assert status["counters"]["org.apache.hadoop.mapreduce.JobCounter"]["NUM_FAILED_MAPS"] == 2


def test_secret_from_the_job_credentials_reaches_the_mappers(cluster, tmp_path, app):
    d = tmp_path
    write_input(d)
    secret = os.urandom(8).hex()
    r = ham_run(d, cluster, ["hadoop", "jar", str(app), "hamtest.SecretJob", "in", "out", secret])
    assert r.returncode == 0, r.stderr[-4000:]
    assert lines(d / "out") == [f"secret={secret}"] * 3
    # Never in a file group or others can read (command lines and /tmp while a job runs:
    # test_security.py, with a secret of the job's credentials too).
    shared = [p for p in (d / "shared").rglob("*") if p.is_file()]
    held = [p for p in shared if secret.encode() in p.read_bytes()]
    assert all(private(p, d / "shared") for p in held), held


def test_encrypted_intermediate_data_gives_the_local_runners_output(cluster, tmp_path):
    """wordcount with encrypted intermediate data gives the local runner's output, and its map
    outputs on the shared file system (kept with ham.keep.intermediate) are encrypted: a word
    of every map's input ("line") is in each map output of the same job run unencrypted in the
    same allocation, and in none of the encrypted job's."""
    d = tmp_path
    write_input(d)
    wordcount = ["hadoop", "jar", str(EXAMPLES), "wordcount", "-D", "mapreduce.job.reduces=2"]
    encrypted = [*wordcount, "-D", "mapreduce.job.encrypted-intermediate-data=true"]
    keep = ["-D", "ham.keep.intermediate=true"]
    r = ham_run(d, cluster, ["bash", "-c", shlex.join([*encrypted, *keep, "in", "out"]) + " && "
                             + shlex.join([*wordcount, *keep, "in", "plain"])])
    assert r.returncode == 0, r.stderr[-4000:]
    local_run(d, cluster, [*encrypted, "in", "local"])
    for name in ("part-r-00000", "part-r-00001"):
        assert filecmp.cmp(d / "out" / name, d / "local" / name, shallow=False), name
        assert filecmp.cmp(d / "plain" / name, d / "local" / name, shallow=False), name

    def map_outputs(output: str) -> list[bytes]:
        job = next(j for j, s in zip(job_dirs(d), statuses(d))
                   if s["output_dir"].endswith("/" + output))
        return [p.read_bytes() for p in job.glob("intermediate/attempt_*_m_*/file.out")]
    plain, secret = map_outputs("plain"), map_outputs("out")
    assert len(plain) == len(secret) == 3
    assert all(b"line" in data for data in plain)
    assert not any(b"line" in data for data in secret)


STRAGGLER = MAPPER.replace("import sys\n", "import os, sys, time\n"
                           "if os.environ['mapreduce_task_attempt_id'].endswith('_m_000000_0'):\n"
                           "    time.sleep(300)\n", 1)


def test_a_straggler_is_overtaken_by_a_speculative_attempt(cluster, tmp_path):
    d = tmp_path
    write_input(d)
    (d / "mapper.py").write_text(STRAGGLER)
    (d / "reducer.py").write_text(REDUCER)
    r = ham_run(d, cluster, ["hadoop", "jar", str(STREAMING), "-D", "ham.speculative.min.ms=3000",
                             "-files", "mapper.py,reducer.py", "-mapper", "python3 mapper.py",
                             "-reducer", "python3 reducer.py", "-input", "in", "-output", "out"],
                timeout=240)
    assert r.returncode == 0, r.stderr[-4000:]
    assert output_counts(d / "out") == expected_counts(d)
    status = statuses(d)[-1]
    m0 = [a for a in status["attempts"] if a["task"].endswith("_m_000000")]
    assert [a["state"] for a in m0] == ["KILLED", "SUCCEEDED"], m0
    assert m0[0]["error"].startswith("Speculation: ") and m0[0]["id"].endswith("_0")
    assert (status["finish_time"] - status["start_time"]) / 1000 < 200, "it did not wait 300 s"


def test_system_exit_in_a_mapper_fails_only_that_attempt(cluster, tmp_path, app):
    d = tmp_path
    write_input(d)
    r = ham_run(d, cluster, ["hadoop", "jar", str(app), "hamtest.ExitJob",
                             "-D", "ham.runner.max.relaunches=0", "in", "out"])
    assert r.returncode == 0, r.stderr[-4000:]
    assert lines(d / "out") == sorted(p.read_text().splitlines()[i] for p in (d / "in").iterdir()
                                      for i in range(40))
    status = statuses(d)[-1]
    m0 = [a for a in status["attempts"] if a["task"].endswith("_m_000000")]
    assert [a["state"] for a in m0] == ["FAILED", "SUCCEEDED"], m0
    assert "ended its JVM (System.exit or Runtime.halt)" in m0[0]["error"], m0[0]["error"]
    assert all(a["state"] == "SUCCEEDED" for a in status["attempts"] if a not in m0)
    # The client prints the failed attempt and its diagnostic, as a YARN client does.
    console = r.stderr.splitlines()
    at = next((i for i, line in enumerate(console)
               if line.endswith(f"Task Id : {m0[0]['id']}, Status : FAILED")), None)
    assert at is not None, r.stderr[-3000:]
    assert console[at + 1] == m0[0]["error"].splitlines()[0], console[at:at + 3]


@pytest.mark.parametrize("setting", [None, "mapreduce.job.classloader=true",
                                     "mapreduce.job.user.classpath.first=true"])
def test_job_class_loading(cluster, tmp_path, app, setting):
    """Parent first by default, as in a YARN container: Hadoop's commons-lang3 hides the job's
    StringUtils and the maps fail; with an isolated job class loader or user classes first the
    job's own class is used."""
    d = tmp_path
    write_input(d, files=1)
    opts = ["-D", setting] if setting else []
    r = ham_run(d, cluster, ["hadoop", "jar", str(app), "hamtest.LoaderJob", *opts,
                             "-D", "mapreduce.map.maxattempts=1", "in", "out"])
    if setting is None:
        assert r.returncode != 0
        assert "NoSuchMethodError" in r.stderr and "hamMarker" in r.stderr, r.stderr[-3000:]
    else:
        assert r.returncode == 0, r.stderr[-4000:]
        assert lines(d / "out") == ["the job's own StringUtils"]


def test_ignored_keys_are_said_and_the_end_notification_is_sent(cluster, tmp_path):
    """A job that sets keys HAM ignores gets one WARN line for each on the console (and none
    for keys it honours), also when it sets one under its deprecated name (mapred.job.queue.name
    for mapreduce.job.queuename; mapred.reduce.tasks is honoured: 2 reduces);
    mapreduce.job.end-notification.url is called as the MRAppMaster does."""
    import http.server
    import threading

    calls: list[str] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 (the http.server API)
            calls.append(self.path)
            self.send_response(200)
            self.end_headers()

        def log_message(self, *args):
            pass

    server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    d = tmp_path
    write_input(d)
    try:
        url = f"http://127.0.0.1:{server.server_port}/done?id=$jobId&status=$jobStatus"
        r = ham_run(d, cluster, ["hadoop", "jar", str(EXAMPLES), "wordcount",
                                 "-D", "mapreduce.job.ubertask.enable=true",
                                 "-D", "mapred.job.queue.name=prod",
                                 "-D", "mapreduce.task.profile=true",
                                 "-D", "mapred.reduce.tasks=2",
                                 "-D", f"mapreduce.job.end-notification.url={url}", "in", "out"])
    finally:
        server.shutdown()
    assert r.returncode == 0, r.stderr[-4000:]
    warned = re.findall(r"WARN ham: (\S+) is ignored by HAM: ", r.stderr)
    assert sorted(warned) == ["mapreduce.job.queuename", "mapreduce.job.ubertask.enable",
                              "mapreduce.task.profile"], r.stderr[-3000:]
    assert sorted(p.name for p in (d / "out").glob("part-r-*")) == ["part-r-00000", "part-r-00001"]
    job_id = re.search(r"Running job: (job_\d+_\d+)", r.stderr).group(1)
    assert calls == [f"/done?id={job_id}&status=SUCCEEDED"], calls
