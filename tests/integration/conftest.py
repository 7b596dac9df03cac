from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import TypeVar

import pytest

from ham.slurm import JobInfo, Slurm, time_limit_seconds

T = TypeVar("T")

pytestmark = pytest.mark.integration


# Directories of this session's jobs outside the checkout and pytest's temporary directory
# (session_dir): leaked allocations working there are this session's too.
SESSION_DIRS: list[Path] = []
# What install_ham made, removed at the end of the session.
SOFTWARE_DIRS: list[Path] = []


def session_dir(prefix: str) -> Path:
    """A new directory on the cluster's shared root (where other users can be given access,
    unlike pytest's 0700 temporary directory), counted as this session's by
    no_leaked_allocation. Needs the cluster fixture (which names the shared root)."""
    path = Path(tempfile.mkdtemp(prefix=prefix, dir=os.environ["HAM_CLUSTER_SHARED"]))
    SESSION_DIRS.append(path)
    return path


def _slurm_jobs(*roots: Path) -> set[str]:
    """Ids of the cluster's jobs; with roots, only those whose working directory is under one
    of them (this checkout, this pytest session's temporary directory)."""
    r = subprocess.run(["squeue", "-h", "-o", "%i %Z"], capture_output=True, text=True)
    if r.returncode != 0:
        return set()
    jobs = (line.split(" ", 1) for line in r.stdout.splitlines() if " " in line)
    return {jid for jid, workdir in jobs
            if not roots or any(Path(workdir).is_relative_to(root) for root in roots)}


@pytest.fixture(autouse=True)
def no_leaked_allocation(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory):
    """A test that fails half-way may leave its allocation behind (an salloc SIGKILLed in its
    clean-up cannot release it, and the partition has no time limit): cancel what it started,
    so the tests after it are not queued behind it. What it started: jobs that appeared while
    it ran and work in this checkout, this session's temporary directory or a session_dir, so
    that another test session on the same cluster (another checkout) keeps its jobs."""
    if "cluster" not in request.fixturenames:
        yield
        return
    request.getfixturevalue("cluster")  # SLURM_CONF set before the first squeue
    roots = (Path(__file__).resolve().parents[2], tmp_path_factory.getbasetemp().resolve())
    before = _slurm_jobs()
    yield
    leaked = sorted(_slurm_jobs(*roots, *SESSION_DIRS) - before)
    if leaked:
        subprocess.run(["scancel", *leaked], check=False)
        for _ in range(60):
            if not _slurm_jobs() & set(leaked):
                break
            time.sleep(1)


def run_ham(*args: str, env: dict[str, str] | None = None, cwd: Path | None = None,
            timeout: float = 600) -> subprocess.CompletedProcess[str]:
    """Run the real `ham` CLI as a user would (a separate process)."""
    full = {**os.environ, **(env or {})}
    return subprocess.run([sys.executable, "-m", "ham", *args], capture_output=True, text=True,
                          env=full, cwd=cwd, timeout=timeout)


def install_ham(name: str) -> Path:
    """HAM installed as docs/admin.md says: `python3 -m venv PREFIX && PREFIX/bin/pip install
    CHECKOUT` (not editable: with <prefix>/share/ham/bin, what the modulefile puts on PATH), in
    a new world-readable PREFIX (.../name) removed at the end of the session. Returns PREFIX.
    PREFIX is software, as a site's /opt or software share, not job data: it is on this
    machine's disk, which the nodes see too, not on the cluster's shared root, where the venv's
    1,900 small files take 40 s to create through the file-system client (5 s here)."""
    base = Path(tempfile.mkdtemp(prefix="ham-test-prefix-", dir="/var/tmp"))
    base.chmod(0o755)
    SOFTWARE_DIRS.append(base)
    prefix = base / name
    subprocess.run(["/usr/bin/python3", "-m", "venv", str(prefix)], check=True, timeout=300)
    r = subprocess.run([str(prefix / "bin" / "pip"), "install", "-q", "--disable-pip-version-check",
                        str(Path(__file__).resolve().parents[2])], capture_output=True, text=True,
                       timeout=900)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-3000:]
    return prefix


