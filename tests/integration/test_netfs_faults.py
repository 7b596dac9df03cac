"""Faults of the network file system under the test cluster (docker/netfs.sh): its server
restarted mid-job; one node cut off the network for longer than the file-system client's
timeout (10 s) and the driver's heartbeat timeout (the node blacklisted); and the node of the
driver lost, then the job resumed. Each ends with the teardown row of docs/guarantees.md checked
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
from tests.integration.conftest import wait_finished, wait_for
from tests.integration.test_node_loss import GATED, node_state
from tests.integration.test_runtime import REDUCER, same_tree
from tests.integration.test_runtime_faults import (assert_settled, expected_counts, output_counts,
                                                   runner_pids, streaming_cmd)
from tests.integration.test_runtime_recovery import driver_log, node_of, read_status, write_inputs
from tests.integration.test_netfs import pytestmark  # noqa: F401  (only on the network file system)
from tests.integration.test_resume import (HELD_FROM, completed_maps, ham, held_maps_job, job_dir,
                                           sbatch_ham_run, status)
from tests.integration.test_resume import reference  # noqa: F401  (a fixture)
from tests.integration.test_spank import spank_root

CLUSTER_SH = REPO / "docker" / "cluster.sh"


def start_gated_job(d, cluster, *extra: str,
                    release_file: Path | None = None) -> subprocess.Popen:
    """12 maps that wait for release_file (d/release unless given; so the job outlives the
    fault), on all three nodes."""
    write_inputs(d, 12)
    (d / "mapper.py").write_text(GATED)
    (d / "reducer.py").write_text(REDUCER)
    # The console on this machine's disk, as a terminal's: not on the file system that fails.
    log = console(d).open("w")
    proc = subprocess.Popen([sys.executable, "-m", "ham", "run", "-N", "3", "--", *streaming_cmd(d, "out", *extra)],
                            cwd=d, stdout=log, stderr=subprocess.STDOUT,
                            env={**cluster, "HAM_SHARED_ROOT": str(d / "shared"),
                                 "RELEASE": str(release_file or d / "release")})
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
    """The server (glusterd and its brick) killed, the held maps let go, the server back 3 s
    later: every client's calls fail meanwhile (ENOTCONN), right when the runners finish their
    maps and set up the next ones. The maps in flight may fail (one attempt each); the runners
    wait for the job's directory to answer before they set up an attempt (instead of using up
    the task's attempts in the outage), rebuild the job's state if its jar handle died, and the
    job completes with the right output; the driver keeps going (a status record it cannot
    write is a WARN line)."""
    d = tmp_path
    # The maps' release on this machine's disk, which every node (a namespace of it) sees
    # through the outage: let go once the server is down, they end in it for sure, and the
    # runners set up the next attempts in it. (Released on the shared file system just before
    # the kill, they could miss the file until the server was back, and the job finish without
    # meeting the outage.)
    released = Path(tempfile.mkdtemp(prefix="ham-release-")) / "release"
    proc = start_gated_job(d, cluster, release_file=released)
    try:
        restart = subprocess.Popen(["bash", str(CLUSTER_SH), "fs-restart", "3"],
                                   stderr=subprocess.PIPE, text=True)
        lines = []
        for line in restart.stderr:
            lines.append(line)
            if "file-system server killed" in line:
                released.touch()
        assert restart.wait(timeout=120) == 0, "".join(lines)
        assert released.exists(), "".join(lines)
    finally:
        released.touch()
        log = finish(proc, d)
    assert proc.returncode == 0, log[-4000:]
    assert output_counts(d / "out") == expected_counts(d)
    status = assert_settled(d, "SUCCEEDED")
    failed = [a["task"] for a in status["attempts"] if a["state"] == "FAILED"]
    assert len(failed) == len(set(failed)) <= 3, failed  # at most the attempt in flight
    runners = "".join(p.read_text() for p in (d / "shared").glob("*/*/jobs/*/logs/runners*.log"))
    assert "does not answer (the shared file system)" in runners, runners[-3000:]
    assert re.search(r"answers again after \d+ ms", runners), runners[-3000:]


@pytest.fixture
def cut_off_node(cluster):
    """Cuts node3 off the network when called (returns when the link comes back); afterwards
    waits for the link and brings it back into service, whatever happened."""
    cut = []

    def cut_off(seconds: int) -> float:
        subprocess.run(["bash", str(CLUSTER_SH), "isolate-node", "3", str(seconds)], check=True)
        cut.append(time.time() + seconds)
        return cut[0]

    yield cut_off
    if cut:
        time.sleep(max(0.0, cut[0] - time.time()) + 1)
        subprocess.run(["scontrol", "update", "nodename=node3", "state=resume"], env=cluster,
                       capture_output=True)
        wait_for(lambda: node_state(cluster, "node3").split("+")[0] in ("IDLE", "ALLOCATED", "MIXED"),
                 120, "node3 back in service")


def test_node_cut_off_longer_than_the_timeouts(cluster, tmp_path, cut_off_node):
    """node3 loses its network for 45 s while its runners hold maps: its file-system client
    gives up after 10 s, the driver hears nothing from the runners for the heartbeat timeout
    (8 s here), ends their attempts lost (KILLED: not counted against the task), finds node3's
    slurmd not answering and blacklists the node (no replacement runner there). The maps are
    let go only after the link is back, so that a node3 runner could take tasks again if the
    node were not blacklisted: every map runs on node1 or node2, the job completes with the
    right output, not failed, and node3's old runners exit when they reach the driver again."""
    d = tmp_path
    proc = start_gated_job(d, cluster, "-D", "ham.heartbeat.timeout.ms=8000")
    try:
        cut_at = time.time()
        back_at = cut_off_node(45)
        wait_for(lambda: [a for a in read_status(d)["attempts"]
                          if a["node"] == "node3" and a["state"] == "KILLED"], 120,
                 "node3's attempts to end lost")
        time.sleep(max(0.0, back_at - time.time()) + 5)  # the link back, node3's runners heard
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
    # Blacklisted: no attempt started on node3 after the cut, although the link came back
    # while maps were still to run, and no replacement runner was started there.
    assert not [a for a in status["attempts"] if a["node"] == "node3" and a["start"] / 1000 > cut_at]
    log = driver_log(d)
    assert re.search(r"Task runner node3/\S+ on node3 lost \(no contact with the driver for "
                     r"\d+ s\); not replaced: node3 is down or cut off .*; node node3 "
                     r"blacklisted for this job", log), log[-3000:]
    assert not re.search(r"started replacement runner \S+ on node3", log), log[-3000:]


