"""Which file on the shared mount a job's Hadoop path names, for the file system the job runs
with (setting `filesystem`). The launcher's mirror of how Hadoop resolves paths in HAM:

    filesystem = file    in, /d/in, file:///d/in   ->  <cwd>/in, /d/in, /d/in
    filesystem = lustre  in, /d/in, lustre:///d/in ->  <root>/user/<name>/in, <root>/d/in, <root>/d/in
                         file:///d/in              ->  /d/in

Used to check a job's input and output before Slurm is asked (jobpaths), and by `ham run` to
make the lustre home directory. Other schemes (hdfs://, s3a://) name no file here: None.
"""

from __future__ import annotations

import getpass
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping
from urllib.parse import urlparse

from ham import contract as c
from ham.errors import EnvironmentProblem


@dataclass(frozen=True)
class Resolver:
    filesystem: str = "file"   # the job's default file system: "file" or "lustre"
    lustre_root: str = ""
    cwd: str = "."
    user: str = ""

    @classmethod
    def for_settings(cls, settings: Mapping[str, Any], cwd: str,
                     user: str | None = None) -> "Resolver":
        return cls(settings["filesystem"], settings["lustre_root"], cwd,
                   user or getpass.getuser())

    @property
    def lustre_home(self) -> str:
        """Where relative lustre:// paths go: /user/<name>, as HDFS's and HAL's homes."""
        return f"/user/{self.user}"

    def local(self, path: str) -> str | None:
        """The file `path` names on this machine's mounts, or None (another file system)."""
        url = urlparse(path)
        scheme = url.scheme or self.filesystem
        name = url.path if url.scheme else path
        if scheme == "file":
            return os.path.join(self.cwd, name)
        if scheme == c.LUSTRE_SCHEME and self.lustre_root:
            if not name.startswith("/"):
                name = f"{self.lustre_home}/{name}"
            # As Hadoop's Path and lustre:// see it: lexical, "/.." is "/".
            inside = os.path.normpath("/" + name).lstrip("/")
            return os.path.join(self.lustre_root, inside) if inside else self.lustre_root
        return None


def check_lustre_root(settings: Mapping[str, Any]) -> Path | None:
    """With filesystem = lustre, lustre_root must name a directory: one line if not."""
    root = settings["lustre_root"]
    if settings["filesystem"] != c.LUSTRE_SCHEME and not root:
        return None
    if not root:
        raise EnvironmentProblem("filesystem = lustre needs lustre_root: the directory on the "
                                 "Lustre mount that lustre:/// stands for (HAL's fs.root.dir)")
    path = Path(root)
    if not path.is_dir():
        raise EnvironmentProblem(f"lustre_root {root} is not a directory: create it on the "
                                 f"Lustre mount or fix the lustre_root setting")
    return path


def ensure_lustre_home(resolver: Resolver) -> str | None:
    """Create <root>/user/<name> (0700) if <root>/user is there, as an HDFS admin would make
    a user's home: relative paths go there. Returns a warning when it cannot."""
    home = resolver.local(f"{c.LUSTRE_SCHEME}://{resolver.lustre_home}")
    if home is None or os.path.isdir(home):
        return None
    try:
        os.mkdir(home, 0o700)
        return None
    except FileExistsError:
        return None
    except OSError as exc:
        return (f"cannot create your lustre:// home {home} ({exc.strerror}): relative paths "
                f"will fail; ask your admin to create {os.path.dirname(home)} (mode 1777)")
