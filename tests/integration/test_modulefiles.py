"""`module load ham` as a site sets it up and a user meets it: HAM installed as docs/admin.md
says (`python3 -m venv PREFIX && PREFIX/bin/pip install CHECKOUT`), the site file and the
modulefiles written by examples/site-admin/setup.sh, real Lmod (Lua) and Environment Modules
(Tcl), a non-root user's login shell with the user's own Python first on PATH. The module must
add `ham` and nothing else: a streaming job whose mapper runs `python3` imports a package that
only the user's Python has."""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import DIST, REPO
from tests.integration.conftest import install_ham, session_dir
from tests.integration.test_non_root import USER
from tests.integration.test_runtime import REDUCER, STREAMING

LMOD = next(iter(glob.glob("/opt/ham-lmod/usr/share/lmod/*/libexec/lmod")), "")  # docker/install.sh
# Each module system's `module` in a login shell: Environment Modules' from /etc/profile.d
# (Debian's package), Lmod's defined as its init script does (it is unpacked, not installed).
MODULE_CMD = {"tcl": "", "lua": f'module() {{ eval "$({LMOD} bash "$@")"; }}\n'}
MODULE_DIR = {"tcl": "tcl", "lua": "lmod"}


@pytest.fixture(scope="module")
def site(cluster):
    """HAM installed in PREFIX (install_ham: readable by everyone), set up by setup.sh with a
    site file of this cluster's (shared_root mode 1777, the bundle of this checkout)."""
    base = session_dir("ham-module-")
    base.chmod(0o755)
    prefix = install_ham("opt-ham")
    root = base / "shared"
    root.mkdir()
    root.chmod(0o1777)
    site_file = prefix / "etc" / "ham" / "ham.toml"
    site_file.parent.mkdir(parents=True)
    site_file.write_text(f'shared_root = "{root}"\nbundle_dir = "{DIST}"\n')
    env = {k: v for k, v in os.environ.items() if not k.startswith("HAM_")}
    r = subprocess.run(["bash", str(REPO / "examples" / "site-admin" / "setup.sh"), str(prefix),
                        "--no-spank"], capture_output=True, text=True, timeout=300,
                       env={**env, "HAM_USER_CONFIG": "/dev/null"})
    assert r.returncode == 0, r.stdout + r.stderr
    assert f"kept       {site_file}" in r.stdout  # the site file is this test's, not the sample
    yield {"prefix": prefix, "root": root, "base": base, "site_file": site_file}
    shutil.rmtree(base, ignore_errors=True)


@pytest.fixture(scope="module")
def user_python(site):
    """The user's own Python: a venv of theirs with a module no other Python has."""
    home = site["base"] / "user"
    home.mkdir()
    shutil.chown(home, USER)
    venv = home / "venv"
    subprocess.run(["runuser", "-u", USER, "--", "/usr/bin/python3", "-m", "venv", "--without-pip",
                    str(venv)], check=True, timeout=300)
    purelib = subprocess.run([str(venv / "bin" / "python3"), "-c",
                              "import sysconfig; print(sysconfig.get_path('purelib'))"],
                             check=True, capture_output=True, text=True).stdout.strip()
    pkg = Path(purelib) / "hamtestpkg.py"
    pkg.write_text('def key(word):\n    return "user:" + word.upper()\n')
    shutil.chown(pkg, USER)
    return venv


