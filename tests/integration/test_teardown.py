"""Teardown in every case (scancel, time limit, SIGKILL of `ham run`, Ctrl-C; success, failure
and SIGKILL of the client are in test_runtime_faults.py, with the same check, assert_settled):
afterwards no runner on any node, the output directory absent (never half-written) and the job's
status record KILLED. A job run with ham.resumable=false leaves no intermediate data; a
resumable one (the default) keeps what a resume needs, the finished maps' outputs among it,
until `ham cleanup --resumable` (tests/integration/test_resume.py resumes them). SIGKILL of
`ham run` and Ctrl-C are tested both ways, each once a map has finished.
Also `ham status --json` shows a running job's progress moving."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.integration.conftest import bring_time_limit_near, finished, wait_finished, wait_for
from tests.integration.test_runtime import JOBCLIENT_TESTS
from tests.integration.test_runtime_faults import (MAPPER, assert_settled,
                                                   running_script, setup_data, streaming_cmd)


def sleepy(seconds: int) -> str:
    return MAPPER.replace("import sys\n", f"import sys, time\ntime.sleep({seconds})\n", 1)


def ham(*args: str, d: Path, env: dict[str, str], **kw) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "ham", *args], cwd=d, capture_output=True,
                          text=True, env={**env, "HAM_SHARED_ROOT": str(d / "shared")}, timeout=300, **kw)


def assert_stopped_then_cleaned(d: Path, env: dict[str, str]) -> None:
    """A resumable job stopped (KILLED): nothing runs, no output directory, what a resume
    needs stays; `ham cleanup` keeps it, `ham cleanup --resumable` removes it."""
    assert_settled(d, "KILLED", resumable=True)
    jd = next((d / "shared").glob("*/*"))
    slurm_id = jd.name.split(".")[0]
    # A stopped allocation stays COMPLETING for a moment; cleanup leaves it alone till then.
    wait_finished(slurm_id, 120)
    kept = ham("cleanup", d=d, env=env)
    assert kept.returncode == 0 and "can be resumed" in kept.stdout and jd.exists(), kept.stdout
    assert ham("cleanup", "--resumable", d=d, env=env).returncode == 0
    assert not jd.exists()


NOT_RESUMABLE = ("-D", "ham.resumable=false")


def submit_streaming(d: Path, env: dict[str, str], *opts: str) -> str:
    r = ham("submit", "-N", "3", *opts, "--", *streaming_cmd(d, "out", *NOT_RESUMABLE), d=d,
            env=env)
    assert r.returncode == 0, r.stderr
    return r.stdout.strip()


def test_scancel_mid_job(cluster, tmp_path):
    d = setup_data(tmp_path, sleepy(30))
    (d / "shared").mkdir()
    job_id = submit_streaming(d, cluster)
    wait_for(lambda: running_script(d, "mapper.py"), 120, "a map running")
    time.sleep(2)
    assert ham("cancel", job_id, d=d, env=cluster).returncode == 0
    assert wait_finished(job_id).state == "CANCELLED"
    assert_settled(d, "KILLED")


def test_time_limit_mid_job(cluster, tmp_path):
    d = setup_data(tmp_path, sleepy(300))
    (d / "shared").mkdir()
    job_id = submit_streaming(d, cluster, "-t", "10")
    wait_for(lambda: running_script(d, "mapper.py"), 120, "a map running")
    bring_time_limit_near(job_id, cluster)
    info = wait_finished(job_id, 120)
    record = json.loads(next((d / "shared").glob("*/*/ham.json")).read_text())
    assert "SIGUSR1" in record["signals"], record
    assert info.exit_code != 0
    assert_settled(d, "KILLED")


# Map 0 holds for a minute, the others end at once: a job stopped while map 0 runs has map
# outputs, which a resumable job must keep and any other must not leave behind.
FIRST_MAP_HOLDS = MAPPER.replace(
    "import sys\n", "import os, sys, time\n"
    "if '_m_000000_' in os.environ['mapreduce_task_attempt_id']:\n"
    "    time.sleep(60)\n", 1)


def some_maps_done(d: Path) -> bool:
    """Map 0 running, and another map's success in the job's status record."""
    status = next((d / "shared").glob("*/*/jobs/*/status.json"), None)
    try:
        done = status and json.loads(status.read_text())["maps"]["completed"] >= 1
    except (OSError, ValueError):
        return False
    return bool(done and running_script(d, "mapper.py"))


def ham_run_cmd(d: Path, resumable: bool) -> list[str]:
    return [sys.executable, "-m", "ham", "run", "-N", "3", "--",
            *streaming_cmd(d, "out", *(() if resumable else NOT_RESUMABLE))]


def assert_stopped(d: Path, env: dict[str, str], resumable: bool) -> None:
    if resumable:
        assert_stopped_then_cleaned(d, env)
    else:
        assert_settled(d, "KILLED")


@pytest.mark.parametrize("resumable", [True, False], ids=["resumable", "not-resumable"])
def test_sigkill_of_ham_run(cluster, tmp_path, resumable):
    d = setup_data(tmp_path, FIRST_MAP_HOLDS)
    (d / "shared").mkdir()
    outer = subprocess.Popen(ham_run_cmd(d, resumable),
                             cwd=d, env={**cluster, "HAM_SHARED_ROOT": str(d / "shared")},
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_for(lambda: some_maps_done(d), 120, "a map done and map 0 running")
    # outer `ham run` exec'd salloc; its child is the `ham run` inside the allocation.
    inner = subprocess.run(["pgrep", "-P", str(outer.pid), "-f", "ham run"], capture_output=True,
                           text=True).stdout.split()
    assert len(inner) == 1, inner
    os.kill(int(inner[0]), signal.SIGKILL)
    outer.wait(timeout=120)
    # The reaper settles the job (resumable: its output held aside) and applies retention;
    # the job's teardown is over when it has exited (the record ends KILLED before it cleans).
    jd = next((d / "shared").glob("*/*"))
    wait_for(lambda: subprocess.run(["pgrep", "-f", f"ham.reaper {jd} "]).returncode == 1, 120,
             "the reaper to exit")
    assert_stopped(d, cluster, resumable)


def test_status_json_shows_progress_moving(cluster, tmp_path):
    d = tmp_path
    (d / "shared").mkdir()
    r = ham("submit", "-N", "3", "--", "hadoop", "jar", str(JOBCLIENT_TESTS), "sleep",
            "-m", "24", "-r", "1", "-mt", "1000", "-rt", "1", d=d, env=cluster)
    job_id = r.stdout.strip()
    seen: list[float] = []
    deadline = time.monotonic() + 180
    while not finished(job_id) and time.monotonic() < deadline:
        out = ham("status", "--json", job_id, d=d, env=cluster)
        assert out.returncode == 0, out.stderr
        for job in json.loads(out.stdout):
            for hj in job["hadoop_jobs"]:
                seen.append(hj["map_progress"])
        time.sleep(0.5)
    assert finished(job_id).exit_code == 0
    moving = sorted({p for p in seen if 0 < p < 1})
    assert len(moving) >= 2, f"progress did not move: {seen}"
    assert seen == sorted(seen)  # progress never goes back


@pytest.mark.parametrize("resumable", [True, False], ids=["resumable", "not-resumable"])
def test_ctrl_c_of_ham_run(cluster, tmp_path, resumable):
    """Ctrl-C at a terminal sends SIGINT to the whole foreground process group."""
    d = setup_data(tmp_path, FIRST_MAP_HOLDS)
    (d / "shared").mkdir()
    proc = subprocess.Popen(ham_run_cmd(d, resumable),
                            cwd=d, env={**cluster, "HAM_SHARED_ROOT": str(d / "shared")},
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    wait_for(lambda: some_maps_done(d), 120, "a map done and map 0 running")
    os.killpg(proc.pid, signal.SIGINT)
    assert proc.wait(timeout=120) != 0
    assert_stopped(d, cluster, resumable)
