"""Job control from another shell, as on YARN: `mapred job -list/-status/-counter/-events/
-kill-task/-fail-task/-kill` and `yarn application -list/-kill/-status` from a second process of
the same user reach the running job's driver over its authenticated IPC; another user finds
nothing and can do nothing."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.integration.conftest import session_dir, wait_for
from tests.integration.test_runtime import STREAMING
from tests.integration.test_runtime_faults import (MAPPER, REDUCER, assert_settled, runner_pids,
                                                   running_script)

USER = "hamuser"
SLOW = MAPPER.replace("import sys\n", "import sys, time\ntime.sleep(90)\n", 1)


@pytest.fixture
def base():
    # Under /var/tmp with a 1777 shared root, as a site has it: only HAM's own 0700 user and
    # job directories (and the 0600 control file) keep other users out.
    path = session_dir("ham-control-")
    path.chmod(0o755)
    (path / "shared").mkdir()
    (path / "shared").chmod(0o1777)
    yield path
    shutil.rmtree(path, ignore_errors=True)


def mapred(conf: Path, *args: str, user: str | None = None, env: dict[str, str]):
    """`mapred ARGS` in a second shell whose HADOOP_CONF_DIR is `conf`."""
    argv = [sys.executable, "-m", "ham", "hadoop", *args]
    if user:
        argv = ["runuser", "-u", user, "--", "env", f"HADOOP_CONF_DIR={conf}",
                f"PATH={Path(sys.executable).parent}:/usr/bin:/bin", *argv]
    return subprocess.run(argv, env={**env, "HADOOP_CONF_DIR": str(conf)}, capture_output=True,
                          text=True, timeout=120)


def start_slow_job(d: Path, cluster: dict[str, str], *ham_opts: str
                   ) -> tuple[dict[str, str], subprocess.Popen]:
    """A streaming job of three slow maps (90 s each) under `ham run -N 3 HAM_OPTS`, started
    in d; its environment and process."""
    (d / "in").mkdir()
    for i in range(3):
        (d / "in" / f"f{i}").write_text(" ".join(f"w{j % 7}" for j in range(200)) + "\n")
    (d / "mapper.py").write_text(SLOW)
    (d / "reducer.py").write_text(REDUCER)
    env = {**cluster, "HAM_SHARED_ROOT": str(d / "shared")}
    job = subprocess.Popen(
        [sys.executable, "-m", "ham", "run", "-N", "3", *ham_opts, "--", "hadoop", "jar",
         str(STREAMING), "-files", "mapper.py,reducer.py", "-mapper", "python3 mapper.py",
         "-reducer", "python3 reducer.py", "-input", str(d / "in"), "-output", str(d / "out")],
        cwd=d, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return env, job


def test_mapred_job_from_another_shell(cluster, base):
    d = base
    env, job = start_slow_job(d, cluster, "--retention", "all")
    try:
        wait_for(lambda: len(runner_pids(d)) >= 3, 120, "task runners")
        conf = next((d / "shared" / "root").glob("*/conf"))
        listed = wait_for(lambda: re.search(r"(job_\d+_\d+)\s.*RUNNING",
                                            mapred(conf, "job", "-list", env=env).stdout),
                          60, "the job in `mapred job -list`")
        job_id = listed.group(1)
        attempt = job_id.replace("job_", "attempt_")
        wait_for(lambda: f"{attempt}_m_000002_0" in mapred(
            conf, "job", "-list-attempt-ids", job_id, "MAP", "running", env=env).stdout,
            60, "three maps running")

        status = mapred(conf, "job", "-status", job_id, env=env)
        assert status.returncode == 0, status.stderr
        assert f"Job: {job_id}" in status.stdout and "Job state: RUNNING" in status.stdout
        assert f"ham status {conf.parent.name}" in status.stdout  # the "tracking URL"
        counter = mapred(conf, "job", "-counter", job_id, "org.apache.hadoop.mapreduce.JobCounter",
                         "TOTAL_LAUNCHED_MAPS", env=env)
        assert counter.stdout.strip().splitlines()[-1] == "3", counter.stdout + counter.stderr

        # Another user: the same configuration, but the job's directories are not theirs.
        other = base / "other-conf"
        shutil.copytree(conf, other)
        for p in [other, *other.iterdir()]:
            p.chmod(0o755 if p.is_dir() else 0o644)
        for args in (["-status", job_id], ["-kill", job_id]):
            r = mapred(other, "job", *args, user=USER, env=env)
            assert f"Could not find job {job_id}" in r.stdout + r.stderr, r.stdout + r.stderr
        control = next((d / "shared" / "root").glob(f"*/jobs/{job_id}/control"))
        r = subprocess.run(["runuser", "-u", USER, "--", "cat", str(control)],
                           capture_output=True, text=True)
        assert r.returncode != 0 and "Permission denied" in r.stderr

        # Kill one attempt, fail another: both run again; the job goes on.
        r = mapred(conf, "job", "-kill-task", f"{attempt}_m_000001_0", env=env)
        assert f"Killed task {attempt}_m_000001_0" in r.stdout, r.stdout + r.stderr
        r = mapred(conf, "job", "-fail-task", f"{attempt}_m_000002_0", env=env)
        assert f"Killed task {attempt}_m_000002_0 by failing it" in r.stdout, r.stdout + r.stderr
        events = wait_for(lambda: (lambda out: out if "FAILED" in out else None)(
            mapred(conf, "job", "-events", job_id, "0", "10", env=env).stdout), 30, "the events")
        assert f"KILLED {attempt}_m_000001_0" in events and f"FAILED {attempt}_m_000002_0" in events
        wait_for(lambda: {f"{attempt}_m_000001_1", f"{attempt}_m_000002_1"} <= set(mapred(
            conf, "job", "-list-attempt-ids", job_id, "MAP", "running", env=env).stdout.split()),
            60, "the two tasks running again")

        r = mapred(conf, "job", "-kill", job_id, env=env)
        assert f"Killed job {job_id}" in r.stdout, r.stdout + r.stderr
        out, err = job.communicate(timeout=120)
    finally:
        if job.poll() is None:
            job.kill()
    assert job.returncode != 0
    assert re.search(rf"ham: ERROR: {job_id} KILLED: Job killed by the user", err), err[-2000:]
    record = json.loads(next((d / "shared" / "root").glob(
        f"*/jobs/{job_id}/status.json")).read_text())
    assert record["state"] == "KILLED"
    states = {a["id"]: a["state"] for a in record["attempts"]}
    assert states[f"{attempt}_m_000001_0"] == "KILLED"
    assert states[f"{attempt}_m_000002_0"] == "FAILED"
    assert "RUNNING" not in states.values()
    assert not (d / "out").exists()
    wait_for(lambda: not runner_pids(d), 30, "the runners to exit")
    # The ended job is still answered, from its status record.
    r = mapred(conf, "job", "-status", job_id, env=env)
    assert "Job state: KILLED" in r.stdout, r.stdout + r.stderr


def test_yarn_application_kill_from_another_shell(cluster, base):
    """A script written for YARN kills a running job as it would kill its application: from a
    second shell with the job's configuration, `yarn application -kill application_X_N` (the
    application id read from `yarn application -list`). The job ends KILLED as if `mapred job
    -kill` had killed it, and `yarn application` shows it so afterwards."""
    d = base
    env, job = start_slow_job(d, cluster)
    try:
        wait_for(lambda: len(runner_pids(d)) >= 3, 120, "task runners")
        job_dir = next((d / "shared" / "root").glob("*/conf")).parent

        def yarn(*args: str) -> subprocess.CompletedProcess[str]:
            # The job's own `yarn` (on its PATH inside `ham run` and after `ham env`).
            return subprocess.run([str(job_dir / "bin" / "yarn"), "application", *args],
                                  env={**env, "HADOOP_CONF_DIR": str(job_dir / "conf")},
                                  capture_output=True, text=True, timeout=120)

        app = wait_for(lambda: re.search(r"(application_\d+_\d+)\s.*\sRUNNING\s",
                                         yarn("-list").stdout), 60, "the job as an application")
        app_id = app.group(1)
        wait_for(lambda: running_script(d, "mapper.py"), 60, "a map running")
        r = yarn("-kill", app_id)
        assert r.returncode == 0, r.stdout + r.stderr
        assert r.stdout.splitlines() == [f"Killing application {app_id}",
                                         f"Killed application {app_id}"], r.stdout + r.stderr
        _, err = job.communicate(timeout=120)
    finally:
        if job.poll() is None:
            job.kill()
    job_id = app_id.replace("application_", "job_")
    assert job.returncode != 0
    assert re.search(rf"ham: ERROR: {job_id} KILLED: Job killed by the user", err), err[-2000:]
    assert_settled(d, "KILLED")
    listed = yarn("-list", "-appStates", "KILLED")
    rows = [[c.strip() for c in line.split("\t")] for line in listed.stdout.splitlines()[2:]]
    assert listed.returncode == 0 and [(r[0], r[5], r[6]) for r in rows] == \
        [(app_id, "KILLED", "KILLED")], listed.stdout + listed.stderr
    status = yarn("-status", app_id)
    assert status.returncode == 0, status.stderr
    assert "\tState : KILLED" in status.stdout and "\tFinal-State : KILLED" in status.stdout