def login_shell(kind: str, site: dict, venv: Path, body: str, cwd: Path,
                timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """body in the user's login shell (`bash -l`: /etc/profile and /etc/profile.d), after the
    user activated their venv and loaded the module; nothing of this test's environment but
    the cluster's SLURM_CONF."""
    script = (f"set -e\n. {venv}/bin/activate\n{MODULE_CMD[kind]}"
              f"module use {site['prefix'] / 'modulefiles' / MODULE_DIR[kind]}\n"
              "module load ham\n" + body)
    return subprocess.run(["runuser", "-u", USER, "--", "env", "-i", f"HOME=/home/{USER}",
                           f"USER={USER}", "PATH=/usr/bin:/bin",
                           f"SLURM_CONF={os.environ['SLURM_CONF']}", "bash", "-l", "-c", script],
                          capture_output=True, text=True, cwd=cwd, timeout=timeout)


@pytest.mark.parametrize("kind", ["lua", "tcl"])
def test_module_puts_only_ham_on_path(site, user_python, kind):
    r = login_shell(kind, site, user_python, 'printf "%s\\n" "$PATH" "$(command -v python3)" '
                    '"$(command -v ham)" "$HAM_SITE_CONFIG"; ham --version; '
                    "ham config show | grep -w shared_root; env | grep -c ^HAM_ || true",
                    cwd=site["base"])
    assert r.returncode == 0, r.stdout + r.stderr
    path, python3, ham, site_config, version, shown, ham_vars = r.stdout.splitlines()
    bin_dir = site["prefix"] / "share" / "ham" / "bin"
    assert path.split(":")[:2] == [str(bin_dir), str(user_python / "bin")]
    assert sorted(os.listdir(bin_dir)) == ["ham"]
    assert str(site["prefix"] / "bin") not in path.split(":")
    assert python3 == str(user_python / "bin" / "python3")
    assert ham == str(bin_dir / "ham")
    assert site_config == str(site["site_file"])
    assert version.startswith("ham, version ")
    assert f'"{site["root"]}"' in shown and shown.rstrip().endswith(f"site file {site['site_file']}")
    assert ham_vars == "1"  # HAM_SITE_CONFIG, nothing else of HAM's


def test_module_of_a_hostile_site_file_path_loads(site, tmp_path):
    """The site file's path reaches both module systems unchanged (quoting of $, ", [ and
    spaces), and the module's `ham` reads it."""
    hostile = site["base"] / 'my "site" $HOME [x].toml'
    hostile.write_text('partition = "from-hostile"\n')
    for kind in ("lua", "tcl"):
        r = subprocess.run([str(site["prefix"] / "bin" / "ham"), "admin", "modulefile", "--format",
                            kind, "--site-config", str(hostile)], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        (tmp_path / kind / "ham").mkdir(parents=True)
        (tmp_path / kind / "ham" / ("0.1.0.lua" if kind == "lua" else "0.1.0")).write_text(r.stdout)
        load = f'eval "$({LMOD} bash load ham)"' if kind == "lua" else 'eval "$(modulecmd bash load ham)"'
        shown = subprocess.run(["bash", "-c", f'{load} && printf "%s\\n" "$HAM_SITE_CONFIG" && '
                                "ham config show | grep -w partition"],
                               capture_output=True, text=True,
                               env={"MODULEPATH": str(tmp_path / kind), "PATH": "/usr/bin:/bin",
                                    "HOME": str(tmp_path)})
        assert shown.returncode == 0, shown.stderr
        path, partition = shown.stdout.splitlines()
        assert path == str(hostile)
        assert '"from-hostile"' in partition


USER_MAPPER = """import sys
import hamtestpkg  # only the user's own Python has it
for line in sys.stdin:
    for word in line.split():
        print(f"{hamtestpkg.key(word)}\\t1")
"""


def test_streaming_job_from_a_login_shell_uses_the_users_python(site, user_python):
    work = site["base"] / "work"
    (work / "in").mkdir(parents=True)
    words = {}
    for i in range(4):
        text = " ".join(f"w{(i * 7 + j) % 13}" for j in range(200))
        (work / "in" / f"f{i}").write_text(text)
        for w in text.split():
            words[f"user:{w.upper()}"] = words.get(f"user:{w.upper()}", 0) + 1
    (work / "mapper.py").write_text(USER_MAPPER)
    (work / "reducer.py").write_text(REDUCER)
    for p in [work, *work.rglob("*")]:
        shutil.chown(p, USER)
    r = login_shell("tcl", site, user_python,
                    f"ham run -N 2 -- hadoop jar {STREAMING} -files mapper.py,reducer.py "
                    "-mapper 'python3 mapper.py' -reducer 'python3 reducer.py' "
                    "-input in -output out\n", cwd=work, timeout=600)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-5000:]
    counts = {}
    for part in sorted((work / "out").glob("part-*")):
        for line in part.read_text().splitlines():
            w, n = line.split("\t")
            counts[w] = int(n)
    assert counts == words
    # The job ran as the user (its maps' logs are theirs).
    job_dir = next(d for d in (site["root"] / USER).iterdir() if d.name.isdigit())
    logs = list(job_dir.glob("jobs/*/logs/attempt_*_m_*.syslog"))
    assert logs and all(p.owner() == USER for p in logs)
