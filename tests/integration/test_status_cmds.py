"""`ham logs`, `ham status` (table and --watch off a terminal) and `ham cleanup` on real jobs."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
import sys

from tests.integration.conftest import run_ham, wait_for
from tests.integration.test_hadoop_and_doctor import write_corpus


def test_logs_status_cleanup(cluster, shared_root, tmp_path, hadoop_jars):
    write_corpus(tmp_path / "in")
    env = {**cluster, "HAM_SHARED_ROOT": str(shared_root)}
    r = run_ham("submit", "--wait", "-N", "3", "--", "hadoop", "jar", str(hadoop_jars["examples"]),
                "wordcount", str(tmp_path / "in"), str(tmp_path / "out"), env=env, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    job_id = r.stdout.splitlines()[0]

    listing = run_ham("logs", job_id, env=env)
    assert listing.returncode == 0
    names = [line.split()[-1] for line in listing.stdout.splitlines()]
    syslogs = [n for n in names if n.endswith(".syslog") and "_m_" in n]
    assert len(syslogs) == 3
    attempt = syslogs[0].rsplit("/", 1)[1].split(".")[0]
    one = run_ham("logs", job_id, "--attempt", attempt, env=env)
    assert one.returncode == 0 and "==> " in one.stdout and attempt in one.stdout
    missing = run_ham("logs", job_id, "--attempt", "attempt_nope", env=env)
    assert missing.returncode == 2 and "no logs of attempt" in missing.stderr

    table = run_ham("status", job_id, env=env)
    assert table.returncode == 0
    assert "COMPLETED" in table.stdout and "SUCCEEDED map 100% reduce 100%" in table.stdout
    # --watch off a terminal prints plain refreshed tables; stop it after a few seconds.
    watch = subprocess.Popen([sys.executable, "-m", "ham", "status", "--watch", job_id],
                             env={**os.environ, **env},
                             stdout=subprocess.PIPE, text=True)
    try:
        out, _ = watch.communicate(timeout=5)
    except subprocess.TimeoutExpired:
        watch.terminate()
        out, _ = watch.communicate()
    assert out.count("JOBID") >= 2 and "\x1b[" not in out

    tasks = run_ham("status", "--tasks", job_id, env=env)
    assert tasks.returncode == 0
    rows = [line for line in tasks.stdout.splitlines() if line.strip().startswith("attempt_")]
    assert len(rows) == 4 and {row.split()[2] for row in rows} <= {"node1", "node2", "node3"}
    png = run_ham("report", job_id, "-o", str(tmp_path / "t-{job}.png"), env=env)
    assert png.returncode == 0, png.stderr
    written = Path(png.stdout.strip())
    assert written.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and written.stat().st_size > 5000

    dry = run_ham("cleanup", "--dry-run", env=env)
    assert dry.returncode == 0 and f"would remove {shared_root}" in dry.stdout
    job_dirs = list(shared_root.glob("*/*"))
    assert job_dirs and all(d.exists() for d in job_dirs)
    done = run_ham("cleanup", env=env)
    assert done.returncode == 0 and "removing" in done.stdout
    assert not list(shared_root.glob("*/*"))


def test_cleanup_keeps_running_jobs(cluster, shared_root, tmp_path):
    env = {**cluster, "HAM_SHARED_ROOT": str(shared_root)}
    r = run_ham("submit", "-N", "1", "-o", str(tmp_path / "o"), "--", "sleep", "20", env=env, cwd=tmp_path)
    job_id = r.stdout.strip()
    wait_for(lambda: list(shared_root.glob(f"*/{job_id}")), 30, "the job directory")
    try:
        out = run_ham("cleanup", env=env)
        assert out.returncode == 0 and "removing" not in out.stdout
        assert "its Slurm job is still in the queue" in out.stdout, out.stdout
        assert list(shared_root.glob(f"*/{job_id}"))
    finally:
        run_ham("cancel", job_id, env=env)
