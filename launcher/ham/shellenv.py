"""Shell code for `eval "$(ham env)"`: sh/bash/zsh and csh/tcsh flavours (pure functions)."""

from __future__ import annotations

import json
import os
import shlex
from typing import Mapping

from ham import contract
from ham.errors import UsageError
from ham.jobconf import HOME_ALIASES

SHELLS = {"sh": "sh", "bash": "sh", "zsh": "sh", "dash": "sh", "ksh": "sh",
          "csh": "csh", "tcsh": "csh"}
# What `ham env` exports: the job directory, what a Hadoop installation sets, and the client's
# JIT and class-data archive in HADOOP_CLIENT_OPTS (settings client_jit, client_cds). PATH and
# HADOOP_CLASSPATH are lists: --cleanup takes HAM's entries out of them (the user may have
# changed them since); the others get back the value they had before (RESTORE).
LISTS = ("HADOOP_CLASSPATH", "PATH")
VALUES = (contract.ENV_JOB_DIR, "HADOOP_CONF_DIR", "HADOOP_HOME", "HADOOP_MAPRED_HOME",
          *HOME_ALIASES, "JAVA_HOME", "HADOOP_CLIENT_OPTS")
EXPORTED = VALUES + LISTS
# Where `ham env` keeps what it changed, as JSON: {"values": {name: value before, or null when
# unset}, "path": [the PATH entries it added]}.
RESTORE = "HAM_ENV_RESTORE"


def exported(before: Mapping[str, str], after: Mapping[str, str]) -> dict[str, str]:
    """The variables to export, and RESTORE: what each replaced value was."""
    values = {k: after[k] for k in EXPORTED if k in after and after[k] != before.get(k)}
    old_path = before.get("PATH", "").split(":")
    added = [p for p in after.get("PATH", "").split(":") if p and p not in old_path]
    values[RESTORE] = json.dumps({"values": {k: before.get(k) for k in values if k in VALUES},
                                  "path": added})
    return values


def restored(env: Mapping[str, str]) -> dict[str, str | None]:
    """What undoes RESTORE: each variable's value, None to unset it (PATH: without the entries
    `ham env` added; HADOOP_CLASSPATH: without HAM's jar)."""
    try:
        saved = json.loads(env.get(RESTORE) or "{}")
        values, added = dict(saved.get("values", {})), list(saved.get("path", []))
    except (ValueError, AttributeError, TypeError):
        raise UsageError(f"{RESTORE} is not what `ham env` set: cannot restore the "
                         f"environment") from None
    path = env.get("PATH", "")
    for entry in added:
        path = without(path, entry)
    return {**values, contract.ENV_JOB_DIR: None, RESTORE: None, "HAM_JAR": None, "PATH": path,
            "HADOOP_CLASSPATH": without(env.get("HADOOP_CLASSPATH", ""), env.get("HAM_JAR", ""))}


def applied(changes: Mapping[str, str | None], shell: str) -> str:
    """Shell code that sets (or unsets, for None) each variable."""
    return unsets([k for k, v in changes.items() if v is None], shell) + \
        exports({k: v for k, v in changes.items() if v is not None}, shell)


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
