"""The SPANK plugin's directory logic (C, slurm-plugins/ham_dirs.c): its unit tests, built with
-Wall -Wextra -Werror, and the plugin itself builds warning-free."""

from __future__ import annotations

import subprocess
from pathlib import Path

PLUGINS = Path(__file__).resolve().parents[2] / "slurm-plugins"


def test_c_unit_tests_pass():
    r = subprocess.run(["make", "-s", "-B", "-C", str(PLUGINS), "test"], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.strip().endswith("0 failed")


def test_plugin_builds_without_warnings():
    r = subprocess.run(["make", "-B", "-C", str(PLUGINS), "ham_spank.so"], capture_output=True, text=True)
    assert r.returncode == 0 and "warning" not in r.stderr, r.stderr
