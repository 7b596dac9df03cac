"""Class-data sharing (AppCDS) for the JVMs of a job with the bundled Hadoop: its task runners
(setting runner_cds) and its client, the `hadoop jar` JVM that hosts HAM's driver (client_cds).

A runner JVM loads ~3,600 classes from ~140 jars before and during its first task, a client
~4,500 while it submits and drives its job; from a shared archive (the classes already parsed and verified,
mapped from one file) they start sooner: `bench/cds-trial.sh` measured a runner connected
0.25 s sooner and the first task 0.17 s (bench/results/cds-trial/results.md), and
bench/results/client-cds has the client's gain.

Each archive is static: `java -Xshare:dump` over the bundle's class list (cds/runner.classlist,
cds/client.classlist: the classes each kind loads, committed with the bundle) and that kind's
jars. It is made the first time a job needs it, once per kind, Java and bundle (the stamp in
its name changes when either does): in the bundle's cds/ if the user may write there, else
under <shared_root>/<user>/.cds, where every node reads it. The JVM checks the archive against
the class path it was made with, which must start the JVM's own, and cannot archive with a
non-empty directory ahead of jars: so with an archive the runners' jars come first and
directories (the job's conf/) last, and the bundle's `hadoop` script lists its jars ahead of its
directories for the client. Any mismatch makes the JVM start without the archive, silently: it
is never worse than no archive.
"""

from __future__ import annotations

import hashlib
import logging
import os
import shutil
import tempfile
from pathlib import Path

from ham import proc
from ham.errors import HamError
from ham.jobdir import user_root

log = logging.getLogger(__name__)

# The JVMs that have an archive each, as a log line names them.
KINDS = {"runner": "the task runners", "client": "the client JVM"}
DIR = ".cds"
# The JVM says nothing when an archive does not match (a rebuilt jar, another Java): it starts
# without it, as it would with no archive at all.
QUIET = ("-Xlog:cds=off", "-Xlog:cds+dynamic=off")


def split_classpath(classpath: str) -> tuple[list[str], list[str]]:
    """(jars, directories) of a class path, in order, each once; `dir/*` becomes the jars in
    dir, sorted (the JVM's own expansion has no defined order)."""
    jars: list[str] = []
    dirs: list[str] = []
    for entry in classpath.split(":"):
        if not entry:
            continue
        if entry.endswith("/*"):
            found = sorted(str(p) for p in Path(entry[:-2]).glob("*.jar"))
        elif entry.endswith(".jar"):
            found = [entry]
        else:
            if entry not in dirs:
                dirs.append(entry)
            continue
        jars += [j for j in found if j not in jars]
    return jars, dirs


def leading_jars(classpath: str) -> list[str]:
    """The jars a class path starts with, up to its first directory, wildcard or repeated jar:
    what an archive for a JVM with that class path may hold, as the JVM maps an archive only
    when the class path it was made with starts its own."""
    jars: list[str] = []
    for entry in classpath.split(":"):
        if not entry.endswith(".jar") or entry in jars:
            break
        jars.append(entry)
    return jars


def _stamp(java: str, jars: list[str], classlist: Path) -> str:
    h = hashlib.sha256()
    real = Path(shutil.which(java) or java).resolve()
    for f in (real, classlist, *map(Path, jars)):
        st = f.stat()
        h.update(f"{f}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
    return h.hexdigest()[:16]


def archive(kind: str, bundle: Path, java: str, jars: list[str], shared_root: str) -> Path | None:
    """The archive of a kind of JVM (KINDS) for these jars and this Java, made now if there is
    none yet; None (and one line saying why) if it cannot be made: those JVMs then start without
    one."""
    who = KINDS[kind]
    classlist = bundle / "cds" / f"{kind}.classlist"
    if not classlist.is_file():
        log.warning("class-data sharing off for %s: no %s in the bundle", who, classlist)
        return None
    if not jars:
        log.warning("class-data sharing off for %s: its class path starts with no jar", who)
        return None
    try:
        name = f"{kind}-{_stamp(java, jars, classlist)}.jsa"
    except OSError as e:
        log.warning("class-data sharing off for %s: %s", who, e)
        return None
    # In the bundle where it can be written (a source checkout, or an admin's first job: one
    # archive for everyone), else in the user's own directory under shared_root.
    places = [bundle / "cds", user_root(shared_root) / DIR]
    for place in places:
        if (place / name).is_file():
            return place / name
    path = (places[0] if os.access(places[0], os.W_OK) else places[1]) / name
    log.info("making the class-data archive of %s, %s (once per Java and bundle)", who, path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{kind}-", suffix=".jsa", dir=path.parent)
        os.close(fd)
        try:
            proc.run([java, "-Xshare:dump", f"-XX:SharedClassListFile={classlist}",
                      f"-XX:SharedArchiveFile={tmp}", "-cp", ":".join(jars)], timeout=300)
        except HamError:
            Path(tmp).unlink(missing_ok=True)  # nothing half-made is left for the next job
            raise
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)  # atomic: a job starting meanwhile sees no archive or a whole one
    except (OSError, HamError) as e:  # HamError: the dump failed, timed out, or no java
        log.warning("class-data sharing off for %s: %s", who, e)
        return None
    return path


def java_opts(path: Path) -> str:
    """The JVM options that use the archive."""
    return " ".join((f"-XX:SharedArchiveFile={path}", *QUIET))
