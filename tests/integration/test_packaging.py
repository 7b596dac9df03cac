"""`pip install .` ships the package and its Jinja2 templates (not only the editable install)."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_wheel_contains_package_and_templates(tmp_path):
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(tmp_path),
                    str(REPO)], check=True, capture_output=True, timeout=300)
    wheel = next(tmp_path.glob("ham_launcher-*.whl"))
    names = set(zipfile.ZipFile(wheel).namelist())
    for template in ("site.xml.j2", "sbatch.sh.j2", "hadoop-shim.sh.j2", "log4j.properties.j2",
                     "modulefile.lua.j2", "modulefile.tcl.j2"):
        assert f"ham/templates/{template}" in names
    assert {"ham/cli/main.py", "ham/slurm.py", "ham/contract.py", "ham/settle.py"} <= names
    entry = next(n for n in names if n.endswith("entry_points.txt"))
    assert "ham = ham.cli.main:main" in zipfile.ZipFile(wheel).read(entry).decode()
    # <prefix>/share/ham/bin/ham, executable: the modulefile's PATH directory (`ham` alone).
    wrapper = next(n for n in names if n.endswith(".data/data/share/ham/bin/ham"))
    assert zipfile.ZipFile(wheel).getinfo(wrapper).external_attr >> 16 & 0o111
    assert [n for n in names if "/share/ham/bin/" in n] == [wrapper]
