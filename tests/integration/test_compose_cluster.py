"""The compose cluster (docker/compose.sh): Slurm 22.05 in containers (db, controller, node1-3)
built from the same templates as the native cluster. `up` starts a private dockerd when no
engine runs and makes the images (cached after the first run); the README's main job (wordcount
through `ham submit --wait -N 3`) runs inside as the unprivileged hamuser, and its output must be
identical to Hadoop's local runner on this machine; `down` stops everything `up` started.

The native test cluster is not used: this module needs only Docker (which `up` installs) and the
Maven build."""

from __future__ import annotations

import filecmp
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import MAPREDUCE_JARS, REPO

pytestmark = pytest.mark.integration

COMPOSE = REPO / "docker" / "compose.sh"
DOCKER_DIR = Path(os.environ.get("HAM_DOCKER_DIR", "/var/tmp/ham-docker"))
EXAMPLES = next(MAPREDUCE_JARS.glob("hadoop-mapreduce-examples-*.jar"), None)
WORK = "/shared/hamuser/main"  # on the cluster's shared volume


def compose(*args: str, stdin: bytes | None = None, timeout: float = 600) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", str(COMPOSE), "compose", *args], input=stdin,
                          capture_output=True, timeout=timeout)


def as_hamuser(script: str, stdin: bytes | None = None, timeout: float = 600) -> subprocess.CompletedProcess:
    """A shell script on the controller (the login node), as hamuser, in a login shell."""
    return compose("exec", "-T", "-u", "hamuser", "controller", "bash", "-lc", script,
                   stdin=stdin, timeout=timeout)


def text(r: subprocess.CompletedProcess) -> str:
    return (r.stdout + r.stderr).decode(errors="replace")


def private_dockerd() -> int | None:
    try:
        return int((DOCKER_DIR / "docker.pid").read_text())
    except (FileNotFoundError, ValueError):
        return None


@pytest.fixture(scope="module")
def compose_cluster():
    r = subprocess.run(["bash", str(COMPOSE), "up"], capture_output=True, text=True, timeout=3600)
    try:
        assert r.returncode == 0, r.stderr[-3000:] + text(compose("logs", "--tail", "30"))[-5000:]
        yield {"up": r, "dockerd": private_dockerd()}
    finally:
        subprocess.run(["bash", str(COMPOSE), "down"], capture_output=True, timeout=300)


@pytest.fixture(scope="module")
def main_job(compose_cluster, tmp_path_factory):
    """The README's main job (examples/main-job.sh) in the containers, and the same wordcount
    through Hadoop's local runner here (the bundled client with no HADOOP_CONF_DIR)."""
    base = tmp_path_factory.mktemp("compose")
    data = base / "in"
    data.mkdir()
    for f in [REPO / "README.md", *sorted((REPO / "launcher" / "ham").glob("*.py")),
              *sorted((REPO / "docker").glob("*.sh"))]:
        shutil.copy(f, data / f"{f.name}.txt")
    env = {k: v for k, v in os.environ.items() if k != "HADOOP_CONF_DIR"}
    r = subprocess.run([sys.executable, "-m", "ham", "hadoop", "jar", str(EXAMPLES), "wordcount",
                        "-D", "mapreduce.job.reduces=3", str(data), str(base / "local")],
                       env=env, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]

    tar = subprocess.run(["tar", "-C", str(data), "-c", "."], check=True, capture_output=True).stdout
    r = as_hamuser(f"mkdir -p {WORK}/in && tar -C {WORK}/in -x", stdin=tar)
    assert r.returncode == 0, text(r)
    examples = f"/opt/ham/share/ham/dist/share/hadoop/mapreduce/{EXAMPLES.name}"
    job = as_hamuser(f"cd {WORK} && ham submit --wait -N 3 -J ham-wordcount -- hadoop jar {examples} "
                     f"wordcount -D mapreduce.job.reduces=3 {WORK}/in {WORK}/out")
    r = as_hamuser(f"tar -C {WORK}/out -c .")
    assert r.returncode == 0, text(r)
    (base / "ham").mkdir()
    subprocess.run(["tar", "-C", str(base / "ham"), "-x"], input=r.stdout, check=True)
    return {"job": job, "local": base / "local", "ham": base / "ham",
            "job_id": job.stdout.decode().split("\n", 1)[0].strip()}


def test_main_job_succeeds_in_containers(main_job):
    job = main_job["job"]
    assert job.returncode == 0, text(job)[-5000:]
    assert main_job["job_id"].isdigit(), text(job)[:500]
    assert f"ham: job {main_job['job_id']} COMPLETED, exit code 0" in text(job)


def test_output_identical_to_local_runner(main_job):
    names = sorted(p.name for p in main_job["local"].glob("part-r-*"))
    assert names == ["part-r-00000", "part-r-00001", "part-r-00002"]
    assert names == sorted(p.name for p in main_job["ham"].glob("part-r-*"))
    for name in names:
        assert filecmp.cmp(main_job["local"] / name, main_job["ham"] / name, shallow=False), name
    assert (main_job["ham"] / "_SUCCESS").exists()


def test_job_ran_as_hamuser_on_all_three_nodes(main_job):
    job_id = main_job["job_id"]
    r = as_hamuser(f"sacct -j {job_id} -X -n -P -o User,State; stat -c %U {WORK}/out/part-r-00000; "
                   f"ls /shared/hamuser/{job_id}/jobs/*/logs/")
    assert r.returncode == 0, text(r)
    lines = r.stdout.decode().split()
    assert lines[0] == "hamuser|COMPLETED" and lines[1] == "hamuser"
    # Attempt logs are named <attempt>.<node>.<stream>: the tasks ran on every compute node.
    assert {name.split(".")[1] for name in lines[2:] if name.startswith("attempt_")} == \
        {"node1", "node2", "node3"}


def test_spank_plugin_makes_the_job_directory(compose_cluster):
    r = as_hamuser("srun --ham -N 3 sh -c 'echo $(hostname) $HAM_JOB_DIR $(stat -c %U:%a $HAM_JOB_DIR)'")
    assert r.returncode == 0, text(r)
    lines = sorted(r.stdout.decode().splitlines())
    assert [line.split()[0] for line in lines] == ["node1", "node2", "node3"]
    job_dirs = {tuple(line.split()[1:]) for line in lines}
    assert len(job_dirs) == 1, lines
    path, owner = job_dirs.pop()
    assert path.startswith("/shared/spank/hamuser/") and owner == "hamuser:700"


def test_down_stops_what_up_started(compose_cluster):
    dockerd = compose_cluster["dockerd"]
    r = subprocess.run(["bash", str(COMPOSE), "down"], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    if dockerd is not None:  # up started its own engine: it is gone, with its containerd
        assert not Path(f"/proc/{dockerd}").exists()
        left = [p for p in Path("/proc").glob("[0-9]*")
                if str(DOCKER_DIR).encode() in _cmdline(p)]
        assert not left, [_cmdline(p) for p in left]
    else:  # an engine that was already running stays, without the cluster's containers
        assert compose("ps", "-q").stdout.strip() == b""


def _cmdline(proc: Path) -> bytes:
    try:
        return proc.joinpath("cmdline").read_bytes()
    except OSError:
        return b""
