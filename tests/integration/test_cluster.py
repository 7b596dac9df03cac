"""The test cluster is a real multi-node Slurm: distinct hosts, real exit codes, accounting."""

from __future__ import annotations

import subprocess

from ham.slurm import Slurm
from tests.integration.conftest import wait_finished


def test_srun_three_distinct_hosts(cluster):
    out = subprocess.run(["srun", "-N3", "hostname"], capture_output=True, text=True, check=True,
                         env=cluster, timeout=60).stdout.split()
    assert sorted(out) == ["node1", "node2", "node3"]
    addrs = subprocess.run(["srun", "-N3", "hostname", "-I"], capture_output=True, text=True,
                           check=True, env=cluster, timeout=60).stdout.split()
    assert len(set(addrs)) == 3


def test_batch_exit_code_read_back(cluster):
    job_id = Slurm().submit("#!/bin/bash\n#SBATCH -N1 -o /dev/null\nexit 3\n")
    info = wait_finished(job_id)
    assert info.state == "FAILED" and info.exit_code == 3


def test_node_addresses(cluster):
    addrs = Slurm().node_addresses("node[1-3]")
    assert list(addrs) == ["node1", "node2", "node3"]
    assert len(set(addrs.values())) == 3


def test_fallback_cluster_without_namespaces_and_down(cluster, tmp_path):
    """A second cluster (own directory and ports) in fallback mode: several slurmd on the host.
    `down` stops exactly what it started; the main test cluster keeps running."""
    import os
    from pathlib import Path

    script = Path(__file__).resolve().parents[2] / "docker" / "cluster.sh"
    state = tmp_path / "c2"
    env = {**os.environ, "HAM_CLUSTER_DIR": str(state), "HAM_CLUSTER_PORT_BASE": "18800"}
    env.pop("SLURM_CONF", None)
    subprocess.run([str(script), "up", "-n", "2", "--no-netns"], env=env, check=True,
                   capture_output=True, timeout=120)
    try:
        conf = {**os.environ, "SLURM_CONF": str(state / "etc" / "slurm.conf")}
        out = subprocess.run(["srun", "-N2", "sh", "-c", "echo $SLURMD_NODENAME"], env=conf,
                             capture_output=True, text=True, check=True, timeout=60).stdout.split()
        assert sorted(out) == ["node1", "node2"]
        pids = [int(p.read_text()) for p in (state / "run").glob("*.pid")]
        assert len(pids) >= 5  # munged, mariadbd, slurmdbd, slurmctld, 2 x slurmd
    finally:
        subprocess.run([str(script), "down"], env=env, check=True, capture_output=True, timeout=120)
    for pid in pids:
        assert not Path(f"/proc/{pid}").exists() or \
            Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0] == "Z"
    main = subprocess.run(["scontrol", "ping"], env=cluster, capture_output=True, text=True)
    assert "UP" in main.stdout
