"""A whole node lost mid-job, mid-map and mid-reduce: its slurmd, every process on it
(runners, slurmstepd) and its file-system client are SIGKILLed, as in a power cut. The driver
blacklists the node (its slurmd does not answer), the job finishes on the remaining nodes with
the same output, the controller declares the node DOWN, and nothing is left behind."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest

from tests.conftest import REPO
from tests.integration.conftest import wait_for
from tests.integration.test_runtime_faults import expected_counts, output_counts, runner_pids, streaming_cmd
from tests.integration.test_runtime import MAPPER, REDUCER
from tests.integration.test_runtime_recovery import driver_log, node_of, read_status, write_inputs

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


def gated(script: str) -> str:
    """The script, waiting first for the file $RELEASE (the task outlives the node's loss)."""
    return script.replace("import sys\n", "import os, sys, time\n"
                          "while not os.path.exists(os.environ['RELEASE']):\n    time.sleep(0.2)\n", 1)


GATED = gated(MAPPER)


def attempts_on(d, node: str, kind: str) -> list[dict]:
    try:
        return [a for a in read_status(d)["attempts"]
                if a["node"] == node and a["type"] == kind and a["state"] == "RUNNING"]
    except (OSError, ValueError, KeyError, TypeError, AssertionError):
        return []


@pytest.mark.parametrize("phase", ["MAP", "REDUCE"])
def test_job_finishes_on_the_remaining_nodes(cluster, tmp_path, lost_node, phase):
    """The node is lost while its runners hold maps (mid-map) or reduces (mid-reduce: the
    maps done, the reducers past their shuffle). Its attempts end lost and run again on the
    other nodes; the maps it had finished are not run again (their output is on the shared
    file system, not on the lost node's disk as on YARN, and its client had sent it when
    the map's files were closed)."""
    d = tmp_path
    write_inputs(d, 12)
    (d / "mapper.py").write_text(GATED if phase == "MAP" else MAPPER)
    (d / "reducer.py").write_text(REDUCER if phase == "MAP" else gated(REDUCER))
    release = d / "release"
    log = (d / "ham-run.log").open("w")
    # Mid-reduce: 6 reduces, so that every runner (two per node) holds one.
    extra = [] if phase == "MAP" else ["-D", "mapreduce.job.reduces=6"]
    proc = subprocess.Popen([sys.executable, "-m", "ham", "run", "-N", "3", "--", *streaming_cmd(d, "out", *extra)],
                            cwd=d, stdout=log, stderr=subprocess.STDOUT,
                            env={**cluster, "HAM_SHARED_ROOT": str(d / "shared"), "RELEASE": str(release)})
    try:
        wait_for(lambda: {node_of(p) for p in runner_pids(d)} == {"node1", "node2", "node3"}, 240,
                 "task runners on all three nodes")
        wait_for(lambda: attempts_on(d, VICTIM, phase) or proc.poll() is not None, 240,
                 f"a {phase} attempt on {VICTIM}")
        time.sleep(2)  # each runner holds its task, waiting for the release file
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
    assert lost and all(a["node"] == VICTIM and a["type"] == phase for a in lost), lost
    # Every task finished; those the lost node was running ran again on the others, after the loss.
    done = [a for a in status["attempts"] if a["state"] == "SUCCEEDED" and a["type"] == phase]
    assert len({a["task"] for a in done}) == (12 if phase == "MAP" else 6)
    assert {a["task"] for a in lost} <= {a["task"] for a in done if a["node"] != VICTIM
                                         and a["start"] / 1000 > killed_at}
    if phase == "REDUCE":  # no map ran twice, although a third of them ran on the lost node
        maps = [a for a in status["attempts"] if a["type"] == "MAP"]
        assert len(maps) == 12 and {a["state"] for a in maps} == {"SUCCEEDED"}, maps
        assert VICTIM in {a["node"] for a in maps}
    assert f"node {VICTIM} blacklisted for this job" in driver_log(d), driver_log(d)[-3000:]
    assert not runner_pids(d)
    assert not list((d / "shared").glob("*/*/jobs/*/intermediate"))
