"""Shared fixtures. Integration tests run against the real Slurm test cluster (docker/cluster.sh)
and the Maven build; tests/run.sh starts both, and the `cluster` fixture starts the cluster
when it is not up."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


def _cluster_env(env_file: Path) -> dict[str, str]:
    """What a cluster's env.sh exports (lines `export NAME=VALUE`, as cluster.sh writes them)."""
    lines = env_file.read_text().splitlines() if env_file.exists() else []
    return dict(line[len("export "):].split("=", 1) for line in lines
                if line.startswith("export ") and "=" in line)


def _join_worker_cluster() -> None:
    """tests/run.sh runs the suite in pytest-xdist workers, each on a test cluster of its own
    (HAM_TEST_CLUSTERS: their directories, the Nth for worker gwN): fault tests kill nodes, cut
    networks and restart the file-system server, and other tests count a cluster's jobs and
    runners, so two workers never share one. Before any test module reads the environment."""
    dirs = os.environ.get("HAM_TEST_CLUSTERS", "").split()
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    if not dirs or not worker.startswith("gw"):
        return
    env = _cluster_env(Path(dirs[int(worker[2:]) % len(dirs)]) / "env.sh")
    if not env:
        raise pytest.UsageError(f"HAM_TEST_CLUSTERS names {dirs}, but worker {worker}'s cluster "
                                "has no env.sh: start it with tests/cluster-up.sh")
    os.environ.update(env)


_join_worker_cluster()
CLUSTER_DIR = Path(os.environ.get("HAM_CLUSTER_DIR", "/var/tmp/ham-cluster"))
# Names of the test cluster's network (its env.sh; these defaults are the first cluster's, whose
# env.sh may predate them): node N's namespace, the fast network's bridge, the storage node.
NETNS_PREFIX = os.environ.get("HAM_CLUSTER_NETNS_PREFIX", "ham-node")
FAST_BRIDGE = os.environ.get("HAM_CLUSTER_FAST_BRIDGE", "hambr1")
STORAGE_ADDR = os.environ.get("HAM_CLUSTER_STORAGE_ADDR", "10.200.0.2")
DIST = REPO / "mapreduce" / "target" / "dist"
# The bundled client is laid out as a Hadoop installation (mapreduce/hadoop-layout).
SHARE = DIST / "share" / "hadoop"
MAPREDUCE_JARS = SHARE / "mapreduce"
TOOLS_JARS = SHARE / "tools" / "lib"
# What `hadoop classpath` lists of it, for javac and jdeps (wildcards, as Java takes them).
HADOOP_CP = ":".join(f"{SHARE / d}/*" for d in ("common/lib", "common", "hdfs", "mapreduce", "yarn"))


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    """A worker's temporary directories on its own cluster's shared root: tests/run.sh gives
    --basetemp on the first cluster's, and xdist a worker its subdirectory there."""
    given, shared = config.option.basetemp, os.environ.get("HAM_CLUSTER_SHARED")
    first = os.environ.get("HAM_TEST_CLUSTERS", "").split()[:1]
    if given and shared and first and Path(given).is_relative_to(Path(first[0]) / "shared"):
        mine = Path(shared) / Path(given).relative_to(Path(first[0]) / "shared")
        mine.parent.mkdir(parents=True, exist_ok=True)  # pytest makes the directory, not its parents
        config.option.basetemp = str(mine)


@pytest.fixture(scope="session")
def cluster() -> dict[str, str]:
    """The environment of the running test cluster (SLURM_CONF and friends)."""
    if int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1")) > 1 and "HAM_TEST_CLUSTERS" not in os.environ:
        pytest.exit("pytest -n: the integration tests need a test cluster per worker; run them "
                    "with tests/run.sh (HAM_TEST_WORKERS), which starts and names them", 2)
    env_file = CLUSTER_DIR / "env.sh"
    # A cluster started before env.sh named its port base and its nodes' node-local directory
    # is restarted.
    up = env_file.exists() and all(
        v in env_file.read_text() for v in ("HAM_CLUSTER_PORT_BASE", "HAM_RUNNER_LOCAL_DIR")
    ) and subprocess.run(
        ["bash", "-c", f". {env_file} && scontrol ping | grep -q UP"]).returncode == 0
    if not up:
        subprocess.run([str(REPO / "tests" / "cluster-up.sh")], check=True)
    env = {**os.environ, **_cluster_env(env_file)}
    os.environ["SLURM_CONF"] = env["SLURM_CONF"]
    # The shared root every node sees (a network file system unless HAM_TEST_FS=local).
    os.environ["HAM_CLUSTER_SHARED"] = env["HAM_CLUSTER_SHARED"]
    return env


@pytest.fixture
def hadoop_jars() -> dict[str, Path]:
    jars = {
        "examples": next(MAPREDUCE_JARS.glob("hadoop-mapreduce-examples-*.jar")),
        "streaming": next(TOOLS_JARS.glob("hadoop-streaming-*.jar")),
        "jobclient_tests": next(MAPREDUCE_JARS.glob("hadoop-mapreduce-client-jobclient-*-tests.jar")),
    }
    return jars
