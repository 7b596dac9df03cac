"""The Docker compose cluster and the native test cluster render their Slurm configuration from
the same templates and script (render-conf.sh): both are rendered here and compared. The compose
cluster itself runs in tests/integration/test_compose_cluster.py."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

DOCKER = Path(__file__).resolve().parents[2] / "docker"

# What may differ between the two: where each keeps its state, and how its hosts and ports are
# named. Everything else (plugins, scheduling, timeouts, accounting) must be the same.
SITE_KEYS = {
    "slurm.conf": {"SlurmctldHost", "SlurmctldPort", "SlurmdPort", "AuthInfo", "StateSaveLocation",
                   "SlurmdSpoolDir", "SlurmctldPidFile", "SlurmdPidFile", "SlurmctldLogFile",
                   "SlurmdLogFile", "AccountingStorageHost", "AccountingStoragePort",
                   "AccountingStoragePass", "PlugStackConfig"},
    "slurmdbd.conf": {"AuthInfo", "DbdAddr", "DbdHost", "DbdPort", "PidFile", "LogFile",
                      "StorageHost", "StoragePort", "StoragePass"},
    "cgroup.conf": set(),
}


def settings(conf: Path) -> dict[str, str]:
    """KEY=VALUE lines, NodeName lines excepted."""
    pairs = [line.split("=", 1) for line in conf.read_text().splitlines()
             if line and not line.startswith(("#", "NodeName=")) and "=" in line]
    keys = [k for k, _ in pairs]
    assert len(keys) == len(set(keys)), f"a key set twice in {conf}"
    return dict(pairs)


def nodes(conf: Path) -> dict[str, dict[str, str]]:
    """NodeName -> its attributes, the address left out (each cluster has its own network)."""
    out = {}
    for line in conf.read_text().splitlines():
        if line.startswith("NodeName="):
            attrs = dict(word.split("=", 1) for word in line.split())
            attrs.pop("NodeAddr")
            out[attrs.pop("NodeName")] = attrs
    return out


@pytest.fixture(scope="module")
def rendered(tmp_path_factory) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("conf")
    env = {"PATH": "/usr/bin:/bin"}
    subprocess.run(["bash", str(DOCKER / "entrypoint.sh"), "render"], check=True,
                   env={**env, "HAM_STATE": str(base / "compose-state"),
                        "HAM_CONF": str(base / "compose")})
    subprocess.run(["bash", str(DOCKER / "cluster.sh"), "render", str(base / "native"),
                    "--plugstack", "/etc/ham/plugstack.conf"], check=True,
                   env={**env, "HAM_CLUSTER_DIR": str(base / "native-state")})
    return {"compose": base / "compose", "native": base / "native"}


def test_every_placeholder_filled(rendered):
    template_keys = {line.split("=", 1)[0]
                     for line in (DOCKER / "slurm.conf.in").read_text().splitlines()
                     if line and not line.startswith(("#", "@")) and "=" in line}
    for d in rendered.values():
        for name in SITE_KEYS:
            text = (d / name).read_text()
            assert "@" not in text.replace("\n#", ""), f"{d / name} has an unfilled placeholder"
        assert template_keys <= set(settings(d / "slurm.conf"))
        assert (d / "slurmdbd.conf").stat().st_mode & 0o777 == 0o600


@pytest.mark.parametrize("name", sorted(SITE_KEYS))
def test_compose_and_native_configs_agree(rendered, name):
    compose, native = settings(rendered["compose"] / name), settings(rendered["native"] / name)
    assert set(compose) == set(native)
    differ = {k for k in compose if compose[k] != native[k]}
    assert differ <= SITE_KEYS[name], {k: (compose[k], native[k]) for k in differ - SITE_KEYS[name]}


def test_same_nodes_with_same_resources(rendered):
    compose, native = nodes(rendered["compose"] / "slurm.conf"), nodes(rendered["native"] / "slurm.conf")
    assert list(compose) == ["node1", "node2", "node3"]
    assert compose == native


def test_compose_cluster_loads_the_spank_plugin(rendered):
    assert settings(rendered["compose"] / "slurm.conf")["PlugStackConfig"] == \
        str(rendered["compose"] / "plugstack.conf")
    words = (rendered["compose"] / "plugstack.conf").read_text().split()
    assert words[0] == "required" and words[1].endswith("/ham_spank.so")
    assert words[2].startswith("root=/")


def test_compose_file_and_image_use_the_shared_scripts():
    import yaml

    compose = yaml.safe_load((DOCKER / "compose.yml").read_text())
    assert set(compose["services"]) == {"db", "controller", "node1", "node2", "node3"}
    assert {s["hostname"] for s in compose["services"].values()} == set(compose["services"])
    # Its own subnet: the native cluster's bridge (10.200.0.0/24) may run beside it.
    subnet = compose["networks"]["ham"]["ipam"]["config"][0]["subnet"]
    assert not subnet.startswith("10.200.0.")
    dockerfile = (DOCKER / "Dockerfile").read_text()
    assert "docker/entrypoint.sh" in dockerfile
    assert "render-conf.sh" in (DOCKER / "entrypoint.sh").read_text()
    assert "render-conf.sh" in (DOCKER / "cluster.sh").read_text()
    # The build context keeps what the image copies and leaves the rest (.git, .venv) out.
    ignore = (DOCKER.parent / ".dockerignore").read_text().splitlines()
    assert "*" in ignore and "!mapreduce/target/dist" in ignore
    assert {"!docker/entrypoint.sh", "!docker/render-conf.sh", "!docker/*.in"} <= set(ignore)


def test_compose_sh_bad_command_is_one_usage_message():
    r = subprocess.run(["bash", str(DOCKER / "compose.sh"), "bogus"], capture_output=True, text=True)
    assert r.returncode == 2 and "compose.sh up" in r.stdout and "Traceback" not in r.stderr


def test_entrypoint_unknown_role_is_one_line(tmp_path):
    r = subprocess.run(["bash", str(DOCKER / "entrypoint.sh"), "login"], capture_output=True,
                       text=True, env={"PATH": "/usr/bin:/bin", "HAM_CONF": str(tmp_path / "etc")})
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "unknown role 'login'" in r.stderr
    assert not (tmp_path / "etc").exists()  # nothing written
