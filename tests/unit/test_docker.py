"""The Docker compose cluster renders its slurm.conf from the same template and script as the
native test cluster (no Docker engine runs here, so this is what can be checked)."""

from __future__ import annotations

import subprocess
from pathlib import Path

DOCKER = Path(__file__).resolve().parents[2] / "docker"


def keys(conf: Path) -> set[str]:
    return {line.split("=", 1)[0] for line in conf.read_text().splitlines()
            if line and not line.startswith("#") and "=" in line}


def test_entrypoint_renders_from_the_shared_template(tmp_path):
    subprocess.run(["bash", str(DOCKER / "entrypoint.sh"), "render"], check=True,
                   env={"HAM_STATE": str(tmp_path), "PATH": "/usr/bin:/bin"})
    conf = (tmp_path / "etc" / "slurm.conf").read_text()
    assert "@" not in conf.replace("\n#", "")  # every placeholder filled
    assert [line.split()[0] for line in conf.splitlines() if line.startswith("NodeName=")] == \
        ["NodeName=node1", "NodeName=node2", "NodeName=node3"]
    template = {line.split("=", 1)[0] for line in (DOCKER / "slurm.conf.in").read_text().splitlines()
                if line and not line.startswith(("#", "@")) and "=" in line}
    assert template <= keys(tmp_path / "etc" / "slurm.conf")
    assert (tmp_path / "etc" / "slurmdbd.conf").stat().st_mode & 0o777 == 0o600


def test_compose_and_dockerfile_use_the_shared_scripts():
    import yaml

    compose = yaml.safe_load((DOCKER / "compose.yml").read_text())
    assert {"controller", "node1", "node2", "node3"} <= set(compose["services"])
    dockerfile = (DOCKER / "Dockerfile").read_text()
    assert "docker/entrypoint.sh" in dockerfile
    assert "render-conf.sh" in (DOCKER / "entrypoint.sh").read_text()
    assert "render-conf.sh" in (DOCKER / "cluster.sh").read_text()
