"""Recovery on the real cluster: a lost task runner is replaced on its node, bad map output is
detected and its map re-run, -libjars and lib/ in the job jar reach the tasks, and a hung task
is timed out and retried."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from tests.conftest import HADOOP_CP
from tests.integration.conftest import wait_for
from tests.integration.test_runtime import MAPPER, REDUCER
from tests.integration.test_runtime_faults import (expected_counts, ham_popen, output_counts,
                                                   replacement_on, reporting, rerun_elsewhere,
                                                   runner_pids, runner_step, running_script,
                                                   streaming_cmd)


def write_inputs(d: Path, n: int, words: int = 300) -> None:
    (d / "in").mkdir()
    (d / "shared").mkdir()
    for i in range(n):
        (d / "in" / f"f{i}").write_text(
            " ".join(f"w{(i * 7 + j * j) % 23}" for j in range(words + i)) + "\n")


def communicate(proc: subprocess.Popen, d: Path, timeout: float = 300) -> tuple[str, str]:
    """The job's output; on a timeout, fail with what the driver recorded."""
    try:
        return proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        path = status_file(d)
        raise AssertionError("the job did not end; status.json: "
                             + (path.read_text()[-4000:] if path else "none")) from None


def status_file(d: Path) -> Path | None:
    return next((d / "shared").glob("*/*/jobs/*/status.json"), None)


def read_status(d: Path) -> dict:
    path = status_file(d)
    for _ in range(5):  # written atomically, but the job directory may just be appearing
        try:
            return json.loads(path.read_text())
        except (OSError, ValueError, AttributeError):
            time.sleep(0.2)
            path = status_file(d)
    raise AssertionError(f"no readable status.json under {d / 'shared'}")


def driver_log(d: Path) -> str:
    """The driver's log of the job under d (its lines are not on the client's console)."""
    return "".join(p.read_text() for p in (d / "shared").glob("*/*/driver.log"))


def with_a_task(d: Path) -> list[int]:
    """The runners (JVM pids) of the job under d that reached the driver and were given a task:
    a runner found in the process table may still be starting (seconds on a busy machine)."""
    given = {int(pid) for pid in re.findall(r"Assigned \S+ to \S+/g\d+-p\d+/(\d+)$",
                                            driver_log(d), re.M)}
    return [pid for pid in runner_pids(d) if pid in given]


def node_of(pid: int) -> str:
    env = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    return next(e.split(b"=", 1)[1].decode() for e in env if e.startswith(b"SLURMD_NODENAME="))


SLOW8 = MAPPER.replace("import sys\n", "import sys, time\ntime.sleep(8)\n", 1)
SLOW6 = MAPPER.replace("import sys\n", "import sys, time\ntime.sleep(6)\n", 1)


def test_killed_runner_is_replaced_on_its_node(cluster, tmp_path):
    """The lost runner's map runs again in another runner (the map's own stderr says which),
    and a new runner starts on its node: a TaskRunner JVM there in a later srun step."""
    d = tmp_path
    write_inputs(d, 6)
    (d / "mapper.py").write_text(reporting(SLOW8))
    (d / "reducer.py").write_text(REDUCER)
    proc = ham_popen(d, cluster, streaming_cmd(d, "out", "-D", "ham.heartbeat.timeout.ms=20000"))
    try:
        victim, attempt = wait_for(lambda: running_script(d, "mapper.py"), 240, "a map running")
        node, _ = where = runner_step(victim)
        before = read_status(d)["runners"]
        killed_at = time.time()
        os.kill(victim, signal.SIGKILL)
        replacement = replacement_on(d, where)
        out, err = communicate(proc, d)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err[-4000:]
    assert output_counts(d / "out") == expected_counts(d)
    rerun_elsewhere(d, attempt, victim)
    status = read_status(d)
    assert status["state"] == "SUCCEEDED"
    assert status["runners"] == before + 1 and status["runner_launches"] == 2
    log = next((d / "shared").glob("*/*/jobs/*/logs/runners.g1.log")).read_text()
    assert f"Task runner {node}/g1-p0/" in log, log[-2000:]
    # Its attempt was re-run at once (the process exit, not the 20 s heartbeat timeout).
    lost = [a for a in status["attempts"] if a["state"] == "KILLED"]
    assert len(lost) == 1 and lost[0]["id"] == attempt, (lost, attempt)
    assert "its process exited (Killed)" in lost[0]["error"], lost
    assert lost[0]["finish"] / 1000 - killed_at < 10
    assert replacement != victim


