"""A whole node lost mid-job: its slurmd and every process on it (runners, slurmstepd) are
SIGKILLed, as in a power cut. The job finishes on the remaining nodes with the same output,
through the controller declaring the node DOWN, and leaves nothing behind."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest

from tests.conftest import REPO
from tests.integration.conftest import wait_for
from tests.integration.test_runtime_faults import expected_counts, output_counts, runner_pids, streaming_cmd
from tests.integration.test_runtime import MAPPER, REDUCER
from tests.integration.test_runtime_recovery import node_of, read_status, write_inputs

CLUSTER_SH = REPO / "docker" / "cluster.sh"
VICTIM = "node3"


def node_state(cluster: dict[str, str], node: str) -> str:
    """Like DOWN+COMPLETING*: every flag (sinfo shows only one, e.g. completing)."""
    out = subprocess.run(["scontrol", "show", "node", "-o", node], capture_output=True, text=True,
                         env=cluster).stdout
    return next((f.split("=", 1)[1] for f in out.split() if f.startswith("State=")), "")


@pytest.fixture
def lost_node(cluster):
    """Kills VICTIM when called; brings it back into service afterwards whatever happened."""
    killed = []

    def kill() -> float:
        subprocess.run(["bash", str(CLUSTER_SH), "kill-node", VICTIM.removeprefix("node")], check=True)
        killed.append(time.time())
        return killed[0]

    yield kill
    if killed:
        subprocess.run(["bash", str(CLUSTER_SH), "revive-node", VICTIM.removeprefix("node")],
                       env=cluster, check=True, timeout=180)


GATED = MAPPER.replace("import sys\n", "import os, sys, time\n"
                       "while not os.path.exists(os.environ['RELEASE']):\n    time.sleep(0.2)\n", 1)


def test_job_finishes_on_the_remaining_nodes(cluster, tmp_path, lost_node):
    d = tmp_path
    write_inputs(d, 12)
    (d / "mapper.py").write_text(GATED)  # maps wait for the release file: the job outlives the loss
    (d / "reducer.py").write_text(REDUCER)
    release = d / "release"
    log = (d / "ham-run.log").open("w")
    proc = subprocess.Popen([sys.executable, "-m", "ham", "run", "-N", "3", "--", *streaming_cmd(d, "out")],
                            cwd=d, stdout=log, stderr=subprocess.STDOUT,
                            env={**cluster, "HAM_SHARED_ROOT": str(d / "shared"), "RELEASE": str(release)})
    try:
        wait_for(lambda: {node_of(p) for p in runner_pids(d)} == {"node1", "node2", "node3"}, 240,
                 "task runners on all three nodes")
        time.sleep(2)  # each runner holds a map, waiting for the release file
        killed_at = lost_node()
        # The controller notices on its own (SlurmdTimeout) and declares the node DOWN; the job
        # (allocated --no-kill) and its runner step (srun --no-kill) go on without it.
        wait_for(lambda: "DOWN" in node_state(cluster, VICTIM) or proc.poll() is not None, 180,
                 f"{VICTIM} declared down")
        assert proc.poll() is None, (d / "ham-run.log").read_text()[-4000:]
        release.touch()
        proc.wait(timeout=400)
    finally:
        if proc.poll() is None:
            proc.kill()
        log.close()
    err = (d / "ham-run.log").read_text()
    assert proc.returncode == 0, err[-4000:]
    assert output_counts(d / "out") == expected_counts(d)
    assert (d / "out" / "_SUCCESS").exists()
    status = read_status(d)
    lost = [a for a in status["attempts"] if a["state"] == "KILLED"]
    assert lost and all(a["node"] == VICTIM for a in lost), lost
    # Every map finished; those the lost node was running ran again on the others, after the loss.
    done = [a for a in status["attempts"] if a["state"] == "SUCCEEDED" and a["type"] == "MAP"]
    assert len({a["task"] for a in done}) == 12
    assert {a["task"] for a in lost} <= {a["task"] for a in done if a["node"] != VICTIM
                                         and a["start"] / 1000 > killed_at}
    assert not runner_pids(d)
    assert not list((d / "shared").glob("*/*/jobs/*/intermediate"))
