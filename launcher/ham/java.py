"""Finding Java and reading its version."""

from __future__ import annotations

import functools
import os
import re
import shutil
import socket
from typing import Mapping

from ham import proc
from ham.errors import EnvironmentProblem

MIN_JAVA = 17  # the HAM jar is compiled for Java 17; Hadoop 3.4.2 runs on it without --add-opens
# "<host> <java> <version>": a Java a ham checked, for the ham it starts on the same host (`ham
# run` outside an allocation runs itself again inside one, through salloc, on this host). Each
# `java -version` starts a JVM (~0.1 s, before the job's own JVM can start); another host (an
# sbatch script's first node) checks its own.
CHECKED_ENV = "HAM_JAVA_CHECKED"


def java_binary(java_home: str, env: Mapping[str, str] | None = None) -> str:
    """The java executable: the java_home setting, then $JAVA_HOME, then PATH."""
    env = os.environ if env is None else env
    for home, where in ((java_home, "setting java_home"), (env.get("JAVA_HOME", ""), "$JAVA_HOME")):
        if home:
            path = os.path.join(home, "bin", "java")
            if not os.access(path, os.X_OK):
                raise EnvironmentProblem(f"{where} is {home} but {path} is not executable; "
                                         f"point it at a JDK {MIN_JAVA}+ installation")
            return path
    found = shutil.which("java", path=env.get("PATH"))
    if not found:
        raise EnvironmentProblem(f"Java not found: install a JDK {MIN_JAVA}+ (apt-get install "
                                 f"openjdk-17-jdk-headless) or set java_home / $JAVA_HOME")
    return found


def java_version(java: str, env: Mapping[str, str] | None = None) -> tuple[int, str]:
    """(major version, full version string) of java: as CHECKED_ENV in env says for this host,
    else from `java -version` (once per process)."""
    env = os.environ if env is None else env
    host, _, rest = env.get(CHECKED_ENV, "").partition(" ")
    checked, _, full = rest.rpartition(" ")
    if host == socket.gethostname() and checked == java and full:
        return _major(full), full
    return _run_java_version(java)


def checked(java: str, env: Mapping[str, str] | None = None) -> str:
    """CHECKED_ENV's value for java (checked here, on this host)."""
    return f"{socket.gethostname()} {java} {java_version(java, env)[1]}"


@functools.lru_cache(maxsize=None)
def _run_java_version(java: str) -> tuple[int, str]:
    out = proc.run([java, "-version"], timeout=30).stderr
    m = re.search(r'version "([^"]+)"', out)
    if not m:
        raise EnvironmentProblem(f"cannot read the version of {java}: {out.strip()[:200]}")
    return _major(m.group(1)), m.group(1)


def _major(full: str) -> int:
    parts = full.split(".")
    return int(parts[1]) if parts[0] == "1" else int(re.match(r"\d+", parts[0]).group(0))


def check_java(java: str, env: Mapping[str, str] | None = None) -> str:
    """Raise unless java is new enough; return its version string."""
    major, full = java_version(java, env)
    if major < MIN_JAVA:
        raise EnvironmentProblem(f"{java} is Java {full}; HAM needs Java {MIN_JAVA} or newer "
                                 f"(set java_home or $JAVA_HOME)")
    return full
