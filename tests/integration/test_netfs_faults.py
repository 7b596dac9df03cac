"""Faults of the network file system under the test cluster (docker/netfs.sh): its server
restarted mid-job, and one node cut off the network for longer than the file-system client's
timeout (10 s) and the driver's heartbeat timeout. Each ends with README's teardown row checked
whole: the output complete with the local runner's counts, nothing half-committed, the status
record terminal, no runner left. (A node's power cut, which now takes its file-system client
and the writes it had not sent with it, is test_node_loss.py.)"""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from tests.conftest import REPO
from tests.integration.conftest import wait_for
from tests.integration.test_node_loss import GATED, node_state
from tests.integration.test_runtime import REDUCER
from tests.integration.test_runtime_faults import (assert_settled, expected_counts, output_counts,
                                                   runner_pids, streaming_cmd)
from tests.integration.test_runtime_recovery import driver_log, node_of, read_status, write_inputs
from tests.integration.test_netfs import pytestmark  # noqa: F401  (only on the network file system)

CLUSTER_SH = REPO / "docker" / "cluster.sh"


def start_gated_job(d, cluster, *extra: str) -> subprocess.Popen:
    """12 maps that wait for d/release (so the job outlives the fault), on all three nodes."""
    write_inputs(d, 12)
    (d / "mapper.py").write_text(GATED)
    (d / "reducer.py").write_text(REDUCER)
    # The console on this machine's disk, as a terminal's: not on the file system that fails.
    log = console(d).open("w")
    proc = subprocess.Popen([sys.executable, "-m", "ham", "run", "-N", "3", "--", *streaming_cmd(d, "out", *extra)],
                            cwd=d, stdout=log, stderr=subprocess.STDOUT,
                            env={**cluster, "HAM_SHARED_ROOT": str(d / "shared"),
                                 "RELEASE": str(d / "release")})
    # Each runner holds a map (the runners start before the job is submitted: wait for maps).
    wait_for(lambda: {a["node"] for a in running_attempts(d)} == {"node1", "node2", "node3"}, 240,
             "maps running on all three nodes")
    return proc


def running_attempts(d) -> list[dict]:
    try:
        return [a for a in read_status(d)["attempts"] if a["state"] == "RUNNING"]
    except (OSError, ValueError, KeyError, TypeError, AssertionError):
        return []


def console(d) -> Path:
    return Path(tempfile.gettempdir()) / f"ham-run-{d.name}.log"


def release(d) -> None:
    """Let the maps finish; the login node's client may still be reconnecting."""
    def touched() -> bool:
        try:
            (d / "release").touch()
            return True
        except OSError:
            return False
    wait_for(touched, 60, "the shared root to answer again")


def finish(proc: subprocess.Popen, d, timeout: float = 400) -> str:
    try:
        proc.wait(timeout=timeout)
    finally:
        if proc.poll() is None:
            proc.kill()
    return console(d).read_text()


def test_file_system_server_restarted_mid_job(cluster, tmp_path):
    """The server (glusterd and its brick) killed while every runner holds a map, back 3 s
    later: every client's calls fail meanwhile (ENOTCONN). The maps in flight may fail (one
    attempt each); the runners then wait for the job's directory to answer before they set up
    the next attempt (instead of using up the task's attempts in the outage), rebuild the job's
    state whose jar handle died, and the job completes with the right output; the driver keeps
    going (a status record it cannot write is a WARN line)."""
    d = tmp_path
    proc = start_gated_job(d, cluster)
    try:
        subprocess.run(["bash", str(CLUSTER_SH), "fs-restart", "3"], check=True, timeout=120)
        release(d)
    finally:
        log = finish(proc, d)
    assert proc.returncode == 0, log[-4000:]
    assert output_counts(d / "out") == expected_counts(d)
    status = assert_settled(d, "SUCCEEDED")
    failed = [a["task"] for a in status["attempts"] if a["state"] == "FAILED"]
    assert len(failed) == len(set(failed)) <= 3, failed  # at most the attempt in flight
    runners = "".join(p.read_text() for p in (d / "shared").glob("*/*/jobs/*/logs/runners*.log"))
    if failed:
        assert "does not answer (the shared file system)" in runners, runners[-3000:]
        assert re.search(r"answers again after \d+ ms", runners), runners[-3000:]


@pytest.fixture
def cut_off_node(cluster):
    """Cuts node3 off the network when called; afterwards waits for the link and brings it back
    into service, whatever happened."""
    cut = []

    def cut_off(seconds: int) -> None:
        subprocess.run(["bash", str(CLUSTER_SH), "isolate-node", "3", str(seconds)], check=True)
        cut.append(time.time() + seconds)

    yield cut_off
    if cut:
        time.sleep(max(0.0, cut[0] - time.time()) + 1)
        subprocess.run(["scontrol", "update", "nodename=node3", "state=resume"], env=cluster,
                       capture_output=True)
        wait_for(lambda: node_state(cluster, "node3").split("+")[0] in ("IDLE", "ALLOCATED", "MIXED"),
                 120, "node3 back in service")


def test_node_cut_off_longer_than_the_timeouts(cluster, tmp_path, cut_off_node):
    """node3 loses its network for 45 s while its runners hold maps: its file-system client
    gives up after 10 s, the driver hears nothing from its runners for the heartbeat timeout
    (8 s here), ends their attempts lost and runs the maps again on node1 and node2, and does
    not start runners on node3 again; when the link is back its old runners are refused and
    exit. The job completes with the right output, not failed."""
    d = tmp_path
    proc = start_gated_job(d, cluster, "-D", "ham.heartbeat.timeout.ms=8000")
    try:
        cut_at = time.time()
        cut_off_node(45)
        wait_for(lambda: [a for a in read_status(d)["attempts"]
                          if a["node"] == "node3" and a["state"] == "KILLED"], 120,
                 "node3's attempts to end lost")
        release(d)
    finally:
        log = finish(proc, d, timeout=600)
    assert proc.returncode == 0, log[-4000:]
    assert output_counts(d / "out") == expected_counts(d)
    status = assert_settled(d, "SUCCEEDED")
    lost = [a for a in status["attempts"] if a["state"] == "KILLED"]
    assert lost and all(a["node"] == "node3" for a in lost), lost
    done = [a for a in status["attempts"] if a["state"] == "SUCCEEDED" and a["type"] == "MAP"]
    assert len({a["task"] for a in done}) == 12
    assert {a["task"] for a in lost} <= {a["task"] for a in done if a["node"] != "node3"
                                         and a["start"] / 1000 > cut_at}
    assert "node3" in driver_log(d)
