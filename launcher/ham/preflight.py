"""Checks made before anything is asked of Slurm, so bad input costs nothing and leaves nothing."""

from __future__ import annotations

import os
import shutil
from typing import Mapping

from ham import jobdir
from ham.errors import UsageError
from ham.hadoop import find_hadoop, ham_jar
from ham.java import check_java, java_binary
from ham.settings import Settings


def check(settings: Settings, command: list[str], env: Mapping[str, str] | None = None) -> None:
    env = os.environ if env is None else env
    if not command:
        raise UsageError("no command given: put it after `--`, e.g. `ham run -- hadoop jar app.jar ...`")
    check_java(java_binary(settings["java_home"], env))
    find_hadoop(settings, env)
    if settings["framework"] == "ham":
        ham_jar(settings)
    jobdir.check_shared_root(settings["shared_root"])
    # `hadoop` is provided by HAM inside the job; anything else must exist already.
    if command[0] != "hadoop" and shutil.which(command[0], path=env.get("PATH")) is None:
        raise UsageError(f"command not found: {command[0]} (check the command after `--`)")
    if command[0] in ("hadoop", "ham") and len(command) > 2 and command[1] == "jar":
        jar = command[2]
        if not os.path.isfile(jar):
            raise UsageError(f"jar file not found: {jar}")
        if not os.access(jar, os.R_OK):
            raise UsageError(f"jar file not readable: {jar}")
