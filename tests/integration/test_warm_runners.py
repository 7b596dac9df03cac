"""Warm runners across the jobs of one session (ham.runner.warm.idle.ms, issue #32): a job after
the first runs on the runners the first started (no new srun step), each job with its own
token, class loader and configuration, outputs equal to the local runner's; two jobs at once
get distinct runners; the off switch; parked runners end after the idle time and with the
session. Real Slurm, real `hadoop jar`."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import HADOOP_CP
from tests.integration.conftest import in_background
from tests.integration.test_runtime import EXAMPLES

WARM = "-D ham.runner.warm.idle.ms=60000"
RUNNER_CLASS = "io.github.ham.mapreduce.runner.TaskRunner"


def ham_run(d: Path, cluster: dict[str, str], script: str,
            **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "ham", "run", "-N", "2", "--retention", "all",
                           "--", "bash", "-c", script], cwd=d, capture_output=True, text=True,
                          env={**cluster, "HAM_SHARED_ROOT": str(d / "shared"), **env},
                          timeout=600)


def local_run(d: Path, cluster: dict[str, str], *args: str) -> None:
    """The same job with Hadoop's local runner (the bundled client, no HADOOP_CONF_DIR)."""
    env = {k: v for k, v in cluster.items() if k != "HADOOP_CONF_DIR"}
    r = subprocess.run([sys.executable, "-m", "ham", "hadoop", *args], cwd=d, env=env,
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]


@pytest.fixture(scope="module")
def local_outputs(cluster, tmp_path_factory):
    """The local runner's outputs for write_input's input (wordcount, grep, and wordcount of
    that wordcount), made once in the background while the first test's HAM jobs run: the
    function it gives waits for one and returns its lines."""
    d = tmp_path_factory.mktemp("warm-local")
    write_input(d)

    def make() -> None:
        local_run(d, cluster, "jar", str(EXAMPLES), "wordcount", "in", "wordcount")
        local_run(d, cluster, "jar", str(EXAMPLES), "grep", "in", "grep", "w[0-3]")
        local_run(d, cluster, "jar", str(EXAMPLES), "wordcount", "wordcount", "wordcount2")
    with in_background(make) as made:
        def output(name: str) -> list[str]:
            made.result()
            return lines(d / name)
        yield output


def lines(out: Path) -> list[str]:
    return sorted(line for p in out.glob("part-*") for line in p.read_text().splitlines())


def write_input(d: Path) -> None:
    (d / "in").mkdir()
    for i in range(3):
        (d / "in" / f"f{i}").write_text("".join(f"w{(i * j) % 7} line {j}\n" for j in range(60)))
    (d / "shared").mkdir()


def session(d: Path) -> Path:
    (s,) = (d / "shared").glob("*/*/ham.json")
    return s.parent


def jobs(d: Path) -> list[Path]:
    """The session's Hadoop jobs, in the order they started."""
    return sorted((session(d) / "jobs").iterdir(), key=lambda p: (p / "job.xml").stat().st_mtime)


def steps_started(job: Path) -> int:
    """The srun steps (generations and replacements) a job started: each writes its own log."""
    return len(list((job / "logs").glob("runners.g*.log")))


def claims(d: Path) -> dict[str, list[str]]:
    """Per job id, the parked runners (node-pid) its driver claimed, from the session's log."""
    out: dict[str, list[str]] = {}
    for line in (session(d) / "driver.log").read_text().splitlines():
        m = re.search(r"(job_\d+_\d+).*Claimed \d+ parked runner\(s\) .*: (.*)$", line)
        if m:
            out.setdefault(m.group(1), []).extend(m.group(2).split())
    return out


def runners_left(d: Path) -> list[str]:
    """Task runner JVMs of this session's jobs still running (their job id is on argv)."""
    ids = {j.name for j in (session(d) / "jobs").iterdir()}
    left = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            argv = cmdline.read_bytes().split(b"\0")
        except OSError:
            continue
        if RUNNER_CLASS.encode() in argv and ids & {a.decode(errors="replace") for a in argv}:
            left.append(cmdline.parent.name)
    return left


def test_a_chain_of_jobs_runs_on_the_first_jobs_runners(cluster, tmp_path, local_outputs):
    """Three jobs from one script, with HAM's defaults: the later ones claim the runners the first started
    (one srun step for all three; the first step's runners log each claim), and every output
    equals the local runner's."""
    d = tmp_path
    write_input(d)
    # HAM's defaults: warm runners are on unless turned off.
    r = ham_run(d, cluster, f"hadoop jar {EXAMPLES} wordcount in o1 && "
                            f"hadoop jar {EXAMPLES} grep in o2 'w[0-3]' && "
                            f"hadoop jar {EXAMPLES} wordcount o1 o3")
    assert r.returncode == 0, r.stderr[-4000:]
    first, *later = jobs(d)
    assert len(later) == 3  # grep is two jobs (search, sort)
    assert steps_started(first) == 1
    assert [steps_started(j) for j in later] == [0, 0, 0], "a later job started its own step"
    claimed = claims(d)
    assert set(claimed) == {j.name for j in later}, claimed
    step_log = (first / "logs" / "runners.g0.log").read_text()
    for j in later:
        assert f"Claimed by job {j.name} as runner" in step_log
    for ham, local in (("o1", "wordcount"), ("o2", "grep"), ("o3", "wordcount2")):
        assert lines(d / ham) == local_outputs(local) != [], ham
    assert runners_left(d) == [], "a parked runner outlived its session"


