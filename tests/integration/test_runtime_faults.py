"""Retries, failure, a runner SIGKILLed mid-map and mid-reduce, the client SIGKILLed: on the real
cluster."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

from ham import contract
from tests.integration.conftest import wait_for
from tests.integration.test_runtime import EXAMPLES, MAPPER, REDUCER, STREAMING

# Fails its first attempt (streaming exports the job conf with '.' as '_').
FLAKY = MAPPER.replace("import sys\n", "import os, sys\n"
                       "if os.environ['mapreduce_task_attempt_id'].endswith('_0'):\n"
                       "    sys.exit('first attempt fails on purpose')\n", 1)
BROKEN = "#!/usr/bin/env python3\nimport sys\nsys.exit('this mapper always fails')\n"
SLOW = MAPPER.replace("import sys\n", "import sys, time\ntime.sleep(12)\n", 1)

# Prepended to a streaming script: the task writes to its attempt's stderr which runner (its
# parent process) on which node ran it, so a test reads where a task really ran from the task
# itself, not from what the driver says.
WHERE = ("import os as _os, sys as _sys\n"
         "_sys.stderr.write(f'ran in runner {_os.getppid()} on {_os.environ[\"SLURMD_NODENAME\"]}\\n')\n")


def reporting(script: str) -> str:
    """script, which first says where it runs (WHERE)."""
    shebang, rest = script.split("\n", 1)
    return f"{shebang}\n{WHERE}{rest}"


def ran_in(d: Path, attempt: str) -> tuple[int, str]:
    """(runner pid, node) that ran attempt of the job under d, from the attempt's own stderr."""
    [log] = (d / "shared").glob(f"*/*/jobs/*/logs/{attempt}.*.stderr")
    m = re.search(r"^ran in runner (\d+) on (\S+)$", log.read_text(), re.M)
    assert m, f"{log} does not say where it ran: {log.read_text()[-500:]}"
    return int(m.group(1)), m.group(2)


def rerun_elsewhere(d: Path, lost_attempt: str, runner: int) -> dict:
    """The status record's one successful attempt of lost_attempt's task, once it is asserted
    to have run (its own stderr says so) in another runner than `runner`, the lost one."""
    status = json.loads(next((d / "shared").glob("*/*/jobs/*/status.json")).read_text())
    lost = next(a for a in status["attempts"] if a["id"] == lost_attempt)
    [rerun] = [a for a in status["attempts"] if a["task"] == lost["task"]
               and a["state"] == "SUCCEEDED"]
    pid, node = ran_in(d, rerun["id"])
    assert pid != runner and node == rerun["node"], (pid, node, runner, rerun)
    return rerun


def runner_step(pid: int) -> tuple[str, str]:
    """(node, Slurm step) of a task runner, from the environment srun gave it."""
    env = dict(e.split(b"=", 1) for e in Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
               if b"=" in e)
    return env[b"SLURMD_NODENAME"].decode(), env[b"SLURM_STEP_ID"].decode()


def replacement_on(d: Path, lost: tuple[str, str], timeout: float = 60) -> int:
    """A task runner of the job under d running on the lost runner's node in a later Slurm step
    than the lost one (runner_step of it, read before it was lost): the replacement's pid."""
    node, step = lost

    def new_runner() -> int | None:
        for pid in runner_pids(d):
            try:
                if runner_step(pid)[0] == node and int(runner_step(pid)[1]) > int(step):
                    return pid
            except (OSError, KeyError):  # it just ended
                continue
        return None
    return wait_for(new_runner, timeout, f"a replacement runner on {node}")


def setup_data(tmp_path: Path, mapper: str) -> Path:
    (tmp_path / "in").mkdir()
    for i in range(3):
        (tmp_path / "in" / f"f{i}").write_text(" ".join(f"w{j % 11}" for j in range(500 + i)) + "\n")
    (tmp_path / "mapper.py").write_text(mapper)
    (tmp_path / "reducer.py").write_text(REDUCER)
    return tmp_path


def streaming_cmd(d: Path, out: str, *extra: str) -> list[str]:
    return ["hadoop", "jar", str(STREAMING), *extra, "-files", "mapper.py,reducer.py",
            "-mapper", "python3 mapper.py", "-reducer", "python3 reducer.py",
            "-input", str(d / "in"), "-output", str(d / out)]


def expected_counts(d: Path) -> dict[str, int]:
    counts: dict[str, int] = {}
    for f in (d / "in").iterdir():
        for w in f.read_text().split():
            counts[w] = counts.get(w, 0) + 1
    return counts


