"""HAM has no HDFS: `hdfs://` paths fail with one line that names the scheme to use, and
HDFS's home directories (/user/<name>) exist only where the file system has them.

Three places say it, so that it holds whoever names the path:
- `ham run` / `ham submit` refuse a command whose arguments hold an hdfs:// path, before Slurm
  is asked (`check`);
- the job's `hadoop`, `mapred`, `yarn` and `hdfs` (shims in the job directory) refuse such an
  argument before Java starts (`refusal`, rendered into the shim);
- the job's core-site.xml maps the hdfs scheme to HAM's HdfsRefused file system, which fails
  with the same words: this covers paths a program builds itself or reads from its
  configuration, and tools that call $HADOOP_HOME/bin/hadoop directly.
"""

from __future__ import annotations

import os
import re
from typing import Any, Mapping

from ham import contract as c
from ham.errors import UsageError

# The file system class that refuses hdfs:// (common/HdfsRefused.java).
REFUSING_FS = "io.github.ham.mapreduce.common.HdfsRefused"
REFUSING_AFS = "io.github.ham.mapreduce.common.HdfsRefused$Afs"

# An argument that is, or holds in a list or a -D value, an hdfs: path.
_HDFS_ARG = re.compile(r"(^|[=,])hdfs:", re.IGNORECASE)


def default_fs(settings: Mapping[str, Any]) -> str:
    """The jobs' fs.defaultFS: lustre:/// with filesystem = lustre, else file:///."""
    return f"{c.LUSTRE_SCHEME}:///" if settings.get("filesystem") == c.LUSTRE_SCHEME else "file:///"


def refusal(fs_default: str) -> str:
    """The words after the path (HdfsRefused.java says the same)."""
    scheme = fs_default.split(":", 1)[0]
    schemes = "file://" if scheme == "file" else f"{scheme}:// or file://"
    return (f"HAM has no HDFS: name files on the shared file system with {schemes} paths, or "
            f"paths without a scheme (fs.defaultFS is {fs_default})")


def core_site() -> dict[str, str]:
    """The keys that make Hadoop refuse hdfs:// in the job's JVMs (FileSystem and FileContext)."""
    return {"fs.hdfs.impl": REFUSING_FS, "fs.AbstractFileSystem.hdfs.impl": REFUSING_AFS,
            # No cached instance of a real HDFS client from elsewhere in the JVM.
            "fs.hdfs.impl.disable.cache": "true"}


def check(command: list[str], fs_default: str) -> None:
    """Refuse a command whose arguments name an hdfs:// path, in one line."""
    for arg in command[1:]:
        if _HDFS_ARG.search(arg):
            raise UsageError(f"{arg}: {refusal(fs_default)}")


# /user/<name>/... as an HDFS user types it (also as file:///user/<name>/...).
_USER_PATH = re.compile(r"^(?:file://)?(/user/[^/,]+)(?:/|$)")


def check_user_home(command: list[str], fs_default: str) -> None:
    """With fs.defaultFS file:///, /user/<name>/... is a path on the mounts like any other;
    refuse it in one line when /user/<name> is not there (Hadoop would fail once the job runs).
    With lustre:/// it is under lustre_root, and relative paths go there (the lustre branch)."""
    if not fs_default.startswith("file:"):
        return
    for arg in command[1:]:
        m = _USER_PATH.match(arg)
        if m and not os.path.isdir(m.group(1)):
            raise UsageError(
                f"{arg}: {m.group(1)} does not exist: with fs.defaultFS {fs_default}, /user/<name> "
                f"is a directory on this machine like any other, not an HDFS home; use a "
                f"relative path (taken from the directory you run from) or a full path on the "
                f"shared file system (with filesystem = lustre, /user/<name> is under lustre_root)")
