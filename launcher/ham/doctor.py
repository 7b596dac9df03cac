"""`ham doctor`: is this machine ready to run HAM jobs? One line per check, with the fix."""

from __future__ import annotations

import os
import shutil
import tempfile
import zipfile
from dataclasses import dataclass
from typing import Callable, Mapping

from pathlib import Path

from ham import fscheck, fspaths, jobdir, lustre, proc, session
from ham.api import SPANK_OPTION
from ham.errors import HamError
from ham.hadoop import bundle_dir, command_argv, find_hadoop, ham_jar
from ham.java import MIN_JAVA, check_java, java_binary
from ham.settings import Settings
from ham.slurm import Slurm

MIN_FREE_GB = 1.0


@dataclass(frozen=True)
class Check:
    name: str
    ok: bool
    detail: str  # what was found, or what is wrong and how to fix it


def _java(settings: Settings, env: Mapping[str, str]) -> str:
    java = java_binary(settings["java_home"], env)
    return f"Java {check_java(java)} ({java})"


def _hadoop(settings: Settings, env: Mapping[str, str]) -> str:
    hadoop = find_hadoop(settings, env)
    java = java_binary(settings["java_home"], env)
    clean = {k: v for k, v in env.items() if k not in ("HADOOP_CONF_DIR", "HADOOP_CLASSPATH")}
    clean["JAVA_HOME"] = settings["java_home"] or env.get("JAVA_HOME") or \
        os.path.dirname(os.path.dirname(os.path.realpath(java)))
    argv = command_argv(hadoop, bundle_dir(settings), "hadoop", ["version"])
    out = proc.run(argv, env=clean, timeout=60).stdout
    version = out.splitlines()[0] if out else "unknown version"
    return f"{version} ({hadoop.kind}: {hadoop.home})"


PROVIDER = "META-INF/services/org.apache.hadoop.mapreduce.protocol.ClientProtocolProvider"


def _ham_jar(settings: Settings, env: Mapping[str, str]) -> str:
    jar = ham_jar(settings)
    # Hadoop's Cluster finds the HAM framework through this ServiceLoader entry.
    try:
        with zipfile.ZipFile(jar) as z:
            provider = z.read(PROVIDER).decode().strip()
    except (OSError, KeyError, zipfile.BadZipFile):
        raise HamError(f"{jar} does not register a ClientProtocolProvider; rebuild it with "
                       f"`mvn -f mapreduce/pom.xml package`") from None
    return f"{jar} ({provider})"


def _slurm_commands(settings: Settings, env: Mapping[str, str]) -> str:
    missing = [c for c in ("sbatch", "salloc", "srun", "squeue", "scontrol", "scancel", "sacct")
               if not shutil.which(c, path=env.get("PATH"))]
    if missing:
        raise HamError(f"not on PATH: {', '.join(missing)}; install the Slurm client "
                       f"(apt-get install slurm-client) or load its module")
    return proc.run(["sinfo", "--version"]).stdout.strip()


def _spank(settings: Settings, slurm: Slurm) -> str:
    if not settings["spank"]:
        return f"not asked for (setting spank is false, {settings.source('spank')})"
    missing = [c for c in ("sbatch", "salloc") if not slurm.knows_option(c, SPANK_OPTION)]
    if missing:
        raise HamError(f"setting spank is true ({settings.source('spank')}) but "
                       f"{' and '.join(missing)} {'have' if len(missing) > 1 else 'has'} no "
                       f"{SPANK_OPTION} option: load HAM's SPANK plugin in plugstack.conf "
                       f"(docs/admin.md, SPANK plugin) or set spank = false")
    return f"sbatch and salloc take {SPANK_OPTION} (setting spank is true)"


def _shared_root(settings: Settings, env: Mapping[str, str]) -> str:
    root = jobdir.check_shared_root(settings["shared_root"])
    try:
        with tempfile.NamedTemporaryFile(dir=root, prefix=".ham-doctor-"):
            pass
    except OSError as exc:
        raise HamError(f"cannot create a file in {root}: {exc.strerror}; fix its permissions "
                       f"or set shared_root") from None
    st = os.statvfs(root)
    free_gb = st.f_bavail * st.f_frsize / 2**30
    if free_gb < MIN_FREE_GB:
        raise HamError(f"{root} has only {free_gb:.2f} GiB free (need {MIN_FREE_GB}); "
                       f"free space or set shared_root")
    kind = "Lustre" if lustre.is_lustre(root, env) else "not Lustre (no striping)"
    return f"{root}: writable, {free_gb:.1f} GiB free, {kind}"


def _filesystem(settings: Settings, env: Mapping[str, str]) -> str:
    root = fspaths.check_lustre_root(settings)
    if settings["filesystem"] != "lustre":
        return "file:/// (paths are files on the mounts)" + (
            f"; lustre:/// = {root}" if root else "")
    kind = "Lustre" if lustre.is_lustre(root, env) else "not Lustre: raw I/O, no striping"
    return f"lustre:/// = {root} ({kind})"


def _one(name: str, fn: Callable[[], str]) -> Check:
    try:
        return Check(name, True, fn())
    except HamError as exc:
        return Check(name, False, str(exc))


def allocation_nodes(slurm: Slurm, env: Mapping[str, str]) -> list[str]:
    """The nodes of the allocation this runs in (none outside one)."""
    nodelist = session.slurm_nodelist(env)
    return slurm.hostnames(nodelist) if nodelist else []


def run_checks(settings: Settings, slurm: Slurm, env: Mapping[str, str] | None = None,
               probe: fscheck.Probe | None = None) -> list[Check]:
    """This machine's checks; inside an allocation of two nodes or more, also the shared root's
    across its first two nodes (through probe, srun steps by default)."""
    env = os.environ if env is None else env
    checks: list[tuple[str, Callable[[], str]]] = [
        (f"java (>= {MIN_JAVA})", lambda: _java(settings, env)),
        ("hadoop", lambda: _hadoop(settings, env)),
        ("ham jar", lambda: _ham_jar(settings, env)),
        ("slurm commands", lambda: _slurm_commands(settings, env)),
        ("slurm controller", slurm.ping),
        ("spank plugin", lambda: _spank(settings, slurm)),
        ("shared root", lambda: _shared_root(settings, env)),
        ("file system", lambda: _filesystem(settings, env)),
    ]
    results = [_one(name, fn) for name, fn in checks]
    if next(c.ok for c in results if c.name == "shared root"):
        try:
            results += _cross_node(settings, slurm, env, probe or fscheck.SrunProbe())
        except (HamError, OSError) as exc:
            results.append(Check("fs: across nodes", False, str(exc)))
    return results


def _cross_node(settings: Settings, slurm: Slurm, env: Mapping[str, str],
                probe: fscheck.Probe) -> list[Check]:
    nodes = allocation_nodes(slurm, env)
    if len(nodes) < 2:
        return []
    root = Path(jobdir.check_shared_root(settings["shared_root"]))
    with fscheck.CrossNode(root, nodes[0], nodes[1], probe) as cross:
        return [_one(name, fn) for name, fn in cross.checks()]