@pytest.fixture(scope="session", autouse=True)
def remove_software_dirs():
    yield
    for path in SOFTWARE_DIRS:
        shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def shared_root(tmp_path: Path) -> Path:
    """A fresh shared root; the test cluster's nodes see this machine's file system."""
    root = tmp_path / "shared"
    root.mkdir()
    return root


def side_by_side(reference: list[str], ham: list[str], *, timeout: float,
                 reference_kw: dict, ham_kw: dict
                 ) -> tuple[subprocess.CompletedProcess[str], subprocess.CompletedProcess[str]]:
    """Runs the local runner's reference command and HAM's at once (both captured as text),
    since neither reads what the other writes: the reference runs on this host while HAM's
    jobs mostly wait on their allocation's nodes, which keeps the suite within its budget."""
    ref = subprocess.Popen(reference, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           **reference_kw)
    try:
        done = subprocess.run(ham, capture_output=True, text=True, timeout=timeout, **ham_kw)
        out, err = ref.communicate(timeout=timeout)
    finally:
        if ref.poll() is None:
            ref.kill()
            ref.communicate()
    return subprocess.CompletedProcess(reference, ref.returncode, out, err), done


@contextmanager
def in_background(fn: Callable[..., T], *args, **kwargs) -> Iterator[Future[T]]:
    """fn(*args, **kwargs) in a thread while the with-block runs; the block's end waits for it.
    For a module's local-runner references, made while its first test's HAM jobs run."""
    with ThreadPoolExecutor(1) as pool:
        yield pool.submit(fn, *args, **kwargs)


def wait_for(predicate, timeout: float, what: str):
    """Poll predicate until it returns something truthy and return that; fail naming what."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.2)


def finished(job_id: str) -> JobInfo | None:
    """The Slurm job once it has ended and its exit code is known (sacct lags ~1 s)."""
    info = Slurm().job(job_id)
    return info if info and info.finished and info.exit_code is not None else None


def wait_finished(job_id: str, timeout: float = 60) -> JobInfo:
    return wait_for(lambda: finished(job_id), timeout, f"Slurm job {job_id} to end")


def bring_time_limit_near(job_id: str, env: dict[str, str]) -> None:
    """Cut a running job's time limit to 1-2 minutes past now, so that Slurm's time-limit
    warning (`ham submit`'s --signal=B:USR1@60) comes within about 90 s, through Slurm's own
    time-limit check. A job submitted with a short limit instead (-t 1 or 2) may get the warning
    in its first seconds: Slurm sends it up to 60 s early."""
    used = subprocess.run(["squeue", "-h", "-j", job_id, "-o", "%M"], env=env, check=True,
                          capture_output=True, text=True).stdout.strip()
    # squeue's TIME ([days-][hours:]minutes:seconds) reads as a time limit does.
    minutes = (time_limit_seconds(used) or 0) // 60
    # Limits are whole minutes: 2 more leave 61-120 s, more than the 60 s warning needs.
    subprocess.run(["scontrol", "update", f"JobId={job_id}", f"TimeLimit={minutes + 2}"],
                   env=env, check=True)


# Hadoop 3.3.5 laid out as a site's installation would be, from Maven Central's jars with HAM's
# bin scripts (docker/install.sh builds it; a test session builds it if it is missing).
HADOOP_335 = Path(__file__).resolve().parents[2] / "mapreduce" / "hadoop-layout" / "target" / "hadoop-3.3.5"


@pytest.fixture(scope="session")
def hadoop_335() -> Path:
    if not (HADOOP_335 / "bin" / "hadoop").exists():
        subprocess.run(["mvn", "-q", "-B", "-f", str(HADOOP_335.parents[1] / "pom.xml"),
                        "-Dhadoop.version=3.3.5", "package"], check=True, timeout=1200)
    return HADOOP_335


def hadoop_settings(version: str, hadoop_335: Path | None) -> dict[str, str]:
    """HAM's environment for a Hadoop version: the bundled 3.4.2 client, or 3.3.5 as the site's."""
    if version == "3.4.2":
        return {"HAM_HADOOP": "bundled"}
    assert hadoop_335 is not None
    return {"HAM_HADOOP": "site", "HAM_HADOOP_HOME": str(hadoop_335)}
