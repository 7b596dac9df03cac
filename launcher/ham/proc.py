"""The one place where HAM runs external commands (argv lists only, never a shell)."""

from __future__ import annotations

import logging
import subprocess
from typing import Mapping

from ham.errors import CommandError, EnvironmentProblem

log = logging.getLogger(__name__)


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
        raise EnvironmentProblem(f"command not found: {argv[0]}{'; ' + hint if hint else ''}") from None
    except subprocess.TimeoutExpired:
        raise CommandError(argv, -1, "", f"timed out after {timeout} s", hint) from None
    if check and proc.returncode != 0:
        raise CommandError(argv, proc.returncode, proc.stdout, proc.stderr, hint)
    return proc
