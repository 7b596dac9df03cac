"""Resume on the real cluster. A streaming word count whose first run cannot finish (some of
its tasks hold while their attempt number is below 1000, that is, in the job's first run) is
stopped by its time limit, by scancel, or by every process of it being SIGKILLed as when the
driver's node is lost; resumed in a new allocation it gives the output of Hadoop's local
runner byte for byte, and runs only what had not finished (counted from the job history). A
resume with a changed input is refused in one line, before Slurm is asked; a damaged map output
of the stopped run makes its map run again."""

from __future__ import annotations

import getpass
import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.integration.conftest import bring_time_limit_near, wait_finished, wait_for
from tests.integration.test_runtime import MAPPER, REDUCER, same_tree
from tests.integration.test_runtime_faults import runner_pids, streaming_cmd
from tests.integration.test_runtime_recovery import write_inputs
from tests.integration.test_spank import spank_root
from tests.integration.test_yarn_semantics import local_run

MAPS = 12
HELD_FROM = 6  # maps 6..11 do not finish in the first run

# In the first run (attempts 0..999) the tasks named by the condition never finish.
HOLD = ("import os, sys, time\n"
        "_, _, _, kind, task, attempt = os.environ['mapreduce_task_attempt_id'].split('_')\n"
        "if {condition} and int(attempt) < 1000:\n"
        "    while True:\n"
        "        time.sleep(1)\n")


def holding(script: str, condition: str) -> str:
    return script.replace("import sys\n", HOLD.format(condition=condition), 1)


def ham(d: Path, env: dict[str, str], *args: str, root: Path | None = None,
        timeout: float = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "ham", *args], cwd=d, capture_output=True,
                          text=True, timeout=timeout,
                          env={**env, "HAM_SHARED_ROOT": str(root or d / "shared")})


def job_dir(root: Path, pattern: str = "*/*/jobs/job_*") -> Path:
    """The one Hadoop job's directory (jobs/<id>) under a shared root."""
    return wait_for(lambda: next(root.glob(pattern), None), 180, "the job directory")


def status(job: Path) -> dict:
    for _ in range(10):
        try:
            return json.loads((job / "status.json").read_text())
        except (OSError, ValueError):
            wait_for(lambda: (job / "status.json").exists(), 60, "status.json")
    raise AssertionError(f"no readable {job / 'status.json'}")


def completed_maps(job: Path) -> int:
    return status(job)["maps"]["completed"] if (job / "status.json").exists() else 0