def output_counts(out: Path) -> dict[str, int]:
    counts = {}
    for part in sorted(out.glob("part-*")):
        for line in part.read_text().splitlines():
            w, n = line.split("\t")
            counts[w] = int(n)
    return counts


def ham_run(d: Path, env: dict[str, str], cmd: list[str], timeout: float = 600):
    return subprocess.run([sys.executable, "-m", "ham", "run", "-N", "3", "--", *cmd], cwd=d,
                          env={**env, "HAM_SHARED_ROOT": str(d / "shared")}, capture_output=True,
                          text=True, timeout=timeout)


def ham_popen(d: Path, env: dict[str, str], cmd: list[str]) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "ham", "run", "-N", "3", "--retention", "all", "--", *cmd],
        cwd=d, env={**env, "HAM_SHARED_ROOT": str(d / "shared")}, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True)


def runner_pids(scope: Path) -> list[int]:
    """Task runner JVMs, on every node (the nodes share this machine's process table), of jobs
    whose shared root is under scope (their classpath starts with the job's conf dir)."""
    out = subprocess.run(["pgrep", "-f", "io.github.ham.mapreduce.runner.TaskRunner"], capture_output=True,
                         text=True).stdout.split()
    pids = []
    for pid in map(int, out):
        try:
            argv0 = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[0]
        except OSError:
            continue
        cmd = Path(f"/proc/{pid}/cmdline").read_bytes() if Path(f"/proc/{pid}").exists() else b""
        if argv0.endswith(b"java") and str(scope).encode() in cmd:  # not the srun that launched them
            pids.append(pid)
    return pids


def assert_settled(d: Path, state: str, *, resumable: bool = False) -> dict:
    """The teardown row of docs/guarantees.md for the one Hadoop job of the session under d/shared, once it ended
    in `state`: no runner left on any node; the output directory d/out complete with _SUCCESS
    (SUCCEEDED) or absent, never left with _temporary; the job's status record in that terminal
    state, with its finish time; no intermediate data left, unless the job stopped `resumable`:
    then it keeps what a resume needs (the session's staging, the job's resumable marker, and
    the map output of every map the record says succeeded).
    Returns the status record."""
    assert state in contract.TERMINAL_STATES
    wait_for(lambda: not runner_pids(d), 30, "task runners to exit on every node")
    [jd] = (d / "shared").glob("*/*")
    [status] = jd.glob(f"{contract.JOBS}/*/{contract.STATUS}")
    # The client's shutdown hook, or `ham run` once the client is gone, writes the final state.
    record = wait_for(lambda: (r := json.loads(status.read_text()))["state"] in
                      contract.TERMINAL_STATES and r, 60, "the status record to end")
    assert record["state"] == state and record["finish_time"], record
    out = d / "out"
    if state == "SUCCEEDED":
        assert (out / "_SUCCESS").exists() and list(out.glob("part-*")), list(out.iterdir())
        assert not (out / "_temporary").exists()
    else:
        assert not out.exists(), f"output directory of an unsuccessful job: {list(out.rglob('*'))}"
    job = status.parent
    left = [jd / n for n in contract.SESSION_INTERMEDIATE if (jd / n).exists()]
    left += [job / n for n in (*contract.JOB_INTERMEDIATE, contract.HELD_OUTPUT,
                               contract.RESUMABLE) if (job / n).exists()]
    if resumable and state != "SUCCEEDED":
        assert record["resumable"], record
        needed = [jd / contract.STAGING, job / contract.RESUMABLE]
        assert set(needed) <= set(left), f"a resume needs {needed}; kept {left}"
        map_outputs = [job / contract.INTERMEDIATE_DIR / a["id"] / "file.out"
                       for a in record["attempts"] if a["type"] == "MAP" and a["state"] == "SUCCEEDED"]
        missing = [p for p in map_outputs if not p.is_file()]
        assert not missing, f"a resume needs the finished maps' outputs; missing {missing}"
    else:
        assert not left, f"intermediate data left: {left}"
    return record


