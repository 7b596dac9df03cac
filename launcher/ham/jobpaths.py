"""The input and output paths of jobs whose arguments HAM understands (Hadoop Streaming and the
programs of hadoop-mapreduce-examples), so that a missing input or an existing output is
refused before Slurm is asked, as Hadoop itself would refuse them once the job starts.

Jobs HAM cannot read (your own jar) are left to Hadoop's own checks at job start."""

from __future__ import annotations

import glob
import os
from dataclasses import dataclass, field

from ham.errors import UsageError
from ham.fspaths import Resolver

# Hadoop's generic options (GenericOptionsParser) that take a value as the next argument.
GENERIC_WITH_VALUE = {"-D", "-conf", "-fs", "-jt", "-files", "-libjars", "-archives",
                      "-tokenCacheFile"}

# Example program -> how its positional arguments name paths:
# "ins,out": all but the last are inputs, the last is the output (wordcount takes several inputs);
# "in,out": the first two are input and output (further arguments are not paths);
# "n,out": the second is the output (generators: the first is a count);
# "out": the last is the output.
EXAMPLES = {
    "wordcount": "ins,out", "wordmean": "in,out", "wordmedian": "in,out",
    "wordstandarddeviation": "in,out", "grep": "in,out", "terasort": "in,out",
    "teravalidate": "in,out", "secondarysort": "in,out", "multifilewc": "in,out",
    "teragen": "n,out", "randomwriter": "out", "randomtextwriter": "out",
}


@dataclass
class JobPaths:
    inputs: list[str] = field(default_factory=list)
    output: str | None = None


def sets_own_file_system(args: list[str]) -> bool:
    """Whether the job's generic options choose its default file system themselves (`-fs`,
    `-D fs.defaultFS=...`, or a `-conf` file, such as a core-site.xml kept from HAL): where
    its paths are is then the job's business, and HAM does not check them."""
    for i, arg in enumerate(args):
        nxt = args[i + 1] if i + 1 < len(args) else ""
        if arg in ("-fs", "-conf") or arg.startswith("-Dfs.defaultFS=") or \
                (arg == "-D" and nxt.startswith("fs.defaultFS=")):
            return True
    return False


def paths_of(command: list[str]) -> JobPaths:
    """The paths named by `hadoop jar JAR ...` (or `yarn jar`) for jobs HAM understands; empty
    otherwise."""
    if len(command) < 4 or command[:2] not in (["hadoop", "jar"], ["yarn", "jar"]):
        return JobPaths()
    jar, args = os.path.basename(command[2]), command[3:]
    if sets_own_file_system(args):
        return JobPaths()
    if jar.startswith("hadoop-streaming"):
        return _streaming(args)
    if jar.startswith("hadoop-mapreduce-examples") and args[0] in EXAMPLES:
        return _example(EXAMPLES[args[0]], _positional(args[1:]))
    return JobPaths()


def _positional(args: list[str]) -> list[str]:
    """args without generic options (and program options such as `-outFormat CLASS`)."""
    out, skip = [], False
    for arg in args:
        if skip:
            skip = False
        elif arg in GENERIC_WITH_VALUE or (arg.startswith("-") and not arg.startswith("-D")):
            skip = True
        elif not arg.startswith("-"):
            out.append(arg)
    return out


def _example(shape: str, pos: list[str]) -> JobPaths:
    if shape == "ins,out" and len(pos) >= 2:
        return JobPaths(pos[:-1], pos[-1])
    if shape == "in,out" and len(pos) >= 2:
        return JobPaths([pos[0]], pos[1])
    if shape == "n,out" and len(pos) >= 2:
        return JobPaths([], pos[1])
    if shape == "out" and pos:
        return JobPaths([], pos[-1])
    return JobPaths()  # a usage error the program itself will print


def _streaming(args: list[str]) -> JobPaths:
    paths = JobPaths()
    for flag, value in zip(args, args[1:]):
        if flag == "-input":
            paths.inputs.extend(v for v in value.split(",") if v)
        elif flag == "-output":
            paths.output = value
    return paths


def _exists(local: str) -> bool:
    if "{" in local:
        return True  # Hadoop's {a,b} globs: left to Hadoop
    if glob.has_magic(local):
        return bool(glob.glob(local))
    return os.path.exists(local)


def check(command: list[str], cwd: str, inputs_may_appear: bool = False,
          resolver: Resolver | None = None) -> None:
    """Refuse a missing input (unless inputs_may_appear: a job that waits for another one)
    or an existing output, as Hadoop would once the job runs. resolver says where the job's
    paths are (default: file:///, relative to cwd); paths on other file systems are not checked."""
    resolver = resolver or Resolver(cwd=cwd)
    relative_to = os.path.normpath(resolver.local(".") or cwd)
    paths = paths_of(command)
    for given in [] if inputs_may_appear else paths.inputs:
        local = resolver.local(given)
        if local is not None and not _exists(local):
            raise UsageError(f"input path does not exist: {given} (check the job's arguments; "
                             f"relative paths are taken from {relative_to})")
    if paths.output is not None:
        local = resolver.local(paths.output)
        if local is not None and os.path.lexists(local):
            raise UsageError(f"output path already exists: {paths.output} (Hadoop never "
                             "overwrites a job's output: remove it or choose another path)")
