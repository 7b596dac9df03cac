"""The `network` setting on the test cluster's second network (docker/cluster.sh: every node has
eth1 on the bridge hambr1, 10.202.0.0/24, beside eth0 on hambr0, 10.200.0.0/24, which Slurm,
the file system and the nodes' names use): the driver listens on its node's address there and
the runners' connections to it go over it, as `ss` in each node's network namespace shows; a
network no node has, or one the driver's node has but the compute nodes lack, ends the job in
one line naming the node and the setting, with nothing left running."""

from __future__ import annotations

import ipaddress
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import CLUSTER_DIR, FAST_BRIDGE, NETNS_PREFIX, STORAGE_ADDR
from tests.integration.conftest import _slurm_jobs, wait_for
from tests.integration.test_runtime import MAPPER, REDUCER
from tests.integration.test_runtime_faults import (assert_settled, expected_counts, output_counts,
                                                   runner_pids, streaming_cmd)
from tests.integration.test_runtime_recovery import driver_log, read_status, write_inputs

pytestmark = pytest.mark.skipif(
    "export HAM_CLUSTER_FAST_NET=" not in ((CLUSTER_DIR / "env.sh").read_text()
                                          if (CLUSTER_DIR / "env.sh").exists() else
                                          "export HAM_CLUSTER_FAST_NET="),
    reason="the test cluster has no second network (--no-netns, or started by a cluster.sh "
           "from before it: restart it with tests/cluster-up.sh)")

NODES = (1, 2, 3)
# Each map holds its runner for a few seconds: the runners of all three nodes are connected
# while `ss` looks.
SLOW_MAPPER = MAPPER.replace("import sys\n", "import sys, time\ntime.sleep(4)\n", 1)
# The cluster's first network (Slurm, the file system), as a regex: "10\\.200\\.0".
FIRST_NET = re.escape(STORAGE_ADDR.rsplit(".", 1)[0])
LISTENING = re.compile(r"HAM umbilical for \S+ listening on ([0-9.]+):([0-9]+)")


def setup(d: Path, maps: int = 6) -> None:
    write_inputs(d, maps)
    (d / "mapper.py").write_text(SLOW_MAPPER)
    (d / "reducer.py").write_text(REDUCER)


def fast(cluster: dict[str, str]) -> tuple[str, str, str]:
    """The second network's subnet, the nodes' interface on it, the login node's address."""
    net = cluster["HAM_CLUSTER_FAST_NET"]
    return net, cluster["HAM_CLUSTER_FAST_IF"], str(next(ipaddress.IPv4Network(net).hosts()))


def endpoint(text: str) -> str:
    """ss's address:port, an IPv4-mapped IPv6 one (a JVM's dual-stack socket) as IPv4."""
    host, port = text.rsplit(":", 1)
    return f"{host.strip('[]').removeprefix('::ffff:')}:{port}"


def established(node: int) -> list[tuple[str, str]]:
    """(local, peer) of the TCP connections in node's network namespace."""
    out = subprocess.run(["ip", "netns", "exec", f"{NETNS_PREFIX}{node}", "ss", "-Htn", "state",
                          "established"], capture_output=True, text=True, check=True).stdout
    return [(endpoint(f[2]), endpoint(f[3])) for f in (line.split() for line in out.splitlines())
            if len(f) >= 4]


def driver_address(d: Path) -> tuple[str, int] | None:
    m = LISTENING.search(driver_log(d))
    return (m.group(1), int(m.group(2))) if m else None


def runner_connections(d: Path) -> dict[int, list[tuple[str, str]]] | None:
    """Once every node has a connection to the driver's port: each node's connections to that
    port (the runners'; nothing else on a node talks to it)."""
    listening = driver_address(d)
    if not listening:
        return None
    port = f":{listening[1]}"
    seen = {i: [c for c in established(i) if c[1].endswith(port)] for i in NODES}
    return seen if all(seen.values()) else None


def watch_job(proc: subprocess.Popen, d: Path) -> tuple[dict[int, list[tuple[str, str]]], str]:
    """The runners' connections, seen while the job runs (empty if it ended first), and the
    job's stderr."""
    seen: dict[int, list[tuple[str, str]]] = {}
    deadline = time.monotonic() + 120
    try:
        while not seen and proc.poll() is None and time.monotonic() < deadline:
            seen = runner_connections(d) or {}
            time.sleep(0.2)
        _, err = proc.communicate(timeout=300)
    finally:
        if proc.poll() is None:
            proc.kill()
    return seen, err


