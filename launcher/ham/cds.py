"""Class-data sharing (AppCDS) for the task runner JVMs of the bundled Hadoop.

A runner JVM loads ~3,000 classes from ~140 jars before and during its first task; from a
shared archive (the classes already parsed and verified, mapped from one file) its start and
first tasks are shorter: `bench/cds-trial.sh` measured a runner connected 0.25 s sooner and the
first task 0.17 s (bench/results/cds-trial/results.md).

The archive is static: `java -Xshare:dump` over the bundle's class list (cds/runner.classlist,
the classes a runner loads, committed with the bundle) and the runners' jars. It is made the
first time a job needs it, once per Java and bundle (the stamp in its name changes when either
does): in the bundle's cds/ if the user may write there, else under <shared_root>/<user>/.cds,
where every node reads it. The JVM checks the archive
against the class path it was made with, which must come first in the runners' class path:
so with an archive the runners' jars come first and directories (the job's conf/) last, as the
JVM cannot archive with a non-empty directory ahead of jars. Any mismatch makes the JVM start
without the archive, silently: it is never worse than no archive.
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

CLASSLIST = Path("cds") / "runner.classlist"
DIR = ".cds"
# The JVM says nothing when an archive does not match (a rebuilt jar, another Java): the runner
# starts without it, as it would with no archive at all.
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


def _stamp(java: str, jars: list[str], classlist: Path) -> str:
    h = hashlib.sha256()
    real = Path(shutil.which(java) or java).resolve()
    for f in (real, classlist, *map(Path, jars)):
        st = f.stat()
        h.update(f"{f}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
    return h.hexdigest()[:16]


def archive(bundle: Path, java: str, jars: list[str], shared_root: str) -> Path | None:
    """The runners' archive for these jars and this Java, made now if there is none yet; None
    (and one line saying why) if it cannot be made: the runners then start without one."""
    classlist = bundle / CLASSLIST
    if not classlist.is_file():
        log.warning("no %s in the bundle: task runners start without class-data sharing",
                    classlist)
        return None
    try:
        name = f"runner-{_stamp(java, jars, classlist)}.jsa"
    except OSError as e:
        log.warning("class-data sharing off for the task runners: %s", e)
        return None
    # In the bundle where it can be written (a source checkout, or an admin's first job: one
    # archive for everyone), else in the user's own directory under shared_root.
    places = [bundle / "cds", user_root(shared_root) / DIR]
    for place in places:
        if (place / name).is_file():
            return place / name
    path = (places[0] if os.access(places[0], os.W_OK) else places[1]) / name
    log.info("making the task runners' class-data archive %s (once per Java and bundle)", path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".runner-", suffix=".jsa", dir=path.parent)
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
        log.warning("class-data sharing off for the task runners: %s", e)
        return None
    return path


def java_opts(path: Path) -> str:
    """The runner JVM options that use the archive."""
    return " ".join((f"-XX:SharedArchiveFile={path}", *QUIET))
