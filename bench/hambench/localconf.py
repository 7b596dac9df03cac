"""Hadoop's local runner as HAM runs its tasks: the same core-site keys as a HAM job's
(io.file.buffer.size, thread-level IOStatistics off, HAM's local file system without chmod
processes) and the JVM options of
HAM's runners and client (runner_java_opts, the client's JIT and its class-data archive), so
that the baseline differs from HAM only in where the tasks run."""

from __future__ import annotations

from pathlib import Path
from typing import Mapping

from ham import cds, contract
from ham.jobconf import tuned_core_site
from ham.session import CLIENT_JIT_OPTS

from hambench.util import WORK, BenchError, run


def site(props: Mapping[str, object]) -> str:
    body = "".join(f"  <property><name>{k}</name><value>{v}</value></property>\n"
                   for k, v in props.items())
    return f'<?xml version="1.0"?>\n<configuration>\n{body}</configuration>\n'


def core_site() -> dict[str, object]:
    return {"fs.defaultFS": "file:///", **tuned_core_site()}


def java_opts(archive: Path | None) -> str:
    """runner_java_opts' default, the client's default JIT (C1), and the archive if made."""
    opts = [contract.DEFAULTS[contract.RUNNER_JAVA_OPTS], CLIENT_JIT_OPTS["c1"]]
    if archive:
        opts.append(cds.java_opts(archive))
    return " ".join(o for o in opts if o)


def prepare(env: Mapping[str, str], bundle: Path) -> dict[str, str]:
    """The environment of the local runner's `ham hadoop jar`: HADOOP_CONF_DIR with HAM's
    core-site and the local framework, HADOOP_CLIENT_OPTS as above."""
    conf = WORK / "local-conf"
    conf.mkdir(parents=True, exist_ok=True)
    (conf / "core-site.xml").write_text(site(core_site()))
    (conf / "mapred-site.xml").write_text(site({"mapreduce.framework.name": "local"}))
    log4j = bundle / "etc" / "hadoop" / "log4j.properties"
    if log4j.is_file():  # the job's log lines, as without HADOOP_CONF_DIR
        (conf / "log4j.properties").write_text(log4j.read_text())
    lenv = {**env, "HADOOP_CONF_DIR": str(conf)}
    hadoop = bundle / "bin" / "hadoop"
    cp = run([str(hadoop), "classpath"], env=lenv, check=False, timeout=120)
    if cp.rc != 0:
        raise BenchError(f"{hadoop} classpath failed: {cp.err.strip()[:300]}")
    jars = cds.leading_jars(cp.out.strip())
    archive = cds.archive("client", bundle, "java", jars, str(WORK / "shared"))
    lenv["HADOOP_CLIENT_OPTS"] = java_opts(archive)
    return lenv