def test_task_failing_once_is_retried(cluster, tmp_path):
    d = setup_data(tmp_path, FLAKY)
    (d / "shared").mkdir()
    r = ham_run(d, cluster, streaming_cmd(d, "out"))
    assert r.returncode == 0, r.stderr[-3000:]
    # Streaming's client prints counters, not task events: 3 maps failed once, 6 launched.
    assert "Failed map tasks=3" in r.stderr and "Launched map tasks=6" in r.stderr
    assert output_counts(d / "out") == expected_counts(d)
    status = assert_settled(d, "SUCCEEDED")
    failed = [a for a in status["attempts"] if a["state"] == "FAILED"]
    assert len(failed) == 3 and all(a["id"].endswith("_0") and a["error"] for a in failed)
    logs = (d / "shared").glob("*/*/jobs/*/logs/attempt_*_m_*_0.*.stderr")
    assert all("first attempt fails on purpose" in p.read_text() for p in logs)


def test_task_always_failing_fails_job_cleanly(cluster, tmp_path):
    d = setup_data(tmp_path, BROKEN)
    (d / "shared").mkdir()
    r = ham_run(d, cluster, streaming_cmd(d, "out", "-D", "mapreduce.map.maxattempts=2"))
    assert r.returncode != 0
    # The job's error and the mapper's own message (its stderr's last line) end ham's output
    # (salloc's own goodbye comes after it).
    tail = [line for line in r.stderr.splitlines() if not line.startswith("salloc:")][-2:]
    assert re.match(r"ham: ERROR: job_\S+ FAILED: Task task_\S+_m_\d+ failed 2 times; last error: ",
                    tail[0]), tail
    assert tail[1].endswith("the failed attempt's stderr ends: this mapper always fails"), tail
    assert_settled(d, "FAILED")


def test_runner_sigkilled_mid_task_is_rerun(cluster, tmp_path):
    """The victim is a runner busy with a map (the parent of a running mapper.py): that attempt
    ends KILLED, as YARN ends an attempt lost with its container, and does not use up the
    task's attempts (one here): the task runs again in another runner (its own stderr says
    which) and succeeds, and a new runner starts on the victim's node (a later srun step)."""
    d = setup_data(tmp_path, reporting(SLOW))
    (d / "shared").mkdir()
    proc = ham_popen(d, cluster, streaming_cmd(d, "out", "-D", "ham.heartbeat.timeout.ms=15000",
                                               "-D", "mapreduce.map.maxattempts=1"))
    try:
        victim, attempt = wait_for(lambda: running_script(d, "mapper.py"), 120, "a map running")
        where = runner_step(victim)
        os.kill(victim, signal.SIGKILL)
        replacement_on(d, where)
        out, err = proc.communicate(timeout=600)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err[-3000:]
    assert output_counts(d / "out") == expected_counts(d)
    status = json.loads(next((d / "shared").glob("*/*/jobs/*/status.json")).read_text())
    lost = next(a for a in status["attempts"] if a["id"] == attempt)
    assert lost["state"] == "KILLED" and "lost: its process exited (Killed)" in lost["error"], lost
    rerun = [a for a in status["attempts"] if a["task"] == lost["task"] and a["id"] != attempt]
    assert [a["state"] for a in rerun] == ["SUCCEEDED"], rerun
    rerun_elsewhere(d, attempt, victim)