@pytest.fixture
def lose_node(cluster):
    """Loses a node (cluster.sh kill-node: every process on it, its file-system client and the
    writes it had not sent) when called; revives it afterwards whatever happened."""
    lost = []

    def kill(node: str) -> None:
        subprocess.run(["bash", str(CLUSTER_SH), "kill-node", node.removeprefix("node")], check=True)
        lost.append(node)

    yield kill
    for node in lost:
        subprocess.run(["bash", str(CLUSTER_SH), "revive-node", node.removeprefix("node")],
                       env=cluster, check=True, timeout=180)


def test_resume_after_the_drivers_node_is_lost(cluster, tmp_path, reference, lose_node):
    """`ham submit`'s batch script (and with it the driver) runs on the allocation's first
    node; that node is lost (power cut: its file-system client dies with the map outputs it
    had not sent) once 6 of 12 maps are done, while the other 6 hold. Slurm ends the job
    (NODE_FAIL; it was submitted --no-requeue); the
    runners on the other nodes exit; nothing is committed. `ham submit --resume` in a
    new allocation of the two nodes left finishes the job with the local runner's output,
    re-running what the lost node had not made durable."""
    d, cmd = held_maps_job(tmp_path)
    # Without --no-requeue Slurm would requeue the job (JobRequeue=1) and wait for the node.
    first, session = sbatch_ham_run(d, cluster, cmd, "--no-requeue")
    try:
        job = job_dir(session, "jobs/job_*")
        wait_for(lambda: completed_maps(job) >= HELD_FROM, 180, f"{HELD_FROM} maps to finish")
        batch_host = subprocess.run(["squeue", "-h", "-j", first, "-o", "%B"], env=cluster,
                                    capture_output=True, text=True, check=True).stdout.strip()
        lose_node(batch_host)
        info = wait_finished(first, 120)
    finally:
        subprocess.run(["scancel", first], env=cluster, check=False)
    assert info.state in ("NODE_FAIL", "FAILED", "CANCELLED"), info
    wait_for(lambda: not runner_pids(d), 60, "the other nodes' runners to exit")
    # Nothing committed (docs/guarantees.md: what losing the driver's node leaves): no _SUCCESS, no part
    # file; the committer's _temporary may stay, nobody being left to remove it.
    assert not list((d / "out").glob("*")) or {p.name for p in (d / "out").iterdir()} == {"_temporary"}

    # On the two nodes left (the lost one is down until the fixture revives it).
    r = ham(d, cluster, "submit", "--resume", first, "-N", "2", "--wait", root=spank_root())
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    same_tree(reference, d / "out")
    assert status(job)["state"] == "SUCCEEDED"
    wait_for(lambda: not runner_pids(d), 60, "task runners to exit")
