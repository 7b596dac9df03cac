"""A non-root user runs a job end to end, and cannot read another user's job directory."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from tests.integration.conftest import run_ham
from tests.integration.test_hadoop_and_doctor import read_counts, write_corpus

USER = "hamuser"  # created by docker/cluster.sh up
HAM = Path(sys.executable).parent / "ham"  # the venv on the system Python (docker/install.sh)


def as_user(argv: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["runuser", "-u", USER, "--", "env", *[f"{k}={v}" for k, v in env.items()],
                           *argv], capture_output=True, text=True, cwd=cwd, timeout=600)


@pytest.fixture
def multiuser_root():
    # Not under pytest's tmp dir: that is private to root.
    base = Path(tempfile.mkdtemp(prefix="ham-multiuser-", dir="/var/tmp"))
    base.chmod(0o755)
    root = base / "shared"
    root.mkdir()
    root.chmod(0o1777)  # a site's shared root: everyone creates their own <user>/ below it
    yield root
    shutil.rmtree(base)


def test_non_root_user_runs_a_job_and_directories_stay_private(cluster, multiuser_root, hadoop_jars):
    work = multiuser_root.parent / "work"
    work.mkdir()
    expected = write_corpus(work / "in")
    shutil.chown(work, USER)
    for p in work.rglob("*"):
        shutil.chown(p, USER)
    env = {"SLURM_CONF": cluster["SLURM_CONF"], "HAM_SHARED_ROOT": str(multiuser_root),
           "PATH": f"{HAM.parent}:/usr/bin:/bin", "HOME": f"/home/{USER}"}
    r = as_user([str(HAM), "run", "-N", "3", "--retention", "all", "--", "hadoop", "jar",
                 str(hadoop_jars["examples"]), "wordcount", str(work / "in"), str(work / "out")],
                env, work)
    assert r.returncode == 0, r.stderr[-3000:]
    assert read_counts(work / "out") == expected
    user_dir = multiuser_root / USER
    job_dir = next(user_dir.iterdir())
    for d in (user_dir, job_dir):
        st = d.stat()
        assert st.st_mode & 0o777 == 0o700 and st.st_uid != 0
    # The tasks ran in runners on the cluster's nodes, as the user (which nodes got the 4 tasks
    # depends on which runner asked first).
    logs = list(job_dir.glob("jobs/*/logs/attempt_*.syslog"))
    assert logs and {p.name.split(".")[1] for p in logs} <= {"node1", "node2", "node3"}
    assert all(p.stat().st_uid == job_dir.stat().st_uid for p in logs)

    # root's job directory in the same shared root is out of the user's reach.
    r = run_ham("run", "-N", "1", "--retention", "all", "--", "true",
                env={**cluster, "HAM_SHARED_ROOT": str(multiuser_root)})
    assert r.returncode == 0, r.stderr
    root_job = next((multiuser_root / "root").iterdir())
    for probe in (["ls", str(multiuser_root / "root")], ["cat", str(root_job / "conf" / "mapred-site.xml")]):
        denied = as_user(probe, env, work)
        assert denied.returncode != 0 and "Permission denied" in denied.stderr


def test_unreadable_jar_and_unwritable_root_are_refused_before_slurm(cluster, multiuser_root, hadoop_jars):
    secret = multiuser_root.parent / "secret.jar"
    secret.write_bytes(b"PK\x05\x06" + b"\0" * 18)  # an empty zip, readable by root only
    secret.chmod(0o600)
    env = {"SLURM_CONF": cluster["SLURM_CONF"], "HAM_SHARED_ROOT": str(multiuser_root),
           "PATH": f"{HAM.parent}:/usr/bin:/bin", "HOME": f"/home/{USER}"}
    for command in ("submit", "run"):
        r = as_user([str(HAM), command, "-J", "unreadable-jar", "--", "hadoop", "jar", str(secret),
                     "wordcount", "in", "out"], env, multiuser_root.parent)
        assert r.returncode == 2, r.stderr
        assert r.stderr.strip().startswith(f"ham: error: jar file not readable: {secret} ("), r.stderr
    # A shared root the user cannot write (root's, 0755).
    root_only = multiuser_root.parent / "root-only"
    root_only.mkdir(mode=0o755)
    for command in ("submit", "run"):
        r = as_user([str(HAM), command, "-J", "unreadable-jar", "--", "hadoop", "jar",
                     str(hadoop_jars["examples"]), "pi", "1", "1"],
                    {**env, "HAM_SHARED_ROOT": str(root_only)}, multiuser_root.parent)
        assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1, r.stderr
        assert "not writable" in r.stderr, r.stderr
    jobs = subprocess.run(["sacct", "-n", "-X", "-P", "-o", "JobName", "--name", "unreadable-jar"],
                          capture_output=True, text=True, env=cluster).stdout
    assert "unreadable-jar" not in jobs
