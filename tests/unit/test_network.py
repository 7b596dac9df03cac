"""The `network` setting: which address the driver takes, what the job's configuration says, and
the one-line refusal on a node without the network (the runners' side: NetworkChoiceTest)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ham import contract as c
from ham import jobconf, jobdir, network, session, settings
from ham.errors import EnvironmentProblem, SettingsError
from ham.slurm import JobInfo

NODE = [("lo", "127.0.0.1"), ("eth0", "10.200.0.12"), ("ib0", "10.202.0.12"),
        ("ib0:1", "10.203.0.12")]


def load(tmp_path: Path, **env: str) -> settings.Settings:
    return settings.load({"HAM_SITE_CONFIG": str(tmp_path / "none.toml"),
                          "HAM_USER_CONFIG": str(tmp_path / "none.toml"), **env})


@pytest.mark.parametrize("spec,address", [
    ("ib0", "10.202.0.12"),  # the interface's first address
    ("10.202.0.0/24", "10.202.0.12"),
    ("10.202.0.99/24", "10.202.0.12"),  # host bits ignored
    ("10.203.0.0/16", "10.203.0.12"),  # an alias's address, by subnet
    ("10.0.0.0/8", "10.200.0.12"),  # the first address in it
    ("eth1", None), ("ib", None), ("10.204.0.0/24", None),
])
def test_the_address_chosen_on_a_network(spec, address):
    assert network.choose(spec, NODE) == address


def test_an_alias_counts_as_its_interface():
    assert network.choose("ib0", [("eth0", "10.200.0.12"), ("ib0:1", "10.203.0.12")]) == \
        "10.203.0.12"


@pytest.mark.parametrize("value", ["ib0", " ib0 ", "10.202.0.0/24", "bond0.100", ""])
def test_good_values(tmp_path, value):
    assert load(tmp_path, HAM_NETWORK=value)["network"] == value.strip()


@pytest.mark.parametrize("value", ["10.202.0/33", "fd00::/64", "10.202.0.0/24x", "ib 0",
                                   "a-very-long-interface-name"])
def test_bad_values_are_one_line_errors(tmp_path, value):
    with pytest.raises(SettingsError, match="environment HAM_NETWORK: bad value .* for 'network': "
                                            "expected an interface name"):
        load(tmp_path, HAM_NETWORK=value)


def test_this_nodes_addresses_are_read():
    assert ("lo", "127.0.0.1") in network.local_addresses()
    assert network.describe(NODE) == "eth0 10.200.0.12, ib0 10.202.0.12, ib0:1 10.203.0.12"


def test_the_driver_listens_on_the_network_and_the_runners_are_told_so(tmp_path, monkeypatch):
    monkeypatch.setattr(network, "local_addresses", lambda: NODE)
    s = load(tmp_path, HAM_NETWORK="ib0")
    bind = session.network_address(s, {})
    assert bind == "10.202.0.12"
    # No route is looked up (slurm is not asked for the first node's address).
    assert session.driver_host(s, None, {"SLURM_JOB_NODELIST": "node[1-3]"}, bind) == bind
    told = load(tmp_path, HAM_NETWORK="ib0", HAM_DRIVER_ADDRESS="login-ib")
    assert session.driver_host(told, None, {}, bind) == "login-ib"
    assert session.network_address(load(tmp_path), {}) is None


def test_the_job_configuration_names_the_network_and_the_address_to_listen_on(tmp_path):
    jd = jobdir.JobDir(tmp_path / "job")
    s = load(tmp_path, HAM_NETWORK="10.202.0.0/24")
    mapred = jobconf.mapred_site(s, jd, framework="ham", driver_host="10.202.0.12", java="j",
                                 runner_classpath="cp", bind_host="10.202.0.12")
    assert mapred[c.NETWORK] == "10.202.0.0/24"
    assert mapred[c.DRIVER_BIND_HOST] == "10.202.0.12" == mapred[c.DRIVER_HOST]
    plain = jobconf.mapred_site(load(tmp_path), jd, framework="ham", driver_host="h", java="j",
                                runner_classpath="cp")
    assert c.NETWORK not in plain and c.DRIVER_BIND_HOST not in plain


def test_a_driver_node_without_the_network_is_refused_before_anything_is_made(tmp_path,
                                                                             monkeypatch):
    monkeypatch.setattr(network, "local_addresses", lambda: NODE[:2])

    class Running:
        def job(self, job_id: str) -> JobInfo:
            return JobInfo(job_id, "RUNNING")

    root = tmp_path / "shared"
    s = load(tmp_path, HAM_NETWORK="ib0", HAM_SHARED_ROOT=str(root))
    with pytest.raises(EnvironmentProblem) as err:
        session.prepare(s, Running(), {"SLURM_JOB_ID": "7", "SLURMD_NODENAME": "node1"})
    assert str(err.value) == ("node1 (the driver's node) has no address on network 'ib0' "
                              "(setting network, from environment HAM_NETWORK); its addresses: "
                              "eth0 10.200.0.12")
    assert not root.exists()  # no job directory