def test_two_jobs_at_once_get_distinct_runners(cluster, tmp_path, local_outputs):
    """After a first job parks its runners, two jobs start at once: at most one of them gets
    the parked runners (a runner is claimed by one job), the other starts a step of its own;
    both outputs equal the local runner's."""
    d = tmp_path
    write_input(d)
    r = ham_run(d, cluster, f"hadoop jar {EXAMPLES} wordcount {WARM} in o1 && "
                            f"(hadoop jar {EXAMPLES} wordcount {WARM} in o2 & "
                            f"hadoop jar {EXAMPLES} wordcount {WARM} o1 o3 & wait)")
    assert r.returncode == 0, r.stderr[-4000:]
    first, second, third = jobs(d)
    claimed = claims(d)
    assert set(claimed) <= {second.name, third.name} and len(claimed) >= 1, claimed
    taken = [runner.split("=")[0] for job in claimed.values() for runner in job]
    assert len(taken) == len(set(taken)), f"a runner was claimed by two jobs: {claimed}"
    # The jobs that claimed nothing started their own step; those that claimed, none.
    for j in (second, third):
        assert steps_started(j) == (0 if j.name in claimed else 1), j.name
    assert lines(d / "o1") == lines(d / "o2") == local_outputs("wordcount") != []
    assert lines(d / "o3") == local_outputs("wordcount2") != []
    assert runners_left(d) == []


TAGGED = {
    "hamwarm/TagJob.java": """package hamwarm;
import java.io.IOException;
import org.apache.hadoop.conf.Configured;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.*;
import org.apache.hadoop.mapreduce.*;
import org.apache.hadoop.mapreduce.lib.input.FileInputFormat;
import org.apache.hadoop.mapreduce.lib.output.FileOutputFormat;
import org.apache.hadoop.mapreduce.lib.reduce.IntSumReducer;
import org.apache.hadoop.util.*;
public class TagJob extends Configured implements Tool {
  public static class M extends Mapper<LongWritable, Text, Text, IntWritable> {
    protected void map(LongWritable k, Text v, Context c) throws IOException, InterruptedException {
      c.write(new Text(Tag.of(v.toString().split(" ")[0])), new IntWritable(1));
    }
  }
  public int run(String[] a) throws Exception {
    Job job = Job.getInstance(getConf(), "tag");
    job.setJarByClass(TagJob.class);
    job.setMapperClass(M.class);
    job.setReducerClass(IntSumReducer.class);
    job.setOutputKeyClass(Text.class);
    job.setOutputValueClass(IntWritable.class);
    FileInputFormat.addInputPath(job, new Path(a[0]));
    FileOutputFormat.setOutputPath(job, new Path(a[1]));
    return job.waitForCompletion(true) ? 0 : 1;
  }
  public static void main(String[] a) throws Exception { System.exit(ToolRunner.run(new TagJob(), a)); }
}
""",
}
TAGS = {
    "a": 'package hamwarm; public class Tag { public static String of(String w) { return "A-" + w; } }',
    "b": 'package hamwarm; public class Tag { public static String of(String w) { return w + "-B"; } }',
}


def tag_jar(base: Path, name: str) -> Path:
    """A job jar whose hamwarm.Tag is jar {name}'s own: both jars define the class."""
    src, classes = base / name / "src", base / name / "classes"
    (src / "hamwarm").mkdir(parents=True)
    (src / "hamwarm" / "Tag.java").write_text(TAGS[name])
    (src / "hamwarm" / "TagJob.java").write_text(TAGGED["hamwarm/TagJob.java"])
    subprocess.run(["javac", "-d", str(classes), "-cp", HADOOP_CP,
                    *[str(p) for p in (src / "hamwarm").glob("*.java")]], check=True)
    jar = base / f"{name}.jar"
    subprocess.run(["jar", "cf", str(jar), "-C", str(classes), "."], check=True)
    return jar


