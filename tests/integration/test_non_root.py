"""A non-root user runs a job end to end, and cannot read another user's job directory."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.integration.conftest import run_ham, session_dir
from tests.integration.test_runtime import MAPPER, REDUCER, STREAMING
from tests.integration.test_runtime_faults import expected_counts, output_counts

USER = "hamuser"  # created by docker/cluster.sh up
HAM = Path(sys.executable).parent / "ham"  # the venv on the system Python (docker/install.sh)


def as_user(argv: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["runuser", "-u", USER, "--", "env", *[f"{k}={v}" for k, v in env.items()],
                           *argv], capture_output=True, text=True, cwd=cwd, timeout=600)


@pytest.fixture
def multiuser_root():
    # Not under pytest's tmp dir: that is private to root.
    base = session_dir("ham-multiuser-")
    base.chmod(0o755)
    root = base / "shared"
    root.mkdir()
    root.chmod(0o1777)  # a site's shared root: everyone creates their own <user>/ below it
    yield root
    shutil.rmtree(base)


# Each map waits until maps have started on three different nodes (a file per node in a shared
# directory): with one runner per node, every node must run one map, whichever asks first.
BARRIER_MAPPER = MAPPER.replace("import sys\n", """import os, socket, sys, time
barrier = sys.argv[1]
open(os.path.join(barrier, socket.gethostname()), "w").close()
deadline = time.time() + 120
while len(os.listdir(barrier)) < 3:
    if time.time() > deadline:
        sys.exit("the maps did not start on three nodes: " + str(os.listdir(barrier)))
    time.sleep(0.2)
""", 1)


def test_non_root_user_runs_a_job_on_every_node_and_directories_stay_private(
        cluster, multiuser_root):
    work = multiuser_root.parent / "work"
    (work / "in").mkdir(parents=True)
    for i in range(3):
        (work / "in" / f"f{i}").write_text(" ".join(f"w{(i * 5 + j) % 17}" for j in range(300)))
    (work / "barrier").mkdir()
    (work / "mapper.py").write_text(BARRIER_MAPPER)
    (work / "reducer.py").write_text(REDUCER)
    for p in [work, *work.rglob("*")]:
        shutil.chown(p, USER)
    env = {"SLURM_CONF": cluster["SLURM_CONF"], "HAM_SHARED_ROOT": str(multiuser_root),
           "PATH": f"{HAM.parent}:/usr/bin:/bin", "HOME": f"/home/{USER}"}
    r = as_user([str(HAM), "run", "-N", "3", "--retention", "all", "--", "hadoop", "jar",
                 str(STREAMING), "-D", "ham.runners.per.node=1", "-files", "mapper.py,reducer.py",
                 "-mapper", f"python3 mapper.py {work / 'barrier'}", "-reducer", "python3 reducer.py",
                 "-input", str(work / "in"), "-output", str(work / "out")], env, work)
    assert r.returncode == 0, r.stderr[-3000:]
    assert output_counts(work / "out") == expected_counts(work)
    user_dir = multiuser_root / USER
    job_dir = next(user_dir.iterdir())
    for d in (user_dir, job_dir):
        st = d.stat()
        assert st.st_mode & 0o777 == 0o700 and st.st_uid != 0
    # One map on each node, each in a runner that ran as the user.
    assert sorted(os.listdir(work / "barrier")) == ["node1", "node2", "node3"]
    logs = list(job_dir.glob("jobs/*/logs/attempt_*_m_*.syslog"))
    assert sorted(p.name.split(".")[1] for p in logs) == ["node1", "node2", "node3"]
    uid = job_dir.stat().st_uid
    assert all(p.stat().st_uid == uid for p in logs)
    assert all(p.stat().st_uid == uid for p in (work / "barrier").iterdir())

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
