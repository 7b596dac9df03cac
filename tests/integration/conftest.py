from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration


def run_ham(*args: str, env: dict[str, str] | None = None, cwd: Path | None = None,
            timeout: float = 600) -> subprocess.CompletedProcess[str]:
    """Run the real `ham` CLI as a user would (a separate process)."""
    full = {**os.environ, **(env or {})}
    return subprocess.run([sys.executable, "-m", "ham", *args], capture_output=True, text=True,
                          env=full, cwd=cwd, timeout=timeout)


@pytest.fixture
def shared_root(tmp_path: Path) -> Path:
    """A fresh shared root; the test cluster's nodes see this machine's file system."""
    root = tmp_path / "shared"
    root.mkdir()
    return root
