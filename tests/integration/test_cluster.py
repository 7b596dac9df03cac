"""The test cluster is a real multi-node Slurm: distinct hosts, real exit codes, accounting."""

from __future__ import annotations

import subprocess
import time

from ham.slurm.cli import CliBackend


def test_srun_three_distinct_hosts(cluster):
    out = subprocess.run(["srun", "-N3", "hostname"], capture_output=True, text=True, check=True,
                         env=cluster, timeout=60).stdout.split()
    assert sorted(out) == ["node1", "node2", "node3"]
    addrs = subprocess.run(["srun", "-N3", "hostname", "-I"], capture_output=True, text=True,
                           check=True, env=cluster, timeout=60).stdout.split()
    assert len(set(addrs)) == 3


def test_batch_exit_code_read_back(cluster):
    backend = CliBackend()
    job_id = backend.submit("#!/bin/bash\n#SBATCH -N1 -o /dev/null\nexit 3\n")
    deadline = time.monotonic() + 60
    info = backend.job(job_id)
    while not (info and info.finished and info.exit_code is not None):
        assert time.monotonic() < deadline, f"job {job_id} did not finish: {info}"
        time.sleep(0.5)
        info = backend.job(job_id)
    assert info.state == "FAILED" and info.exit_code == 3


def test_node_addresses(cluster):
    addrs = CliBackend().node_addresses("node[1-3]")
    assert list(addrs) == ["node1", "node2", "node3"]
    assert len(set(addrs.values())) == 3