def test_jobs_whose_jars_define_the_same_class_differently(cluster, tmp_path):
    """Two jobs in a row on the same warm runners, each jar with its own hamwarm.Tag: each job's
    output is its own jar's (as the local runner's), not the class the runner loaded first. Warm
    runners on for the session with the setting runner_warm_idle_ms, not per job."""
    d = tmp_path
    write_input(d)
    a, b = tag_jar(d, "a"), tag_jar(d, "b")
    r = ham_run(d, cluster, f"hadoop jar {a} hamwarm.TagJob in oa && "
                            f"hadoop jar {b} hamwarm.TagJob in ob",
                HAM_RUNNER_WARM_IDLE_MS="60000")
    assert r.returncode == 0, r.stderr[-4000:]
    first, second = jobs(d)
    assert steps_started(second) == 0 and second.name in claims(d), "no warm runner was used"
    local_run(d, cluster, "jar", str(a), "hamwarm.TagJob", "in", "la")
    local_run(d, cluster, "jar", str(b), "hamwarm.TagJob", "in", "lb")
    assert lines(d / "oa") == lines(d / "la") and lines(d / "oa")[0].startswith("A-")
    assert lines(d / "ob") == lines(d / "lb") and lines(d / "ob")[0].split("\t")[0].endswith("-B")


@pytest.mark.parametrize("switch,setting", [("-D ham.runner.warm.idle.ms=0", {}),
                                            ("", {"HAM_RUNNER_WARM_IDLE_MS": "0"})],
                         ids=["job-key", "session-setting"])
def test_without_warm_runners_each_job_starts_its_own_step(cluster, tmp_path, switch, setting):
    """Off (0, per job or for the session): no runner parks, each job starts its own srun
    step."""
    d = tmp_path
    write_input(d)
    r = ham_run(d, cluster, f"hadoop jar {EXAMPLES} wordcount {switch} in o1 && "
                            f"hadoop jar {EXAMPLES} wordcount {switch} in o2", **setting)
    assert r.returncode == 0, r.stderr[-4000:]
    assert [steps_started(j) for j in jobs(d)] == [1, 1]
    assert claims(d) == {}
    assert not (session(d) / "tmp" / "ham-warm").exists()
    assert lines(d / "o1") == lines(d / "o2") != []


def test_parked_runners_exit_after_the_idle_time(cluster, tmp_path):
    """Parked 1 s: a job 6 s later finds none (its own step), and none is left after."""
    d = tmp_path
    write_input(d)
    idle = "-D ham.runner.warm.idle.ms=1000"
    r = ham_run(d, cluster, f"hadoop jar {EXAMPLES} wordcount {idle} in o1 && sleep 6 && "
                            f"ls {session_glob(d)}/tmp/ham-warm/parked > parked.txt && "
                            f"hadoop jar {EXAMPLES} wordcount {idle} in o2")
    assert r.returncode == 0, r.stderr[-4000:]
    assert (d / "parked.txt").read_text() == "", "runners still parked after their idle time"
    first, second = jobs(d)
    assert steps_started(second) == 1 and claims(d) == {}
    step_log = (first / "logs" / "runners.g0.log").read_text()
    assert "Not claimed within 1000 ms; exiting" in step_log
    assert lines(d / "o1") == lines(d / "o2") != []
    assert runners_left(d) == []


def session_glob(d: Path) -> str:
    """The session directory as the script's shell finds it (one session under shared/)."""
    return f"{d}/shared/*/*"


def test_parked_runners_stop_when_ham_run_is_killed(cluster, tmp_path):
    """`ham run` SIGKILLed inside an allocation that lives on (the user's own salloc): its
    reaper stops the runners its job left parked (their log says the session's end stopped
    them), long before their idle time (10 min) and the allocation's end."""
    d = tmp_path
    write_input(d)
    shared = d / "shared"
    script = d / "kill.sh"
    script.write_text(f"""set -u
{sys.executable} -m ham run --retention all -- bash -c \\
  "hadoop jar {EXAMPLES} wordcount -D ham.runner.warm.idle.ms=600000 in o1 && exec sleep 600" &
pid=$!
for i in $(seq 600); do
  ls {shared}/*/*/tmp/ham-warm/parked/*.runner >/dev/null 2>&1 && break; sleep 0.5
done
kill -9 $pid
sleep 1
for i in $(seq 240); do pgrep -f "ham.reaper {shared}/" >/dev/null || break; sleep 0.5; done
ls {shared}/*/*/tmp/ham-warm/ > {d}/after.txt
""")
    r = subprocess.run(["salloc", "-N", "2", "bash", str(script)], cwd=d,
                       env={**cluster, "HAM_SHARED_ROOT": str(shared)}, capture_output=True,
                       text=True, timeout=900)
    assert (d / "after.txt").read_text().split() == ["parked.closed", "work"], r.stderr[-3000:]
    (first,) = jobs(d)
    step_log = (first / "logs" / "runners.g0.log").read_text()
    parked = step_log.count("Parked for 600000 ms")
    assert parked >= 2 and step_log.count("Stopped by the session's end; exiting") == parked, \
        step_log[-3000:]
    assert runners_left(d) == []
