"""`module load ham` with real Lmod (Lua) and Environment Modules (Tcl) modulefiles rendered
by `ham admin modulefile`, with a hostile site-config path."""

from __future__ import annotations

import glob
import subprocess
import sys
from pathlib import Path

import pytest

from tests.integration.conftest import run_ham

SITE = '/etc/ham/my "site" $HOME [x].toml'


def load_with(kind: str, modulepath: Path) -> str:
    if kind == "lua":
        lmod = glob.glob("/opt/ham-lmod/usr/share/lmod/*/libexec/lmod")[0]
        cmd = f'eval "$({lmod} bash load ham)"'
    else:
        cmd = 'eval "$(modulecmd bash load ham)"'
    script = f'{cmd} && printf "%s\\n%s\\n" "$HAM_SITE_CONFIG" "$(command -v ham)"'
    r = subprocess.run(["bash", "-c", script], capture_output=True, text=True,
                       env={"MODULEPATH": str(modulepath), "PATH": "/usr/bin:/bin", "HOME": "/root"})
    assert r.returncode == 0, r.stderr
    return r.stdout


@pytest.mark.parametrize("kind", ["lua", "tcl"])
def test_module_load_ham(tmp_path, kind):
    r = run_ham("admin", "modulefile", "--format", kind, "--site-config", SITE)
    assert r.returncode == 0, r.stderr
    (tmp_path / "ham").mkdir()
    (tmp_path / "ham" / ("0.1.0.lua" if kind == "lua" else "0.1.0")).write_text(r.stdout)
    site, ham = load_with(kind, tmp_path).splitlines()
    assert site == SITE
    assert Path(ham).parent == Path(sys.executable).parent