def check_connections(seen: dict[int, list[tuple[str, str]]], driver: str, port: int,
                      fast_net: str) -> None:
    """Every runner connection on every node goes from the node's address on the fast network
    to the driver's there; none over the cluster's first network (10.200.0.0/24)."""
    assert set(seen) == set(NODES), seen
    for node, conns in seen.items():
        for local, peer in conns:
            assert peer == f"{driver}:{port}", (node, conns)
            assert ipaddress.IPv4Address(local.rsplit(":", 1)[0]) in \
                ipaddress.IPv4Network(fast_net), (node, conns)
            assert local.rsplit(":", 1)[0] == str(ipaddress.IPv4Network(fast_net)[10 + node])


def maps_ran_on_every_node(d: Path) -> None:
    status = read_status(d)
    assert status["state"] == "SUCCEEDED", status
    nodes = {a["node"] for a in status["attempts"] if "_m_" in a["id"]}
    assert nodes == {f"node{i}" for i in NODES}, nodes


def test_runners_connect_over_the_chosen_subnet(cluster, tmp_path):
    """`ham run -N 3` from the login node with network = the fast subnet: the driver listens on
    the login node's address there, and every node's runners connect to it from theirs."""
    fast_net, _, login = fast(cluster)
    d = tmp_path
    setup(d)
    proc = subprocess.Popen(
        [sys.executable, "-m", "ham", "run", "-N", "3", "--", *streaming_cmd(d, "out")],
        cwd=d, env={**cluster, "HAM_SHARED_ROOT": str(d / "shared"), "HAM_NETWORK": fast_net},
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    seen, err = watch_job(proc, d)
    assert proc.returncode == 0, err[-3000:]
    assert seen, "the job ended before runners on every node were seen: " + err[-2000:]
    driver, port = driver_address(d)
    assert driver == login
    check_connections(seen, driver, port, fast_net)
    conf = next((d / "shared").glob("*/*/conf/mapred-site.xml")).read_text()
    assert f"<value>{fast_net}</value>" in conf and f"<value>{login}</value>" in conf
    assert output_counts(d / "out") == expected_counts(d)
    maps_ran_on_every_node(d)


def test_a_batch_jobs_driver_on_a_node_listens_on_the_named_interface(cluster, tmp_path):
    """`ham submit` with network = the nodes' interface name (eth1): the driver, in the batch
    script on node1, listens on node1's address on it, and the runners of all nodes (node1's
    own included) connect there."""
    fast_net, fast_if, _ = fast(cluster)
    node1 = str(ipaddress.IPv4Network(fast_net)[11])
    d = tmp_path
    setup(d)
    proc = subprocess.Popen(
        [sys.executable, "-m", "ham", "submit", "--wait", "-N", "3", "-o", str(d / "job.out"),
         "--", *streaming_cmd(d, "out")],
        cwd=d, env={**cluster, "HAM_SHARED_ROOT": str(d / "shared"), "HAM_NETWORK": fast_if},
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    seen, err = watch_job(proc, d)
    job_out = (d / "job.out").read_text() if (d / "job.out").exists() else ""
    assert proc.returncode == 0, err[-2000:] + job_out[-3000:]
    assert seen, "the job ended before runners on every node were seen: " + job_out[-2000:]
    driver, port = driver_address(d)
    assert driver == node1
    check_connections(seen, driver, port, fast_net)
    assert output_counts(d / "out") == expected_counts(d)
    maps_ran_on_every_node(d)


def prop(conf: str, name: str) -> str | None:
    m = re.search(rf"<name>{re.escape(name)}</name><value>([^<]*)</value>", conf)
    return m.group(1) if m else None


def test_ham_env_in_an_salloc_shell_honours_it(cluster, tmp_path):
    """The interactive path: `ham env` renders the same choice (the driver of a `hadoop jar` typed
    in the shell listens on the login node's fast address), and refuses a network this node
    lacks in one line."""
    fast_net, _, login = fast(cluster)
    ham = f"{sys.executable} -m ham"
    (tmp_path / "shared").mkdir()
    script = (f'out=$({ham} env) && eval "$out" && cat "$HADOOP_CONF_DIR/mapred-site.xml" && '
              f'eval "$({ham} env --cleanup)" || exit 9; HAM_NETWORK=10.209.0.0/24 {ham} env; '
              'echo "BAD=$?"')
    r = subprocess.run(["salloc", "-N", "3", "bash", "-c", script], capture_output=True,
                       text=True, timeout=120, cwd=tmp_path,
                       env={**cluster, "HAM_SHARED_ROOT": str(tmp_path / "shared"),
                            "HAM_NETWORK": fast_net, "PATH": os.environ["PATH"],
                            "HOME": str(tmp_path)})
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    assert prop(r.stdout, "ham.network") == fast_net
    assert prop(r.stdout, "ham.driver.host") == prop(r.stdout, "ham.driver.bind.host") == login
    assert "BAD=2" in r.stdout
    [line] = ham_lines(r.stderr, "error:")
    assert "has no address on network '10.209.0.0/24' (setting network" in line, r.stderr
    assert "Traceback" not in r.stderr


def nothing_left(d: Path) -> None:
    """No Slurm job of this test (working in d) and no runner of its shared root are left."""
    wait_for(lambda: not _slurm_jobs(d), 30, "the allocation to end")
    wait_for(lambda: not runner_pids(d), 30, "task runners to exit")


def ham_lines(stderr: str, level: str = "") -> list[str]:
    """ham's own lines (salloc says hello and goodbye around them), of one level if given."""
    return [line for line in stderr.splitlines() if line.startswith(f"ham: {level}")]


@pytest.mark.parametrize("network", ["10.209.0.0/24", "ib9"])
def test_a_network_no_node_has_is_one_line(cluster, tmp_path, network):
    """Neither the login node (where `ham run -N`'s driver runs) nor any compute node has it:
    `ham run` refuses in one line before the job starts or its directory is made."""
    from ham import network as net
    assert net.choose(network, net.local_addresses()) is None  # the test's premise
    d = tmp_path
    setup(d, maps=1)
    r = subprocess.run(
        [sys.executable, "-m", "ham", "run", "-N", "3", "--", *streaming_cmd(d, "out")],
        cwd=d, env={**cluster, "HAM_SHARED_ROOT": str(d / "shared"), "HAM_NETWORK": network},
        capture_output=True, text=True, timeout=120)
    assert r.returncode == 2, r.stderr[-2000:]
    assert "Traceback" not in r.stderr
    [line] = ham_lines(r.stderr, "error:")
    assert re.fullmatch(rf"ham: error: \S+ \(the driver's node\) has no address on network "
                        rf"'{re.escape(network)}' \(setting network, from environment "
                        rf"HAM_NETWORK\); its addresses: .*{FIRST_NET}\.1.*", line), line
    assert not list((d / "shared").glob("*/*/conf")), "a job directory was made"
    assert not (d / "out").exists()
    nothing_left(d)


def test_compute_nodes_without_the_network_fail_the_job_in_one_line(cluster, tmp_path):
    """The login node has the bridge hambr1 (the driver listens there), the compute nodes only
    eth1 on it: their runners exit before connecting, and the job fails at once with one line
    naming a node and the setting; each node's runners said what the node has."""
    fast_net, _, login = fast(cluster)
    d = tmp_path
    setup(d, maps=3)
    r = subprocess.run(
        [sys.executable, "-m", "ham", "run", "-N", "3", "--", *streaming_cmd(d, "out")],
        cwd=d, env={**cluster, "HAM_SHARED_ROOT": str(d / "shared"), "HAM_NETWORK": FAST_BRIDGE},
        capture_output=True, text=True, timeout=300)
    assert r.returncode != 0 and "Traceback" not in r.stderr, r.stderr[-3000:]
    assert driver_address(d)[0] == login
    last = ham_lines(r.stderr)[-1]
    assert re.fullmatch(rf"ham: ERROR: job_\S+ FAILED: node[123] is not on network '{FAST_BRIDGE}' "
                        r"\(setting network, ham\.network\): .*", last), ham_lines(r.stderr)
    runners_said = "".join(p.read_text() for p in
                           (d / "shared").glob("*/*/jobs/*/logs/runners.g*.log"))
    fast_prefix = re.escape(fast_net.rsplit(".", 1)[0])
    assert re.search(rf"node[123] has no address on network '{FAST_BRIDGE}' \(setting network, "
                     rf"ham\.network\); its addresses: eth0 {FIRST_NET}\.1[123], eth1 "
                     rf"{fast_prefix}\.1[123]", runners_said), runners_said[-3000:]
    assert_settled(d, "FAILED")
    nothing_left(d)
