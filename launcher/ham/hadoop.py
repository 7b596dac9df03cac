"""Which Hadoop runs a job, and how `ham hadoop ARGS` becomes a java command line.

The bundled client is the Maven build in mapreduce/ (target/dist): no registry ships the Hadoop
binary tarball, so `bin/hadoop` is reproduced here for jar, fs, version, classpath and CLASSNAME.
"""

from __future__ import annotations

import os
import shlex
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

from ham.errors import EnvironmentProblem, UsageError
from ham.settings import Settings

HAM_JAR = "ham-mapreduce.jar"

# bin/hadoop subcommands and the classes behind them (hadoop-functions.sh / bin/hadoop).
SUBCOMMANDS = {
    "jar": "org.apache.hadoop.util.RunJar",
    "fs": "org.apache.hadoop.fs.FsShell",
    "dfs": "org.apache.hadoop.fs.FsShell",
    "version": "org.apache.hadoop.util.VersionInfo",
    "classpath": "org.apache.hadoop.util.Classpath",
    "distcp": "org.apache.hadoop.tools.DistCp",
    "job": "org.apache.hadoop.mapred.JobClient",  # `mapred job`, `hadoop job`
}


def _bundle_candidates() -> list[Path]:
    here = Path(__file__).resolve().parent
    return [
        Path(sys.prefix) / "share" / "ham" / "dist",  # pip install . with the install script
        here.parent.parent / "mapreduce" / "target" / "dist",  # a source checkout (pip install -e)
    ]


def bundle_dir(settings: Settings) -> Path:
    """The directory holding ham-mapreduce.jar and lib/*.jar."""
    if settings["bundle_dir"]:
        path = Path(settings["bundle_dir"])
        if not (path / HAM_JAR).is_file():
            raise EnvironmentProblem(f"bundle_dir {path} has no {HAM_JAR}; build it with "
                                     f"`mvn -f mapreduce/pom.xml package` or fix the setting")
        return path
    for path in _bundle_candidates():
        if (path / HAM_JAR).is_file():
            return path
    raise EnvironmentProblem("the HAM jar is not built: run `mvn -q -f mapreduce/pom.xml package "
                             "-DskipTests` in the HAM checkout, or set bundle_dir")


def ham_jar(settings: Settings) -> Path:
    return bundle_dir(settings) / HAM_JAR


@dataclass(frozen=True)
class Hadoop:
    """A Hadoop to run: a site installation (bin/hadoop) or the bundled client."""

    kind: str  # "site" or "bundled"
    home: Path  # HADOOP_HOME, or the bundle directory

    @property
    def lib_glob(self) -> str:
        return str(self.home / "lib" / "*")


def site_hadoop_home(settings: Settings, env: Mapping[str, str]) -> Path | None:
    if settings["hadoop_home"]:
        return Path(settings["hadoop_home"])
    if env.get("HADOOP_HOME"):
        return Path(env["HADOOP_HOME"])
    found = shutil.which("hadoop", path=env.get("PATH"))
    # Our own shim (rendered into job directories) is not a site Hadoop.
    if found and not _is_ham_shim(found):
        return Path(found).resolve().parent.parent
    return None


def _is_ham_shim(path: str) -> bool:
    try:
        with open(path, "rb") as f:
            return b"ham-hadoop-shim" in f.read(4096)
    except OSError:
        return False


def find_hadoop(settings: Settings, env: Mapping[str, str] | None = None) -> Hadoop:
    env = os.environ if env is None else env
    choice = settings["hadoop"]
    if choice in ("auto", "site"):
        home = site_hadoop_home(settings, env)
        if home is not None:
            if not os.access(home / "bin" / "hadoop", os.X_OK):
                raise EnvironmentProblem(f"site Hadoop {home} has no executable bin/hadoop; fix "
                                         f"hadoop_home / $HADOOP_HOME or set hadoop = \"bundled\"")
            return Hadoop("site", home)
        if choice == "site":
            raise EnvironmentProblem("hadoop = \"site\" but no site Hadoop found: set hadoop_home "
                                     "or $HADOOP_HOME, or use hadoop = \"bundled\"")
    return Hadoop("bundled", bundle_dir(settings))


def bundled_classpath(hadoop: Hadoop, env: Mapping[str, str]) -> str:
    """Conf dir first (as bin/hadoop does: HADOOP_CONF_DIR, else the bundle's etc/hadoop),
    then HADOOP_CLASSPATH, then HAM and Hadoop jars."""
    parts = [env.get("HADOOP_CONF_DIR") or str(hadoop.home / "etc" / "hadoop")]
    if env.get("HADOOP_CLASSPATH"):
        parts.append(env["HADOOP_CLASSPATH"])
    parts += [str(hadoop.home / HAM_JAR), hadoop.lib_glob]
    return ":".join(parts)


def check_jar(jar: str) -> None:
    """The job jar of `hadoop jar JAR`: a readable file."""
    if not os.path.isfile(jar):
        raise UsageError(f"jar file not found: {jar} (check the path after `hadoop jar`)")
    if not os.access(jar, os.R_OK):
        raise UsageError(f"jar file not readable: {jar} (ask its owner, or check its permissions)")


def hadoop_argv(hadoop: Hadoop, java: str, args: list[str], env: Mapping[str, str]) -> list[str]:
    """The argv that `hadoop ARGS` runs."""
    if hadoop.kind == "site":
        return [str(hadoop.home / "bin" / "hadoop"), *args]
    if not args:
        raise UsageError("usage: ham hadoop jar|fs|version|classpath|CLASSNAME [ARGS...]")
    sub, rest = args[0], args[1:]
    if sub in SUBCOMMANDS:
        cls = SUBCOMMANDS[sub]
    elif "." in sub and not sub.startswith("-"):
        cls = sub  # `hadoop CLASSNAME`
    else:
        raise UsageError(f"unknown hadoop command '{sub}': the bundled Hadoop supports "
                         f"{', '.join(SUBCOMMANDS)} and CLASSNAME")
    if sub == "jar" and not rest:
        raise UsageError("usage: hadoop jar JAR [MAINCLASS] [ARGS...]")
    if sub == "jar":
        check_jar(rest[0])
    opts = shlex.split(env.get("HADOOP_OPTS", ""))
    return [java, *opts, "-cp", bundled_classpath(hadoop, env), cls, *rest]
