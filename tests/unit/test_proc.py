"""proc.py is the one place where the launcher runs external commands (docs/architecture.md):
no other module imports subprocess, starts a process with os.exec*/os.system/os.popen/os.spawn*,
or forks. Read from each module's syntax tree, so a comment or a string naming them is no
violation and an alias (`import os as o`, `from os import execv`) is one."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from tests.conftest import REPO

LAUNCHER = REPO / "launcher" / "ham"
OS_RUNS = re.compile(r"^(exec\w*|system|popen|spawn\w*|posix_spawn\w*|fork\w*)$")


def violations(source: str, imports_allowed: bool = False) -> list[str]:
    """What in this module's source runs a command other than through proc (line: what)."""
    tree = ast.parse(source)
    os_names = {"os"}  # the names the os module goes by in this module
    subprocess_names = set()
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == "os":
                    os_names.add(alias.asname or "os")
                elif alias.name == "subprocess":
                    subprocess_names.add(alias.asname or "subprocess")
                    if not imports_allowed:
                        found.append(f"{node.lineno}: import subprocess")
        elif isinstance(node, ast.ImportFrom):
            if node.module == "subprocess":
                found.append(f"{node.lineno}: from subprocess import ...")
            elif node.module == "os":
                found += [f"{node.lineno}: from os import {a.name}" for a in node.names
                          if OS_RUNS.match(a.name)]
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            if node.value.id in os_names and OS_RUNS.match(node.attr):
                found.append(f"{node.lineno}: {node.value.id}.{node.attr}")
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and isinstance(node.func.value, ast.Name)
                and node.func.value.id in subprocess_names):
            found.append(f"{node.lineno}: {node.func.value.id}.{node.func.attr}(...)")
    return sorted(set(found))


def test_no_module_but_proc_runs_commands():
    modules = sorted(LAUNCHER.rglob("*.py"))
    assert LAUNCHER / "cli" / "run_cmd.py" in modules  # the walk reaches the CLI package
    bad = {}
    for path in modules:
        name = str(path.relative_to(LAUNCHER))
        if name == "proc.py":
            continue
        found = violations(path.read_text())
        if found:
            bad[name] = found
    assert not bad, f"run external commands through ham.proc: {bad}"


def test_the_check_sees_each_way_of_running_a_command_and_not_comments():
    assert violations("import subprocess\n") == ["1: import subprocess"]
    assert violations("from subprocess import run\n") == ["1: from subprocess import ..."]
    assert violations("import subprocess as sp\nsp.run(['ls'])\n",
                      imports_allowed=True) == ["2: sp.run(...)"]
    assert violations("import subprocess\nx: subprocess.Popen\n", imports_allowed=True) == []
    for call in ("execvpe(a[0], a, e)", "execv(a[0], a)", "system('ls')", "popen('ls')",
                 "spawnlp(0, 'ls', 'ls')", "posix_spawn('ls', [], {})", "fork()", "forkpty()"):
        assert violations(f"import os\nos.{call}\n") == [f"2: os.{call.split('(')[0]}"]
    assert violations("import os as o\no.execv(a[0], a)\n") == ["2: o.execv"]
    assert violations("from os import execvp\n") == ["1: from os import execvp"]
    assert violations("import os\nos.kill(1, 9)\nos.environ\n") == []
    assert violations("# subprocess.run and os.execv, in a comment\n"
                      "'import subprocess; os.system(x)'\n") == []