def test_client_sigkilled_leaves_no_runner_no_partial_output_and_a_terminal_record(cluster,
                                                                                  tmp_path):
    """The `hadoop jar` client (the driver) SIGKILLed mid-map: its shutdown hook cannot run.
    The runners exit on their own, and `ham run` settles the job: the output directory the job
    created is removed (not left with _temporary), the status record ends KILLED, and no
    intermediate data is left (ham.resumable=false: a job that may be resumed, the default,
    holds its output aside and keeps its map outputs instead: test_resume.py)."""
    d = setup_data(tmp_path, SLOW)
    (d / "shared").mkdir()
    cmd = streaming_cmd(d, "out", "-D", "ham.resumable=false")
    proc = subprocess.Popen(
        [sys.executable, "-m", "ham", "run", "-N", "3", "--", *cmd],
        cwd=d, env={**cluster, "HAM_SHARED_ROOT": str(d / "shared")},
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wait_for(lambda: runner_pids(d), 60, "task runners")
    wait_for(lambda: (d / "out" / "_temporary").exists(), 60, "the job to set up its output")
    client = subprocess.run(["pgrep", "-f", f"org.apache.hadoop.util.(Ham)?RunJar .*{d}"],
                            capture_output=True, text=True).stdout.split()
    assert client
    for pid in client:
        os.kill(int(pid), signal.SIGKILL)
    _, err = proc.communicate(timeout=120)
    # ham run's exit status is the command's: the client's death by SIGKILL, as a shell says it.
    assert proc.returncode == 128 + signal.SIGKILL, (proc.returncode, err[-2000:])
    status = assert_settled(d, "KILLED")
    assert "killed by SIGKILL" in status["errors"][0], status["errors"]
    assert "removed its incomplete output directory" in status["errors"][0]
    # ham run's last line (before salloc's goodbye) names the job and why it ended.
    last = [line for line in err.splitlines() if not line.startswith("salloc:")][-1]
    assert re.search(r"ham: ERROR: job_\S+ KILLED: the command ended \(", last), err[-2000:]


# The first attempt of each reduce sits in the reducer for 20 s, after the shuffle.
SLOW_FIRST_REDUCE = REDUCER.replace("import sys\n", "import os, sys, time\n"
                                    "if os.environ['mapreduce_task_attempt_id'].endswith('_0'):\n"
                                    "    time.sleep(20)\n", 1)


def test_runners_started_early_stop_when_the_job_is_never_submitted(cluster, tmp_path):
    """The driver starts a job's runners when its client asks for the job's id, before the
    client stages the job; a job that fails while it is staged (its input does not exist, which
    Hadoop finds then; HAM's own check before Slurm does not read a command inside `bash -c`)
    leaves none: the client ends with Hadoop's error and stops them as it goes."""
    d = tmp_path
    (d / "shared").mkdir()
    r = ham_run(d, cluster, ["bash", "-c", f"hadoop jar {EXAMPLES} wordcount {d}/missing {d}/out"])
    assert r.returncode != 0
    assert f"Input path does not exist: file:{d}/missing" in r.stderr, r.stderr[-2000:]
    wait_for(lambda: not runner_pids(d), 30, "task runners to exit on every node")
    [jd] = (d / "shared").glob("*/*")
    driver_log = (jd / "driver.log").read_text()
    assert "runner(s) per node (generation 0)" in driver_log, driver_log[-2000:]
    assert re.search(r"Stopping the runners started for job_\S+ before it was submitted: the "
                     r"client is ending", driver_log), driver_log[-2000:]
    assert not (d / "out").exists()


def running_script(scope: Path, script: str) -> tuple[int, str] | None:
    """(runner JVM, attempt id) of a task of the job under scope that is running `script` (a
    streaming mapper.py or reducer.py): the script's parent is the runner."""
    out = subprocess.run(["pgrep", "-f", f"python3 {script}"], capture_output=True, text=True).stdout
    for pid in map(int, out.split()):
        try:
            environ = Path(f"/proc/{pid}/environ").read_bytes()
            if str(scope).encode() not in environ:
                continue
            ppid = int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
            if b"io.github.ham.mapreduce.runner.TaskRunner" in Path(f"/proc/{ppid}/cmdline").read_bytes():
                attempt = next(e.split(b"=", 1)[1].decode() for e in environ.split(b"\0")
                               if e.startswith(b"mapreduce_task_attempt_id="))
                return ppid, attempt
        except (OSError, ValueError, StopIteration):
            continue
    return None


def test_runner_sigkilled_mid_reduce_is_rerun(cluster, tmp_path):
    d = setup_data(tmp_path, MAPPER)
    (d / "reducer.py").write_text(reporting(SLOW_FIRST_REDUCE))
    (d / "shared").mkdir()
    # No speculation: the other reduce's slow first attempt would get a speculative twin.
    proc = ham_popen(d, cluster, streaming_cmd(d, "out", "-D", "mapreduce.job.reduces=2",
                                               "-D", "mapreduce.reduce.speculative=false"))
    try:
        victim, attempt = wait_for(lambda: running_script(d, "reducer.py"), 120, "a reduce running")
        where = runner_step(victim)
        os.kill(victim, signal.SIGKILL)
        replacement_on(d, where)
        out, err = proc.communicate(timeout=600)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err[-3000:]
    assert output_counts(d / "out") == expected_counts(d)
    # Exactly the committed files (and their .crc): nothing of the killed attempt.
    assert sorted(p.name for p in (d / "out").iterdir() if not p.name.endswith(".crc")) == \
        ["_SUCCESS", "part-00000", "part-00001"]
    status = json.loads(next((d / "shared").glob("*/*/jobs/*/status.json")).read_text())
    reduces = [a for a in status["attempts"] if a["type"] == "REDUCE"]
    lost = [a for a in reduces if a["state"] == "KILLED"]
    assert len(lost) == 1, reduces
    assert lost[0]["id"] == attempt, (lost, attempt)
    rerun_elsewhere(d, attempt, victim)
    assert not runner_pids(d)
