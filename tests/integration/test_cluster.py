"""The test cluster is a real multi-node Slurm: distinct hosts, real exit codes, accounting."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from ham.slurm import Slurm
from tests.conftest import MAPREDUCE_JARS
from tests.integration.conftest import wait_finished


def test_srun_three_distinct_hosts(cluster):
    out = subprocess.run(["srun", "-N3", "hostname"], capture_output=True, text=True, check=True,
                         env=cluster, timeout=60).stdout.split()
    assert sorted(out) == ["node1", "node2", "node3"]
    lines = subprocess.run(["srun", "-N3", "hostname", "-I"], capture_output=True, text=True,
                           check=True, env=cluster, timeout=60).stdout.splitlines()
    # One line per node: its own address on the cluster network, and on the second network
    # (docker/cluster.sh) its own address there too.
    addrs = [line.split() for line in lines]
    assert len(addrs) == 3 and len({a for node in addrs for a in node}) == sum(map(len, addrs))
    if "HAM_CLUSTER_FAST_NET" in cluster:
        assert all(len(node) == 2 for node in addrs), addrs


def test_batch_exit_code_read_back(cluster):
    job_id = Slurm().submit("#!/bin/bash\n#SBATCH -N1 -o /dev/null\nexit 3\n")
    info = wait_finished(job_id)
    assert info.state == "FAILED" and info.exit_code == 3


def test_node_addresses(cluster):
    addrs = Slurm().node_addresses("node[1-3]")
    assert list(addrs) == ["node1", "node2", "node3"]
    assert len(set(addrs.values())) == 3


CLUSTER_SH = Path(__file__).resolve().parents[2] / "docker" / "cluster.sh"


@pytest.fixture
def local_state():
    """A second cluster's state directory (munge key, MariaDB's data) on this machine's own
    disk, where a real cluster keeps its daemons' state: not under pytest's directory, which
    is on the network file system."""
    path = Path(tempfile.mkdtemp(prefix="ham-cluster2-", dir="/var/tmp"))
    yield path
    shutil.rmtree(path, ignore_errors=True)


def test_fallback_cluster_without_namespaces_and_down(cluster, local_state):
    """A second cluster (own directory and ports) in fallback mode: several slurmd on the host.
    `down` stops exactly what it started; the main test cluster keeps running."""
    state = local_state / "c2"
    env = {**os.environ, "HAM_CLUSTER_DIR": str(state), "HAM_CLUSTER_PORT_BASE": "18800"}
    env.pop("SLURM_CONF", None)
    try:
        # Inside the try: `down` after an `up` that failed half-way finds nothing left to stop.
        up = subprocess.run([str(CLUSTER_SH), "up", "-n", "2", "--no-netns"], env=env,
                            capture_output=True, text=True, timeout=120)
        assert up.returncode == 0, up.stderr[-2000:]
        conf = {**os.environ, "SLURM_CONF": str(state / "etc" / "slurm.conf")}
        out = subprocess.run(["srun", "-N2", "sh", "-c", "echo $SLURMD_NODENAME"], env=conf,
                             capture_output=True, text=True, check=True, timeout=60).stdout.split()
        assert sorted(out) == ["node1", "node2"]
        pids = [int(p.read_text()) for p in (state / "run").glob("*.pid")]
        assert len(pids) >= 5  # munged, mariadbd, slurmdbd, slurmctld, 2 x slurmd
    finally:
        subprocess.run([str(CLUSTER_SH), "down"], env=env, check=True, capture_output=True, timeout=120)
    for pid in pids:
        assert not Path(f"/proc/{pid}").exists() or \
            Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0] == "Z"
    main = subprocess.run(["scontrol", "ping"], env=cluster, capture_output=True, text=True)
    assert "UP" in main.stdout


def test_second_cluster_on_ports_in_use_is_refused(cluster, local_state):
    """A second cluster given the running one's ports is refused in one line naming the port
    and its process, before it starts anything; the running cluster is untouched."""
    state = local_state / "c3"
    env = {**os.environ, "HAM_CLUSTER_DIR": str(state)}
    env["HAM_CLUSTER_PORT_BASE"] = cluster["HAM_CLUSTER_PORT_BASE"]  # the running cluster's
    env.pop("SLURM_CONF", None)
    up = subprocess.run([str(CLUSTER_SH), "up", "-n", "2", "--no-netns"], env=env,
                        capture_output=True, text=True, timeout=120)
    assert up.returncode == 1
    errors = [line for line in up.stderr.splitlines() if "error" in line]
    assert len(errors) == 1 and "is taken by mariadbd (pid " in errors[0], up.stderr
    assert not list(state.glob("run/*.pid"))
    main = subprocess.run(["scontrol", "ping"], env=cluster, capture_output=True, text=True)
    assert "UP" in main.stdout


def wordcount(env: dict[str, str], d: Path, nodes: int) -> dict[str, int]:
    """A wordcount through `ham run -N nodes` on the cluster of env, with its shared root under
    d: the counts it wrote (the caller compares them with the input's)."""
    examples = next(MAPREDUCE_JARS.glob("hadoop-mapreduce-examples-*.jar"))
    (d / "in").mkdir(parents=True)
    (d / "in" / "f").write_text("a b a\nc a\n")
    (d / "shared").mkdir()
    r = subprocess.run([sys.executable, "-m", "ham", "run", "-N", str(nodes), "--", "hadoop", "jar",
                        str(examples), "wordcount", str(d / "in"), str(d / "out")], cwd=d,
                       env={**env, "HAM_SHARED_ROOT": str(d / "shared")}, capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    return {w: int(n) for w, n in (line.split("\t") for f in sorted((d / "out").glob("part-r-*"))
                                   for line in f.read_text().splitlines())}


def links() -> dict[str, str]:
    """This machine's network interfaces and their IPv4 /24s ('' for none)."""
    out = subprocess.run(["ip", "-4", "-o", "addr"], capture_output=True, text=True, check=True).stdout
    nets = {f[1]: f[3] for f in (line.split() for line in out.splitlines())}
    names = subprocess.run(["ip", "-o", "link"], capture_output=True, text=True, check=True).stdout
    return {line.split(": ")[1].split("@")[0]: nets.get(line.split(": ")[1].split("@")[0], "")
            for line in names.splitlines()}


def link_names(env: dict[str, str]) -> tuple[tuple[str, ...], tuple[str, str]]:
    """How the links of the cluster of env.sh `env` are named (by its port base, as
    docker/cluster.sh names them): the prefixes of all of them, and its two bridges."""
    base = env["HAM_CLUSTER_PORT_BASE"]
    if base == "16800":
        return ("hambr", "veth-ham"), ("hambr0", "hambr1")
    return (f"hb{base}", f"vh{base}"), (f"hb{base}s", f"hb{base}f")


def namespaces() -> set[str]:
    out = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True, check=True).stdout
    return {line.split()[0] for line in out.splitlines()}


def test_second_cluster_in_namespaces_beside_the_first(cluster, local_state, tmp_path):
    """A second cluster in network namespaces (own directory and port base) has its own
    bridges, subnets and namespaces: a job runs on each while both are up, and after its `down`
    the first cluster's network is as it was and a job still runs there."""
    state = local_state / "c2"
    env = {**os.environ, "HAM_CLUSTER_DIR": str(state), "HAM_CLUSTER_PORT_BASE": "17800"}
    env.pop("SLURM_CONF", None)
    prefixes, bridges = link_names(cluster)
    first_net = {k: v for k, v in links().items() if k.startswith(prefixes)}
    first_ns = namespaces()
    assert all(b in first_net for b in bridges), first_net
    try:
        up = subprocess.run([str(CLUSTER_SH), "up", "-n", "2"], env=env, capture_output=True,
                            text=True, timeout=180)
        assert up.returncode == 0, up.stderr[-2000:]
        second = {**os.environ, "SLURM_CONF": str(state / "etc" / "slurm.conf"),
                  "HAM_CLUSTER_SHARED": str(state / "shared")}
        # Its own names: nothing of the first's network is taken or changed.
        now = links()
        assert {k: now.get(k) for k in first_net} == first_net
        mine = {k: v for k, v in now.items() if k not in first_net and k.startswith(("hb17800", "vh17800"))}
        assert mine.get("hb17800s") == "10.203.136.1/24" and mine.get("hb17800f") == "10.204.136.1/24", mine
        assert namespaces() - first_ns == {"ham17800-node1", "ham17800-node2"}
        # Both clusters answer, each with its own nodes, and a job runs on each while both are up.
        for env_, n in ((cluster, 3), (second, 2)):
            nodes = subprocess.run(["sinfo", "-h", "-N", "-o", "%N"], env=env_, capture_output=True,
                                   text=True, check=True, timeout=30).stdout.split()
            assert sorted(nodes) == [f"node{i}" for i in range(1, n + 1)]
        assert wordcount(second, local_state / "job2", 2) == {"a": 3, "b": 1, "c": 1}
        assert wordcount(cluster, tmp_path / "job1", 3) == {"a": 3, "b": 1, "c": 1}
    finally:
        down = subprocess.run([str(CLUSTER_SH), "down"], env=env, capture_output=True, text=True,
                              timeout=120)
    assert down.returncode == 0, down.stderr[-2000:]
    # The second cluster's network is gone, the first's is as it was and still carries jobs.
    assert not [k for k in links() if k.startswith(("hb17800", "vh17800"))]
    assert {k: links().get(k) for k in first_net} == first_net
    assert namespaces() == first_ns
    nodes = subprocess.run(["sinfo", "-h", "-N", "-t", "idle", "-o", "%N"], env=cluster,
                           capture_output=True, text=True, timeout=30)
    assert sorted(nodes.stdout.split()) == ["node1", "node2", "node3"], nodes.stderr
    assert wordcount(cluster, tmp_path / "job3", 3) == {"a": 3, "b": 1, "c": 1}