def history(job: Path, run: int) -> dict:
    """Run `run`'s history as `mapred job -history all <file> -format json` prints it (with
    `all` it lists the tasks, each with its successful attempt)."""
    jhist = job / "history" / f"{job.name}_{run}.jhist"
    r = subprocess.run([sys.executable, "-m", "ham", "hadoop", "job", "-history", "all", str(jhist),
                        "-format", "json"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    return json.loads(r.stdout[r.stdout.index("{"):])


def attempts_run(hist: dict, kind: str, run: int) -> list[str]:
    """Successful attempts of `kind` (MAP, REDUCE) that ran in run `run` (its attempt
    numbers start at (run - 1) x 1000; a recovered task keeps its earlier attempt)."""
    out = []
    for task in hist["tasks"]:
        if task["type"] != kind:
            continue
        attempt = (task.get("attempts") or {}).get("attemptId", "")
        if attempt and int(attempt.rsplit("_", 1)[1]) // 1000 == run - 1:
            out.append(attempt)
    return out


def assert_stopped_resumable(d: Path, job: Path) -> None:
    """Stopped: no runner left, no output in the user's directory, the job resumable with its
    map outputs kept."""
    wait_for(lambda: not runner_pids(d), 60, "task runners to exit on every node")
    assert not (d / "out").exists(), "a stopped job's output is held aside, not left half-written"
    record = status(job)
    assert record["state"] == "KILLED" and record["resumable"], record
    assert (job / "resumable").exists()
    assert len(list(job.glob("intermediate/attempt_*_m_*/file.out"))) >= HELD_FROM


@pytest.fixture(scope="module")
def reference(cluster, tmp_path_factory) -> Path:
    """The uninterrupted job's output, from Hadoop's local runner (nothing holds there)."""
    d = tmp_path_factory.mktemp("resume-local")
    write_inputs(d, MAPS)
    (d / "mapper.py").write_text(MAPPER)
    (d / "reducer.py").write_text(REDUCER)
    local_run(d, cluster, streaming_cmd(d, "out", "-D", "mapreduce.job.reduces=2"))
    return d / "out"


def held_maps_job(tmp_path: Path) -> tuple[Path, list[str]]:
    d = tmp_path
    write_inputs(d, MAPS)
    (d / "mapper.py").write_text(holding(MAPPER, f"int(task) >= {HELD_FROM}"))
    (d / "reducer.py").write_text(REDUCER)
    # No speculation: a held map's twin would hold too, and hold a runner.
    return d, streaming_cmd(d, "out", "-D", "mapreduce.job.reduces=2",
                            "-D", "mapreduce.map.speculative=false")


def test_time_limit_stop_then_resume_runs_only_what_did_not_finish(cluster, tmp_path,
                                                                    reference):
    d, cmd = held_maps_job(tmp_path)
    r = ham(d, cluster, "submit", "-N", "3", "-t", "10", "--", *cmd)
    assert r.returncode == 0, r.stderr
    first = r.stdout.strip()
    job = job_dir(d / "shared")
    wait_for(lambda: completed_maps(job) == HELD_FROM, 120, "the maps that do not hold")
    # Slurm's warning (SIGUSR1, 60 s before the limit) stops the job where it is.
    bring_time_limit_near(first, cluster)
    info = wait_finished(first, 180)
    assert info.exit_code != 0
    record = json.loads(next((d / "shared").glob("*/*/ham.json")).read_text())
    assert "SIGUSR1" in record["signals"], record
    assert_stopped_resumable(d, job)
    # `ham cleanup` keeps a stopped job (and says how to resume it).
    r = ham(d, cluster, "cleanup")
    assert r.returncode == 0 and f"--resume {job.name}" in r.stdout, r.stdout + r.stderr
    assert (job / "resumable").exists()
    # A map output damaged while the job waited: its map runs again.
    damaged = next(job.glob("intermediate/attempt_*_m_000001_0/file.out"))
    damaged.write_bytes(damaged.read_bytes()[:100])

    r = ham(d, cluster, "submit", "--resume", first, "-N", "3", "--wait")
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    same_tree(reference, d / "out")
    done = status(job)
    assert done["state"] == "SUCCEEDED" and done["run"] == 2 and not done["resumable"], done
    hist = history(job, 2)
    maps_run = attempts_run(hist, "MAP", 2)
    assert sorted(a.split("_")[4] for a in maps_run) == \
        ["000001"] + [f"{i:06d}" for i in range(HELD_FROM, MAPS)], maps_run
    assert len(maps_run) < MAPS
    assert len(hist["tasks"]) == MAPS + 2 and all(t["status"] == "SUCCEEDED"
                                                  for t in hist["tasks"])
    assert not (job / "resumable").exists() and not (job / "intermediate").exists()
    # Both Slurm jobs find the job: `ham status` of the resume shows it.
    r = ham(d, cluster, "status", "--json", r.stdout.splitlines()[0])
    assert r.returncode == 0 and json.loads(r.stdout)[0]["hadoop_jobs"][0]["run"] == 2, r.stdout


def test_scancel_then_changed_input_is_refused_then_resume(cluster, tmp_path, reference):
    d, cmd = held_maps_job(tmp_path)
    r = ham(d, cluster, "submit", "-N", "3", "--", *cmd)
    assert r.returncode == 0, r.stderr
    first = r.stdout.strip()
    job = job_dir(d / "shared")
    wait_for(lambda: completed_maps(job) == HELD_FROM, 120, "the maps that do not hold")
    assert ham(d, cluster, "cancel", first).returncode == 0
    assert wait_finished(first, 120).state == "CANCELLED"
    assert_stopped_resumable(d, job)

    changed = d / "in" / "f3"
    before = changed.stat()
    original = changed.read_bytes()
    changed.write_bytes(original + b"w1 w2\n")
    r = ham(d, cluster, "submit", "--resume", first, "-N", "3")
    assert r.returncode == 2 and r.stdout == "", r.stdout + r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "input" in lines[0] and "f3 changed" in lines[0], lines
    assert "Traceback" not in r.stderr
    # Put back as it was: the resume goes ahead (interactively, in a new allocation).
    changed.write_bytes(original)
    os.utime(changed, ns=(before.st_atime_ns, before.st_mtime_ns))
    r = ham(d, cluster, "run", "-N", "3", "--resume", first)
    assert r.returncode == 0, r.stderr[-3000:]
    same_tree(reference, d / "out")
    maps_run = attempts_run(history(job, 2), "MAP", 2)
    assert len(maps_run) == MAPS - HELD_FROM, maps_run


def sbatch_ham_run(d: Path, cluster: dict[str, str], cmd: list[str],
                   *sbatch: str) -> tuple[str, Path]:
    """`ham run -- cmd` as a user's own 3-node sbatch script with the SPANK plugin's --ham
    (which makes the job directory), and more sbatch options: the Slurm job id and that
    directory."""
    r = subprocess.run(["sbatch", "--parsable", "--ham", "-N3", *sbatch, "-o", str(d / "job.out"),
                        "/dev/stdin", sys.executable, "-m", "ham", "run", "--", *cmd],
                       input="#!/bin/bash\nexec \"$@\"\n", capture_output=True, text=True,
                       cwd=d, check=True, env={**cluster, "HAM_SHARED_ROOT": str(spank_root())})
    job_id = r.stdout.strip()
    return job_id, spank_root() / getpass.getuser() / job_id


@pytest.mark.parametrize("algorithm", [None, "1"], ids=["committer-v2-default", "committer-v1"])
def test_driver_lost_after_a_reduce_committed_then_resume(cluster, tmp_path, reference,
                                                          algorithm):
    """Every process of the job SIGKILLed (as when the driver's node is lost) after reduce 0
    committed and while reduce 1 runs: the SPANK epilog keeps what a resume needs, and the
    resume recovers reduce 0 through the committer and runs only reduce 1: with the default
    algorithm 2 (reduce 0's file already in the output directory) and with algorithm 1 (from
    the first run's job attempt directory)."""
    d = tmp_path
    write_inputs(d, MAPS)
    (d / "mapper.py").write_text(MAPPER)
    (d / "reducer.py").write_text(holding(REDUCER, "int(task) == 1"))
    cmd = streaming_cmd(d, "out", "-D", "mapreduce.job.reduces=2",
                        "-D", "mapreduce.reduce.speculative=false",
                        *(("-D", f"mapreduce.fileoutputcommitter.algorithm.version={algorithm}")
                          if algorithm else ()))
    first, session = sbatch_ham_run(d, cluster, cmd)
    # Another directory of the same Slurm job id (as after a restarted controller), with no
    # resumable job: the epilog cleans it, and only the epilog would.
    decoy = session.with_name(f"{first}.1")
    (decoy / "staging").mkdir(parents=True)
    (decoy / "jobs" / "job_0_0001" / "intermediate").mkdir(parents=True)
    try:
        job = job_dir(session, "jobs/job_*")
        wait_for(lambda: [a for a in status(job)["attempts"] if a["type"] == "REDUCE"
                          and a["state"] == "SUCCEEDED"], 180, "reduce 0 to commit")
        subprocess.run(["scancel", "--full", "--signal=KILL", first], env=cluster, check=True)
        wait_finished(first, 120)
    finally:
        subprocess.run(["scancel", first], env=cluster, check=False)
    wait_for(lambda: not runner_pids(d), 60, "task runners to exit")
    # The epilog ran (it cleaned the decoy) and kept the job (its staging and its map outputs).
    assert not (decoy / "staging").exists() and not (decoy / "jobs" / "job_0_0001" /
                                                     "intermediate").exists()
    shutil.rmtree(decoy)
    assert (session / "staging").exists() and list(job.glob("intermediate/attempt_*_m_*"))

    r = ham(d, cluster, "submit", "--resume", first, "-N", "3", "--wait", root=spank_root())
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    same_tree(reference, d / "out")
    hist = history(job, 2)
    assert attempts_run(hist, "MAP", 2) == []
    assert [a.split("_")[4] for a in attempts_run(hist, "REDUCE", 2)] == ["000001"]
    # Once the job is over, its intermediate data goes with the usual retention.
    assert not (session / "staging").exists() and not (job / "intermediate").exists()
    assert ham(d, cluster, "cleanup", root=spank_root()).returncode == 0


def test_ctrl_c_then_ham_run_resume(cluster, tmp_path, reference):
    """`ham run` interrupted at the terminal (SIGINT to its process group) once the maps that do
    not hold finished: the job stops resumable; `ham run --resume` in a new allocation runs
    only the maps that had not finished and gives the local runner's output."""
    d, cmd = held_maps_job(tmp_path)
    proc = subprocess.Popen([sys.executable, "-m", "ham", "run", "-N", "3", "--", *cmd], cwd=d,
                            env={**cluster, "HAM_SHARED_ROOT": str(d / "shared")},
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    try:
        job = job_dir(d / "shared")
        wait_for(lambda: completed_maps(job) == HELD_FROM, 120, "the maps that do not hold")
        os.killpg(proc.pid, signal.SIGINT)
        assert proc.wait(timeout=120) != 0
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert_stopped_resumable(d, job)
    first = job.parents[1].name
    r = ham(d, cluster, "run", "-N", "3", "--resume", first)
    assert r.returncode == 0, r.stderr[-3000:]
    same_tree(reference, d / "out")
    maps_run = attempts_run(history(job, 2), "MAP", 2)
    assert sorted(a.split("_")[4] for a in maps_run) == \
        [f"{i:06d}" for i in range(HELD_FROM, MAPS)], maps_run
