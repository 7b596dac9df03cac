"""Shell code for `eval "$(ham env)"`: sh/bash/zsh and csh/tcsh flavours (pure functions)."""

from __future__ import annotations

import os
import shlex
from typing import Mapping

from ham import contract
from ham.errors import UsageError

SHELLS = {"sh": "sh", "bash": "sh", "zsh": "sh", "dash": "sh", "ksh": "sh",
          "csh": "csh", "tcsh": "csh"}
EXPORTED = (contract.ENV_JOB_DIR, "HADOOP_CONF_DIR", "HADOOP_CLASSPATH", "PATH")


def flavour(shell: str | None, env: Mapping[str, str]) -> str:
    name = os.path.basename(shell or env.get("SHELL", "sh"))
    if name not in SHELLS:
        raise UsageError(f"unknown shell '{name}': use --shell sh (bash, zsh) or --shell csh (tcsh)")
    return SHELLS[name]


def _csh_quote(value: str) -> str:
    # csh has no escape inside single quotes for '!' or newlines; refuse what it cannot carry.
    if "\n" in value:
        raise UsageError("a value with a newline cannot be exported to csh")
    return "'" + value.replace("'", "'\\''").replace("!", "\\!") + "'"


def exports(values: Mapping[str, str], shell: str) -> str:
    if shell == "csh":
        return "".join(f"setenv {k} {_csh_quote(v)};\n" for k, v in values.items())
    return "".join(f"export {k}={shlex.quote(v)};\n" for k, v in values.items())


def unsets(names: list[str], shell: str) -> str:
    word = "unsetenv" if shell == "csh" else "unset"
    return "".join(f"{word} {n};\n" for n in names)


def without(path_list: str, entry: str) -> str:
    """A colon list with every occurrence of entry removed."""
    return ":".join(p for p in path_list.split(":") if p and p != entry)
