"""Which Hadoop runs a job, and which command `hadoop ARGS` (or mapred, yarn, hdfs) runs.

The bundled client is the Maven build in mapreduce/ (target/dist), laid out as Apache's binary
release (bin/, libexec/, etc/hadoop, share/hadoop/...). No registry ships that release, so its
bin/ scripts are HAM's own (mapreduce/src/dist): they build the class path from the layout and
run the same classes as Apache's, and give one line for what needs HDFS or YARN daemons.
"""

from __future__ import annotations

import os
import shutil
import sys
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

from ham.errors import EnvironmentProblem, UsageError
from ham.settings import Settings

HAM_JAR = "ham-mapreduce.jar"

# The commands of a Hadoop installation that HAM puts on the job's PATH.
COMMANDS = ("hadoop", "mapred", "yarn", "hdfs")

# HAM's front door to a site's own scripts (in the bundle): refuses what needs HDFS or YARN
# daemons and answers `yarn application` for HAM's jobs, then runs the site's bin/CMD.
SITE_FRONT_DOOR = Path("libexec") / "ham-site-hadoop"


def _bundle_candidates() -> list[Path]:
    here = Path(__file__).resolve().parent
    return [
        Path(sys.prefix) / "share" / "ham" / "dist",  # pip install . with the install script
        here.parent.parent / "mapreduce" / "target" / "dist",  # a source checkout (pip install -e)
    ]


def bundle_dir(settings: Settings) -> Path:
    """The bundle: ham-mapreduce.jar at the top of a Hadoop client installation."""
    if settings["bundle_dir"]:
        path = Path(settings["bundle_dir"])
        if not (path / HAM_JAR).is_file():
            raise EnvironmentProblem(f"bundle_dir {path} has no {HAM_JAR}; build it with "
                                     f"`mvn -f mapreduce/pom.xml package` or fix the setting")
        return _laid_out(path)
    for path in _bundle_candidates():
        if (path / HAM_JAR).is_file():
            return _laid_out(path)
    raise EnvironmentProblem("the HAM jar is not built: run `mvn -q -f mapreduce/pom.xml package "
                             "-DskipTests` in the HAM checkout, or set bundle_dir")


def _laid_out(path: Path) -> Path:
    # A bundle built before HAM laid it out as a Hadoop installation has a flat lib/.
    if not (path / SITE_FRONT_DOOR).is_file():
        raise EnvironmentProblem(f"the bundle {path} is not laid out as a Hadoop installation "
                                 f"(no {SITE_FRONT_DOOR}): rebuild it with `mvn -q -f "
                                 f"mapreduce/pom.xml package -DskipTests`")
    return path


def ham_jar(settings: Settings) -> Path:
    return bundle_dir(settings) / HAM_JAR


@dataclass(frozen=True)
class Hadoop:
    """A Hadoop to run: a site installation (bin/hadoop) or the bundled client; both laid out
    as a Hadoop installation, `home` being their HADOOP_HOME."""

    kind: str  # "site" or "bundled"
    home: Path  # HADOOP_HOME: the site installation, or the bundle directory

    def bin(self, command: str = "hadoop") -> Path:
        return self.home / "bin" / command


def is_ham_bundle(home: Path) -> bool:
    """A HAM bundle (HAM's jar at the top of a Hadoop layout), as opposed to a site Hadoop."""
    return (home / HAM_JAR).is_file() and (home / SITE_FRONT_DOOR).is_file()


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
        # Inside `ham run` HADOOP_HOME (and PATH) name the Hadoop of the job, which may be the
        # bundle itself: that is still the bundled client.
        if home is not None and is_ham_bundle(home):
            return Hadoop("bundled", home)
        if home is not None:
            if not os.access(home / "bin" / "hadoop", os.X_OK):
                raise EnvironmentProblem(f"site Hadoop {home} has no executable bin/hadoop; fix "
                                         f"hadoop_home / $HADOOP_HOME or set hadoop = \"bundled\"")
            return Hadoop("site", home)
        if choice == "site":
            raise EnvironmentProblem("hadoop = \"site\" but no site Hadoop found: set hadoop_home "
                                     "or $HADOOP_HOME, or use hadoop = \"bundled\"")
    return Hadoop("bundled", bundle_dir(settings))


def command_argv(hadoop: Hadoop, bundle: Path, command: str, args: list[str]) -> list[str]:
    """The argv that `COMMAND ARGS` runs (COMMAND one of hadoop, mapred, yarn, hdfs): the
    bundle's own bin/COMMAND, or a site's through HAM's front door."""
    if command not in COMMANDS:
        raise UsageError(f"unknown command '{command}': HAM provides {', '.join(COMMANDS)}")
    if hadoop.kind == "site":
        return [str(bundle / SITE_FRONT_DOOR), str(hadoop.home), command, *args]
    return [str(hadoop.bin(command)), *args]


def command_environment(env: Mapping[str, str], hadoop: Hadoop, ham_jar_path: Path,
                        java_home: str) -> dict[str, str]:
    """The environment of `ham hadoop ...`: JAVA_HOME from the java_home setting, and for a
    site's Hadoop HAM's jar on HADOOP_CLASSPATH (for `mapred job` to find HAM's jobs; the
    bundle's scripts put it on their class path themselves)."""
    out = dict(env)
    jar = str(ham_jar_path)
    classpath = [p for p in env.get("HADOOP_CLASSPATH", "").split(":") if p]
    if hadoop.kind == "site" and jar not in classpath:
        out["HADOOP_CLASSPATH"] = ":".join([jar, *classpath])
    if java_home:
        out["JAVA_HOME"] = java_home
    return out


def check_jar(jar: str) -> None:
    """The job jar of `hadoop jar JAR`: a readable zip file."""
    if not os.path.isfile(jar):
        raise UsageError(f"jar file not found: {jar} (check the path after `hadoop jar`)")
    if not os.access(jar, os.R_OK):
        raise UsageError(f"jar file not readable: {jar} (ask its owner, or check its permissions)")
    if not zipfile.is_zipfile(jar):
        raise UsageError(f"{jar} is not a jar (zip) file: check the path after `hadoop jar`")


# The jars a Hadoop installation ships for users to run, where Apache's release puts them.
USER_JARS = {"examples": "share/hadoop/mapreduce/hadoop-mapreduce-examples-*.jar",
             "streaming": "share/hadoop/tools/lib/hadoop-streaming-*.jar"}


def user_jar(hadoop: Hadoop, which: str) -> Path:
    """The examples (wordcount, terasort, pi, ...) or Hadoop Streaming jar of the Hadoop HAM
    uses; one line if that installation has none."""
    found = sorted(hadoop.home.glob(USER_JARS[which]))
    found = [p for p in found if not p.name.endswith(("-sources.jar", "-tests.jar"))]
    if not found:
        raise EnvironmentProblem(f"the {hadoop.kind} Hadoop at {hadoop.home} has no {which} jar "
                                 f"({USER_JARS[which]}); set hadoop = \"bundled\" to use HAM's")
    return found[-1]
