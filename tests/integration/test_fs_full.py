"""The shared file system fills up while maps write: the job fails with "No space left on
device" in its last lines, nothing is committed, and the space is given back."""

from __future__ import annotations

import shutil
import subprocess
import sys
import uuid
from pathlib import Path

TINY = Path("/var/tmp/ham-tiny")  # a 48 MB tmpfs mounted by tests/cluster-up.sh before the nodes


def test_shared_root_full(cluster, hadoop_jars):
    # Visible on the nodes only if it was mounted before they started (tests/cluster-up.sh).
    probe = subprocess.run(["srun", "-N1", "-w", "node2", "stat", "-f", "-c", "%T", str(TINY)],
                           capture_output=True, text=True, env=cluster, timeout=60)
    assert probe.stdout.strip() == "tmpfs", "restart the test cluster with tests/cluster-up.sh"
    base = TINY / uuid.uuid4().hex[:8]
    (base / "shared").mkdir(parents=True)
    try:
        # teragen writes 100 MB into a 48 MB file system.
        r = subprocess.run([sys.executable, "-m", "ham", "run", "-N", "3", "--", "hadoop", "jar",
                            str(hadoop_jars["examples"]), "teragen", "-D", "mapreduce.job.maps=3",
                            "-D", "mapreduce.map.maxattempts=2", "1000000", str(base / "out")],
                           capture_output=True, text=True, timeout=600,
                           env={**cluster, "HAM_SHARED_ROOT": str(base / "shared")})
        assert r.returncode != 0
        # ham run's summary comes after Hadoop's stack traces and counters, whatever their length.
        summary = [line for line in r.stderr.splitlines()[-3:] if line.startswith("ham: ERROR: job_")]
        assert summary and "No space left on device" in summary[0], r.stderr[-3000:]
        assert not (base / "out").exists(), (sorted(str(p) for p in (base / "out").rglob("*")),
                                             r.stderr[-3000:])
        assert not list((base / "shared").glob("*/*/jobs/*/intermediate"))
    finally:
        shutil.rmtree(base, ignore_errors=True)