def test_runner_on_unhealthy_node_is_not_replaced(cluster, tmp_path):
    """The node of the lost runner is drained (for real, then resumed): no replacement, the job
    finishes on the other nodes."""
    d = tmp_path
    write_inputs(d, 3)
    (d / "mapper.py").write_text(SLOW6)
    (d / "reducer.py").write_text(REDUCER)
    proc = ham_popen(d, cluster, streaming_cmd(d, "out"))
    node = None
    try:
        victim = wait_for(lambda: with_a_task(d), 240, "a task runner with a map")[0]
        node = node_of(victim)
        subprocess.run(["scontrol", "update", f"nodename={node}", "state=drain",
                        "reason=ham-test-unhealthy"], env=cluster, check=True)
        os.kill(victim, signal.SIGKILL)
        out, err = communicate(proc, d)
    finally:
        if proc.poll() is None:
            proc.kill()
        if node:
            subprocess.run(["scontrol", "update", f"nodename={node}", "state=resume"],
                           env=cluster, check=False)
    assert proc.returncode == 0, err[-4000:]
    assert output_counts(d / "out") == expected_counts(d)
    assert re.search(rf"Task runner {node}/g0-p\d+/{victim} on {node} lost .*; not replaced: "
                     r"NODE_UNHEALTHY", driver_log(d)), driver_log(d)[-4000:]
    status = read_status(d)
    assert status["runner_launches"] == 1
    assert not list((d / "shared").glob("*/*/jobs/*/logs/runners.g1.log"))


def test_silent_runner_is_replaced_and_told_to_exit(cluster, tmp_path):
    """A runner that stops talking (SIGSTOP: alive, silent) is lost after the heartbeat timeout,
    replaced on its node (a TaskRunner JVM there in a later srun step), its map runs again in
    another runner (the map's own stderr says which), and when it wakes up its stale task is
    refused and it exits."""
    d = tmp_path
    write_inputs(d, 3)
    (d / "mapper.py").write_text(reporting(SLOW6))
    (d / "reducer.py").write_text(REDUCER)
    proc = ham_popen(d, cluster, streaming_cmd(d, "out", "-D", "ham.heartbeat.timeout.ms=8000"))
    victim = None
    try:
        victim, attempt = wait_for(lambda: running_script(d, "mapper.py"), 240, "a map running")
        node, _ = where = runner_step(victim)
        os.kill(victim, signal.SIGSTOP)
        replacement_on(d, where)
        os.kill(victim, signal.SIGCONT)
        out, err = communicate(proc, d)
    finally:
        if victim is not None:
            try:
                os.kill(victim, signal.SIGCONT)
            except ProcessLookupError:
                pass
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err[-4000:]
    assert output_counts(d / "out") == expected_counts(d)
    rerun_elsewhere(d, attempt, victim)
    assert re.search(rf"Task runner {node}/g0-p\d+/{victim} on {node} lost \(no contact with "
                     rf"the driver for \d+ s\); started replacement runner g\d+-p0 on {node}",
                     driver_log(d)), driver_log(d)[-4000:]
    wait_for(lambda: not Path(f"/proc/{victim}").exists()
             or b"zombie" in Path(f"/proc/{victim}/status").read_bytes().lower(), 30,
             "the woken runner to exit")


