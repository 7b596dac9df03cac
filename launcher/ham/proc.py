"""The one place where HAM runs external commands (argv lists only, never a shell): `run` to
capture a command's output, `spawn` to start one HAM supervises, `call` to hand the terminal to
one and get its exit status, `replace` to become one (exec)."""

from __future__ import annotations

import logging
import os
import subprocess
from typing import Any, Mapping, NoReturn

from ham.errors import CommandError, EnvironmentProblem

log = logging.getLogger(__name__)

# What callers of spawn pass or catch, so that no module but this one imports subprocess
# (tests/unit/test_proc.py checks that).
CompletedProcess = subprocess.CompletedProcess
DEVNULL = subprocess.DEVNULL
PIPE = subprocess.PIPE
Popen = subprocess.Popen
TimeoutExpired = subprocess.TimeoutExpired


def run(
    argv: list[str],
    *,
    env: Mapping[str, str] | None = None,
    input: str | None = None,
    timeout: float | None = 60,
    check: bool = True,
    hint: str = "",
) -> subprocess.CompletedProcess[str]:
    """Run argv, capture text output; raise CommandError (argv, code, stdout, stderr) on failure."""
    log.debug("run %s", argv)
    try:
        proc = subprocess.run(
            argv,
            env=dict(env) if env is not None else None,
            input=input,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
    except FileNotFoundError:
        raise _not_found(argv, hint) from None
    except subprocess.TimeoutExpired:
        raise CommandError(argv, -1, "", f"timed out after {timeout} s", hint) from None
    if check and proc.returncode != 0:
        raise CommandError(argv, proc.returncode, proc.stdout, proc.stderr, hint)
    return proc


def _not_found(argv: list[str], hint: str) -> EnvironmentProblem:
    return EnvironmentProblem(f"command not found: {argv[0]}{'; ' + hint if hint else ''}")


def spawn(argv: list[str], *, env: Mapping[str, str] | None = None, hint: str = "",
          **popen: Any) -> subprocess.Popen:
    """Start argv and return at once; the caller waits for it (popen: Popen's own options)."""
    log.debug("spawn %s", argv)
    try:
        return subprocess.Popen(argv, env=dict(env) if env is not None else None, **popen)
    except FileNotFoundError:
        raise _not_found(argv, hint) from None


def call(argv: list[str], *, env: Mapping[str, str] | None = None, hint: str = "") -> int:
    """Run argv on this terminal (stdin, stdout and stderr inherited); return its exit status."""
    child = spawn(argv, env=env, hint=hint)
    return child.wait()


def replace(argv: list[str], *, env: Mapping[str, str] | None = None,
            hint: str = "") -> NoReturn:
    """Become argv (exec; a bare name is looked up on env's PATH): its signals and exit status
    are the caller's own."""
    log.debug("exec %s", argv)
    try:
        if env is None:
            os.execvp(argv[0], argv)
        os.execvpe(argv[0], argv, dict(env))
    except FileNotFoundError:
        raise _not_found(argv, hint) from None
