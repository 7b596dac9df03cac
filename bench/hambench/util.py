"""Paths, subprocess helpers and small Slurm queries shared by every case."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator, Mapping, Sequence

BENCH = Path(__file__).resolve().parent.parent
REPO = BENCH.parent
# The suite's files (inputs, the build's snapshot, the jobs' directories, both systems'):
# bench/work, or HAM_BENCH_WORK. On the root disk's ext4 a job's thousands of file creates
# slowed down after another job deleted thousands (its inode allocator skips recently freed
# inodes: results/trials/runner-cuts), so a run's order moved the per-map figures; tmpfs
# (/dev/shm) has no such history.
WORK = Path(os.environ.get("HAM_BENCH_WORK") or BENCH / "work")
RESULTS = BENCH / "results"
DIST = REPO / "mapreduce" / "target" / "dist"
# The suite runs from a snapshot of the build (HAM_BUNDLE_DIR), so a rebuild of
# mapreduce/target/dist by someone else during a run cannot break or change it.
DIST_SNAPSHOT = WORK / "dist"
# The bundle is laid out as a Hadoop installation: the example and test jars are where
# share/hadoop/mapreduce has them.
MAPREDUCE_JARS = DIST_SNAPSHOT / "share" / "hadoop" / "mapreduce"
EXAMPLES_JAR = MAPREDUCE_JARS / "hadoop-mapreduce-examples-3.4.2.jar"
TESTS_JAR = MAPREDUCE_JARS / "hadoop-mapreduce-client-jobclient-3.4.2-tests.jar"
YARN_LIB = BENCH / "work" / "yarn-lib"  # where run.sh has Maven copy them, whatever WORK is
CLUSTER_ENV = Path(os.environ.get("HAM_CLUSTER_DIR", "/var/tmp/ham-cluster")) / "env.sh"


@dataclass
class Run:
    """One finished command: argv, exit code, wall time and captured output."""

    argv: list[str]
    rc: int
    t0: float
    t1: float
    out: str
    err: str
    extra: dict[str, object] = field(default_factory=dict)

    @property
    def wall(self) -> float:
        return self.t1 - self.t0


class BenchError(RuntimeError):
    pass


def log(msg: str) -> None:
    print(f"[bench {time.strftime('%H:%M:%S')}] {msg}", flush=True)


def cluster_env() -> dict[str, str]:
    """os.environ plus the exports of the test cluster's env.sh (SLURM_CONF, ...)."""
    env = dict(os.environ)
    if CLUSTER_ENV.is_file():
        for line in CLUSTER_ENV.read_text().splitlines():
            m = re.match(r"\s*export\s+(\w+)=(.*)$", line)
            if m:
                env[m.group(1)] = m.group(2).strip().strip('"')
    # Never inherit an allocation or a HAM job configuration from the caller.
    for key in list(env):
        if key.startswith("SLURM_") and key != "SLURM_CONF":
            del env[key]
    env.pop("HADOOP_CONF_DIR", None)
    env.pop("HAM_JOB_DIR", None)
    return env


def run(argv: Sequence[str], env: Mapping[str, str] | None = None, check: bool = True,
        timeout: float | None = None, cwd: Path | None = None, log_to: Path | None = None) -> Run:
    """Run argv (no shell), capture output, time it; raise BenchError on failure if check."""
    argv = [str(a) for a in argv]
    t0 = time.time()
    try:
        proc = subprocess.run(argv, env=dict(env) if env is not None else None, cwd=cwd,
                              capture_output=True, text=True, timeout=timeout)
        rc, out, err = proc.returncode, proc.stdout, proc.stderr
    except subprocess.TimeoutExpired as e:
        rc = -999
        out = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
        err = (e.stderr.decode() if isinstance(e.stderr, bytes) else (e.stderr or "")) + "\nTIMEOUT"
    t1 = time.time()
    r = Run(argv, rc, t0, t1, out, err)
    if log_to is not None:
        log_to.parent.mkdir(parents=True, exist_ok=True)
        with log_to.open("a") as f:
            f.write(f"$ {' '.join(argv)}\n# rc={rc} wall={r.wall:.3f}s\n{out}\n{err}\n")
    if check and rc != 0:
        tail = "\n".join((out + "\n" + err).strip().splitlines()[-25:])
        raise BenchError(f"command failed (rc={rc}): {' '.join(argv[:8])} ...\n{tail}")
    return r


def ensure_cluster(env: Mapping[str, str]) -> None:
    """Start the test cluster only if `scontrol ping` fails; never restart a running one."""
    r = run(["scontrol", "ping"], env=env, check=False, timeout=30)
    if r.rc == 0 and "UP" in r.out:
        return
    log("test cluster is down: docker/cluster.sh up")
    run(["bash", str(REPO / "docker" / "cluster.sh"), "up"], env=env, timeout=900)


def slurm_job_alive(job_id: str, env: Mapping[str, str]) -> bool:
    r = run(["squeue", "-h", "-j", job_id, "-o", "%T"], env=env, check=False, timeout=30)
    return r.rc == 0 and bool(r.out.strip())


def cmdlines() -> Iterator[tuple[int, str]]:
    """(pid, command line) of every process still there to be read, from /proc (no pgrep)."""
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            yield int(d.name), (d / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue


def runner_pids(marker: str) -> list[int]:
    """PIDs of task runner processes whose command line contains marker."""
    return [pid for pid, cmd in cmdlines() if marker in cmd and "TaskRunner" in cmd]


def node_addrs(env: Mapping[str, str]) -> dict[str, str]:
    """NodeName -> NodeAddr from scontrol."""
    r = run(["scontrol", "-o", "show", "node"], env=env, timeout=30)
    addrs: dict[str, str] = {}
    for line in r.out.splitlines():
        name = re.search(r"NodeName=(\S+)", line)
        addr = re.search(r"NodeAddr=(\S+)", line)
        if name and addr:
            addrs[name.group(1)] = addr.group(1)
    return addrs


def write_json(path: Path, data: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=1, sort_keys=True, default=str) + "\n")


def snapshot_dist() -> Path:
    """Copy the HAM jar + bundled Hadoop client to bench/work/dist (fresh each suite run)."""
    if not (DIST / "ham-mapreduce.jar").is_file():
        raise BenchError(f"{DIST} is not built: mvn -q -f mapreduce/pom.xml package -DskipTests")
    tmp = WORK / "dist.tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    shutil.copytree(DIST, tmp)
    shutil.rmtree(DIST_SNAPSHOT, ignore_errors=True)
    tmp.rename(DIST_SNAPSHOT)
    return DIST_SNAPSHOT