def test_no_runner_left_fails_the_job_instead_of_hanging(cluster, tmp_path):
    """Every runner silent (each stopped once it has its map) and no relaunch allowed: the
    driver stops the lingering processes and fails the job (before, the job waited forever for
    a runner to ask for work)."""
    d = tmp_path
    write_inputs(d, 3)
    (d / "mapper.py").write_text(SLOW6)
    (d / "reducer.py").write_text(REDUCER)
    proc = ham_popen(d, cluster, streaming_cmd(d, "out", "-D", "ham.heartbeat.timeout.ms=5000",
                                               "-D", "ham.runner.max.relaunches=0"))
    victims: list[int] = []
    try:
        victims = wait_for(lambda: v if len(v := with_a_task(d)) >= 3 else None, 240,
                           "three task runners with a map each")
        for pid in victims:
            os.kill(pid, signal.SIGSTOP)
        out, err = communicate(proc, d)
    finally:
        for pid in victims:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode != 0
    log = driver_log(d)
    assert "not replaced: BUDGET_EXHAUSTED" in log and "No task runner is left" in log, log[-4000:]
    assert read_status(d)["state"] == "FAILED"
    assert not (d / "out" / "_SUCCESS").exists()


def held_mapper(release: Path) -> str:
    """The streaming mapper, whose first attempt of map 0 waits for the file `release`: the
    other maps finish first, and the reduces (which start after every map) wait with it."""
    return MAPPER.replace("import sys\n", "import os, sys, time\n"
                          "if os.environ['mapreduce_task_attempt_id'].endswith('_m_000000_0'):\n"
                          f"    while not os.path.exists({str(release)!r}):\n"
                          "        time.sleep(0.2)\n", 1)


