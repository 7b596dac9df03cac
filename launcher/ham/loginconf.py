"""The configuration of `ham mapred job ...`, `ham yarn application ...` and `ham yarn logs ...`
from a login shell, outside any job: HAM's framework, and the user's directory on the shared
root, where HAM's client finds the user's jobs (inside a job it finds them from the job
directory's parent, the same directory). On a YARN cluster the client's configuration names
the ResourceManager; here it names that directory. Written to the user's cache directory, never
used by a job."""

from __future__ import annotations

import getpass
import os
import shutil
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Mapping

from ham import contract as c
from ham import render
from ham.jobconf import core_site
from ham.jobdir import JobDir, user_root
from ham.settings import Settings

# The subcommands that ask about the user's jobs (the others need no job's configuration).
JOB_COMMANDS = {("mapred", "job"), ("yarn", "application"), ("yarn", "app"), ("yarn", "logs")}
# Where HAM's client looks for the user's sessions: this path's parent (never created).
FINDER_DIR = ".login"


def subcommand(args: list[str]) -> str:
    """The subcommand after bin/CMD's generic options (--config DIR, --loglevel L, --debug)."""
    i = 0
    while i < len(args):
        if args[i] in ("--config", "--loglevel"):
            i += 2
        elif args[i] == "--debug":
            i += 1
        else:
            return args[i]
    return ""


def is_ham_conf(conf_dir: str | None) -> bool:
    """Whether conf_dir's mapred-site.xml sets mapreduce.framework.name to HAM's."""
    if not conf_dir:
        return False
    try:
        root = ET.parse(Path(conf_dir) / "mapred-site.xml").getroot()
    except (OSError, ET.ParseError):
        return False
    return any(p.findtext("name") == "mapreduce.framework.name"
               and (p.findtext("value") or "").strip() == c.FRAMEWORK_NAME
               for p in root.iter("property"))


def needed(command: str, args: list[str], env: Mapping[str, str]) -> bool:
    """A command about the user's jobs, run with no HAM job's configuration."""
    return (command, subcommand(args)) in JOB_COMMANDS and not is_ham_conf(env.get("HADOOP_CONF_DIR"))


def conf_dir(env: Mapping[str, str]) -> Path:
    cache = env.get("XDG_CACHE_HOME") or str(Path(env.get("HOME") or tempfile.gettempdir()) / ".cache")
    return Path(cache) / "ham" / "login-conf"


def write(settings: Settings, bundle: Path, env: Mapping[str, str]) -> Path:
    """The login configuration, (re)written when it differs; returns its directory."""
    finder = JobDir(user_root(settings["shared_root"]) / FINDER_DIR)
    core = core_site(settings, finder)
    # Nothing of a command about jobs writes temporary files; none on the shared root.
    core["hadoop.tmp.dir"] = str(Path(tempfile.gettempdir()) / f"hadoop-{getpass.getuser()}")
    files = {
        "core-site.xml": render.hadoop_xml(core),
        "mapred-site.xml": render.hadoop_xml({"mapreduce.framework.name": c.FRAMEWORK_NAME,
                                              c.JOB_DIR: str(finder.path)}),
    }
    out = conf_dir(env)
    out.mkdir(parents=True, exist_ok=True, mode=0o700)
    for name, text in files.items():
        _replace(out / name, text)
    log4j = bundle / "etc" / "hadoop" / "log4j.properties"
    if log4j.is_file() and not (out / log4j.name).is_file():
        shutil.copyfile(log4j, out / log4j.name)
    return out


def _replace(path: Path, text: str) -> None:
    """Whole or not at all: another `ham mapred` may read it meanwhile."""
    try:
        if path.read_text() == text:
            return
    except OSError:
        pass
    tmp = path.with_name(f".{path.name}.{os.getpid()}")
    tmp.write_text(text)
    os.replace(tmp, path)
