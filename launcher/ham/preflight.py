"""Checks made before anything is asked of Slurm, so bad input costs nothing and leaves nothing."""

from __future__ import annotations

import os
import shutil
from typing import Mapping

from ham import fspaths, jobdir, nohdfs
from ham.errors import UsageError
from ham.hadoop import COMMANDS, check_jar, find_hadoop, ham_jar
from ham.java import check_java, java_binary
from ham.settings import Settings


def check(settings: Settings, command: list[str], env: Mapping[str, str] | None = None) -> None:
    env = os.environ if env is None else env
    if not command:
        raise UsageError("no command given: put it after `--`, e.g. `ham run -- hadoop jar app.jar ...`")
    check_java(java_binary(settings["java_home"], env), env)
    find_hadoop(settings, env)
    if settings["framework"] == "ham":
        ham_jar(settings)
    jobdir.check_shared_root(settings["shared_root"])
    fspaths.check_lustre_root(settings)
    # hadoop, mapred, yarn and hdfs are provided by HAM inside the job; anything else must
    # exist already.
    if command[0] not in COMMANDS and shutil.which(command[0], path=env.get("PATH")) is None:
        raise UsageError(f"command not found: {command[0]} (check the command after `--`)")
    if command[0] in COMMANDS:
        nohdfs.check(command, nohdfs.default_fs(settings))
        nohdfs.check_user_home(command, nohdfs.default_fs(settings))
    if command[0] in ("hadoop", "yarn") and len(command) > 2 and command[1] == "jar":
        check_jar(command[2])
        check_generic_options(command[3:])


def check_generic_options(args: list[str]) -> None:
    """Hadoop's GenericOptionsParser takes `-D key=value` or `-Dkey=value`; anything else after
    -D fails only once the job runs, so catch it here."""
    for i, arg in enumerate(args):
        if arg == "-D":
            value = args[i + 1] if i + 1 < len(args) else ""
        elif arg.startswith("-D") and not arg.startswith("--"):
            value = arg[2:]
        else:
            continue
        if "=" not in value or value.startswith("="):
            raise UsageError(f"malformed generic option {arg} {value if arg == '-D' else ''}"
                             f"".rstrip() + ": write -D key=value")


def check_partition(partition: str, known: list[str]) -> None:
    if partition and known and partition not in known:
        raise UsageError(f"unknown partition '{partition}' (this cluster has: "
                         f"{', '.join(known)}); fix -p/--partition or the partition setting")