def test_damaged_map_output_reruns_the_map(cluster, tmp_path):
    d = tmp_path
    write_inputs(d, 3, words=2000)
    release = d / "release"
    (d / "mapper.py").write_text(held_mapper(release))
    (d / "reducer.py").write_text(REDUCER)
    # No speculation: held map 0 would get a speculative twin, which would end the map phase.
    proc = ham_popen(d, cluster, streaming_cmd(d, "out", "-D", "mapreduce.job.reduces=1",
                                               "-D", "mapreduce.map.speculative=false"))
    try:
        wait_for(lambda: status_file(d) and read_status(d)["maps"]["completed"] == 2, 300,
                 "maps 1 and 2")
        inter = next((d / "shared").glob("*/*/jobs/*/intermediate"))
        m1 = next(inter.glob("attempt_*_m_000001_0")) / "file.out"
        m2 = next(inter.glob("attempt_*_m_000002_0")) / "file.out"
        # m_000001: truncated (found by the check before the reduce starts);
        # m_000002: one byte flipped (found by the shuffle's checksum, then named by the runner).
        data = m1.read_bytes()
        m1.write_bytes(data[:len(data) // 2])
        data = bytearray(m2.read_bytes())
        data[len(data) // 2] ^= 0xFF
        m2.write_bytes(bytes(data))
        assert not [a for a in read_status(d)["attempts"] if a["type"] == "REDUCE"], \
            "the reduce started before the map output was damaged"
        release.touch()
        out, err = communicate(proc, d)
    finally:
        release.touch()
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err[-4000:]
    assert output_counts(d / "out") == expected_counts(d)
    status = read_status(d)
    by_task: dict[str, list[dict]] = {}
    for a in status["attempts"]:
        by_task.setdefault(a["task"], []).append(a)
    for m in ("m_000001", "m_000002"):
        attempts = next(v for k, v in by_task.items() if k.endswith(m))
        assert [a["state"] for a in attempts] == ["FAILED", "SUCCEEDED"], attempts
        assert "Map output unreadable" in attempts[0]["error"]
    assert "truncated" in next(v for k, v in by_task.items()
                               if k.endswith("m_000001"))[0]["error"]
    m0 = next(v for k, v in by_task.items() if k.endswith("m_000000"))
    assert [a["state"] for a in m0] == ["SUCCEEDED"]
    reduces = next(v for k, v in by_task.items() if k.endswith("r_000000"))
    assert [a["state"] for a in reduces] == ["KILLED", "KILLED", "SUCCEEDED"], reduces


TAGGER = """package hamtest.lib;
public class Tagger {
  public static String tag(String s) { return "tagged:" + s.trim(); }
}
"""
TAGJOB = """package hamtest.app;
import java.io.IOException;
import org.apache.hadoop.conf.Configured;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.*;
import org.apache.hadoop.mapreduce.*;
import org.apache.hadoop.mapreduce.lib.input.FileInputFormat;
import org.apache.hadoop.mapreduce.lib.output.FileOutputFormat;
import org.apache.hadoop.util.*;
public class TagJob extends Configured implements Tool {
  public static class M extends Mapper<LongWritable, Text, Text, NullWritable> {
    @Override
    protected void map(LongWritable k, Text v, Context c) throws IOException, InterruptedException {
      c.write(new Text(hamtest.lib.Tagger.tag(v.toString())), NullWritable.get());
    }
  }
  public int run(String[] args) throws Exception {
    Job job = Job.getInstance(getConf(), "tagjob");
    job.setJarByClass(TagJob.class);
    job.setMapperClass(M.class);
    job.setNumReduceTasks(0);
    job.setOutputKeyClass(Text.class);
    job.setOutputValueClass(NullWritable.class);
    FileInputFormat.addInputPath(job, new Path(args[0]));
    FileOutputFormat.setOutputPath(job, new Path(args[1]));
    return job.waitForCompletion(true) ? 0 : 1;
  }
  public static void main(String[] args) throws Exception {
    System.exit(ToolRunner.run(new TagJob(), args));
  }
}
"""


def build_jars(d: Path, tagger: str = TAGGER) -> tuple[Path, Path, Path]:
    """(tagger.jar, app.jar, fat.jar): the helper, the job without it, the job with it in lib/."""
    src = d / "src"
    (src / "hamtest" / "lib").mkdir(parents=True)
    (src / "hamtest" / "app").mkdir(parents=True)
    (src / "hamtest" / "lib" / "Tagger.java").write_text(tagger)
    (src / "hamtest" / "app" / "TagJob.java").write_text(TAGJOB)
    java_home = Path(os.environ.get("JAVA_HOME", "/usr"))
    javac = java_home / "bin" / "javac"
    jar = java_home / "bin" / "jar"
    javac, jar = (str(javac), str(jar)) if javac.exists() else ("javac", "jar")
    lib_classes, app_classes = d / "lib-classes", d / "app-classes"
    subprocess.run([javac, "-d", str(lib_classes), str(src / "hamtest/lib/Tagger.java")],
                   check=True)
    subprocess.run([javac, "-cp", f"{lib_classes}:{HADOOP_CP}", "-d", str(app_classes),
                    str(src / "hamtest/app/TagJob.java")], check=True)
    helper = d / "tagger.jar"
    app = d / "app.jar"
    subprocess.run([jar, "cf", str(helper), "-C", str(lib_classes), "."], check=True)
    subprocess.run([jar, "cf", str(app), "-C", str(app_classes), "."], check=True)
    # The fat jar: the application's classes plus lib/tagger.jar, as build plugins make them.
    fat_dir = d / "fat"
    (fat_dir / "lib").mkdir(parents=True)
    (fat_dir / "lib" / "tagger.jar").write_bytes(helper.read_bytes())
    fat = d / "fat.jar"
    subprocess.run([jar, "cf", str(fat), "-C", str(app_classes), ".", "-C", str(fat_dir), "lib"],
                   check=True)
    return helper, app, fat


def test_libjars_and_fat_jar_lib(cluster, tmp_path):
    d = tmp_path
    write_inputs(d, 3, words=20)
    helper, app, fat = build_jars(d)
    script = textwrap.dedent(f"""\
        set -e
        hadoop jar {app} hamtest.app.TagJob -libjars {helper} {d}/in {d}/out-libjars
        hadoop jar {fat} hamtest.app.TagJob {d}/in {d}/out-fat
        """)
    r = subprocess.run([sys.executable, "-m", "ham", "run", "-N", "3", "--", "bash", "-c", script],
                       cwd=d, env={**cluster, "HAM_SHARED_ROOT": str(d / "shared")},
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-4000:]
    expected = sorted("tagged:" + p.read_text().strip() for p in (d / "in").iterdir())
    for out in ("out-libjars", "out-fat"):
        lines = sorted(line for p in (d / out).glob("part-m-*")
                       for line in p.read_text().splitlines())
        assert lines == expected, out
        assert (d / out / "_SUCCESS").exists()


# The tagging job whose helper class fails to initialize in the first JVM that loads it (as
# Hadoop's FileSystem did once in CI, reading its configuration while the file system's server
# restarted): the class then stays uninitialized in that JVM (or class loader) for good. The
# helper is in the job's jars or on the runners' own class path.
FRAGILE = TAGGER.replace("public class Tagger {\n", """public class Tagger {
  static {
    try {
      if (new java.io.File("MARKER").createNewFile()) {
        throw new IllegalStateException("the first JVM to load this class");
      }
    } catch (java.io.IOException e) {
      throw new IllegalStateException(e);
    }
  }
""")

# The runners' class path as the session rendered it (mapred-site.xml), for a job to add to.
RUNNER_CP = ("$(python3 -c \"import os, xml.etree.ElementTree as E; print(next(p.findtext('value') "
             "for p in E.parse(os.environ['HADOOP_CONF_DIR'] + '/mapred-site.xml').getroot() "
             "if p.findtext('name') == 'ham.runner.classpath'))\")")


def fragile_jars(d: Path) -> tuple[Path, Path]:
    """(the fragile helper's jar, the job's jar without it)."""
    helper, app, _ = build_jars(d, FRAGILE.replace('"MARKER"', json.dumps(str(d / "marker"))))
    return helper, app


def run_init_once(d: Path, cluster: dict[str, str], job_args: str) -> dict:
    """The job on one node's one runner; returns its status record after checking its
    output."""
    write_inputs(d, 3, words=20)
    script = f"hadoop jar {d / 'app.jar'} hamtest.app.TagJob {job_args} {d / 'in'} {d / 'out'}"
    r = subprocess.run([sys.executable, "-m", "ham", "run", "-N", "1", "--retention", "all", "--",
                        "bash", "-c", script], cwd=d,
                       env={**cluster, "HAM_SHARED_ROOT": str(d / "shared")},
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-4000:]
    expected = sorted("tagged:" + p.read_text().strip() for p in (d / "in").iterdir())
    assert sorted(line for p in (d / "out").glob("part-m-*")
                  for line in p.read_text().splitlines()) == expected
    status = read_status(d)
    failed = [a for a in status["attempts"] if a["state"] == "FAILED"]
    assert len(failed) == 1, status["attempts"]
    assert "ExceptionInInitializerError" in failed[0]["error"], failed[0]
    assert any(a["task"] == failed[0]["task"] and a["state"] == "SUCCEEDED"
               for a in status["attempts"]), status["attempts"]
    assert not runner_pids(d)
    return status


def test_class_of_the_runners_own_failing_to_initialize_gets_it_a_fresh_jvm(cluster, tmp_path):
    """A task that leaves a class of the runner's own class path uninitialized (here added to it
    with ham.runner.classpath; in CI it was Hadoop's FileSystem): the runner exits after
    reporting the attempt's failure (FreshJvm), the driver replaces it (relaunch 1 of the
    default 3), and the retry runs in the fresh JVM. Before, the one runner of -N 1 failed the
    map's other attempts at once with "Could not initialize class", and the job failed (a YARN
    container per attempt never carries that over)."""
    d = tmp_path
    fragile, _ = fragile_jars(d)
    status = run_init_once(d, cluster, f"-D ham.runner.classpath={RUNNER_CP}:{fragile}")
    log = driver_log(d)
    assert re.search(r"lost \(it asked for a fresh JVM[^)]*\); started replacement runner g1-p0 "
                     r"on \S+ \(relaunch 1 of 3\)", log), log[-3000:]
    assert status["runner_launches"] == 2


def test_class_of_the_jobs_failing_to_initialize_is_loaded_anew(cluster, tmp_path):
    """The same class in the job's jars (-libjars): the runner drops the job's class loader
    after the failure, and the retry, in the same runner (no relaunch allowed), loads the class
    anew (before, the retry failed once more with "Could not initialize class" first)."""
    d = tmp_path
    fragile, _ = fragile_jars(d)
    status = run_init_once(d, cluster, f"-D ham.runner.max.relaunches=0 -libjars {fragile}")
    assert "fresh JVM" not in driver_log(d)
    assert status["runner_launches"] == 1


# Hangs on the first attempt of the first map only (streaming exports the conf with '_').
HANGING = MAPPER.replace("import sys\n", "import os, sys, time\n"
                         "if os.environ['mapreduce_task_attempt_id'].endswith('_m_000000_0'):\n"
                         "    time.sleep(100000)\n", 1)


# The reduce waits (60 s at most) until the driver has replaced the timed-out map's runner: the
# retry itself goes at once to a runner waiting for work, and the job would otherwise end before
# the exited runner is noticed (streaming exports ham.job.dir, the session, as ham_job_dir).
REDUCER_AFTER_REPLACEMENT = REDUCER.replace("import sys\n", "import os, sys, time\n"
                                            "log = os.path.join(os.environ['ham_job_dir'], 'driver.log')\n"
                                            "end = time.time() + 60\n"
                                            "while time.time() < end and 'started replacement runner' "
                                            "not in open(log).read():\n"
                                            "    time.sleep(0.2)\n", 1)


def test_hung_task_is_timed_out_and_retried(cluster, tmp_path):
    d = tmp_path
    write_inputs(d, 3)
    (d / "mapper.py").write_text(HANGING)
    (d / "reducer.py").write_text(REDUCER_AFTER_REPLACEMENT)
    # The timed-out task exits its runner JVM (taskFound=false -> exit 66, as YARN kills the
    # container): the driver caused that exit, so the runner is replaced even with no budget.
    proc = ham_popen(d, cluster, streaming_cmd(d, "out", "-D", "mapreduce.task.timeout=5000",
                                               "-D", "ham.runner.max.relaunches=0"))
    try:
        out, err = communicate(proc, d)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err[-4000:]
    assert output_counts(d / "out") == expected_counts(d)
    status = read_status(d)
    m0 = [a for a in status["attempts"] if a["task"].endswith("m_000000")]
    assert [a["state"] for a in m0] == ["FAILED", "SUCCEEDED"], m0
    assert "Timed out after 5 secs" in m0[0]["error"]
    log = driver_log(d)
    assert "started replacement runner g1-p0" in log and "not counted against" in log, log[-3000:]
    assert status["runner_launches"] == 2
    assert not runner_pids(d)


KILLER = """
package hamtest.app;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.JobStatus;
import org.apache.hadoop.mapreduce.SleepJob;

/** Submits a slow sleep job, kills it once its maps run, prints the final state. */
public class KillIt {
  public static void main(String[] args) throws Exception {
    SleepJob sleep = new SleepJob();
    sleep.setConf(new Configuration());
    Job job = sleep.createJob(6, 1, 60000, 1, 1, 1);
    job.submit();
    long deadline = System.currentTimeMillis() + 120000;
    while (job.getStatus().getState() != JobStatus.State.RUNNING || job.mapProgress() <= 0f) {
      if (System.currentTimeMillis() > deadline) throw new IllegalStateException("never ran");
      Thread.sleep(200);
    }
    job.killJob();
    job.waitForCompletion(false);
    System.out.println("STATE=" + job.getStatus().getState());
  }
}
"""


def test_kill_job_from_the_client(cluster, tmp_path):
    """Job.killJob() reaches HAM's driver: the job ends KILLED (its 60 s maps would otherwise
    have finished and the job SUCCEEDED), and its runners are gone."""
    d = tmp_path
    (d / "src").mkdir()
    (d / "src" / "KillIt.java").write_text(KILLER)
    (d / "shared").mkdir()
    classes = d / "classes"
    subprocess.run(["javac", "-cp", HADOOP_CP, "-d", str(classes), str(d / "src" / "KillIt.java")],
                   check=True)
    subprocess.run(["jar", "cf", str(d / "kill.jar"), "-C", str(classes), "."], check=True)
    proc = ham_popen(d, cluster, ["hadoop", "jar", str(d / "kill.jar"), "hamtest.app.KillIt"])
    out, err = communicate(proc, d, timeout=240)
    assert proc.returncode == 0, err[-4000:]
    assert "STATE=KILLED" in out
    status = read_status(d)
    assert status["state"] == "KILLED"
    assert not runner_pids(d)
    assert not list((d / "shared").glob("*/*/jobs/*/intermediate"))
