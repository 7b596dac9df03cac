"""The Hadoop configuration and environment of one job directory (pure where it can be)."""

from __future__ import annotations

import os
import socket
import sys
from typing import Any, Mapping

from ham import proc, render
from ham.hadoop import Hadoop
from ham.jobdir import JobDir
from ham.settings import Settings


def core_site(jobdir: JobDir) -> dict[str, Any]:
    return {
        # The shared file system is the default file system: no HDFS.
        "fs.defaultFS": "file:///",
        "hadoop.tmp.dir": str(jobdir.tmp),
    }


def mapred_site(settings: Settings, jobdir: JobDir, *, framework: str, driver_host: str,
                java: str, runner_classpath: str, srun: str = "srun") -> dict[str, Any]:
    # Key names are shared with the Java side (io.github.ham.mapreduce.HamConfig).
    return {
        "mapreduce.framework.name": framework,
        "ham.job.dir": str(jobdir.path),
        "yarn.app.mapreduce.am.staging-dir": str(jobdir.staging),
        "mapreduce.jobtracker.staging.root.dir": str(jobdir.staging),
        "mapreduce.cluster.local.dir": str(jobdir.local),
        "ham.driver.host": driver_host,
        "ham.runner.java": java,
        "ham.runner.classpath": runner_classpath,
        "ham.runner.java.opts": settings["runner_java_opts"],
        "ham.runners.per.node": settings["runners_per_node"],
        "ham.srun": srun,
    }


def runner_classpath(hadoop: Hadoop, jobdir: JobDir, ham_jar: str) -> str:
    """Classpath of the task runner JVMs: the job's conf, the HAM jar, then Hadoop's jars."""
    if hadoop.kind == "site":
        hadoop_cp = proc.run([str(hadoop.home / "bin" / "hadoop"), "classpath"]).stdout.strip()
    else:
        hadoop_cp = hadoop.lib_glob
    return ":".join([str(jobdir.conf), ham_jar, hadoop_cp])


def local_address_towards(addr: str) -> str:
    """The local IP on the route to addr (a UDP connect sends nothing)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.connect((addr, 9))
        return s.getsockname()[0]


def write_conf(jobdir: JobDir, core: dict[str, Any], mapred: dict[str, Any], log_level: str) -> None:
    files = {
        "core-site.xml": render.hadoop_xml(core),
        "mapred-site.xml": render.hadoop_xml(mapred),
        "log4j.properties": render.render("log4j.properties.j2", level=log_level),
    }
    for name, text in files.items():
        path = jobdir.conf / name
        path.write_text(text)
        os.chmod(path, 0o600)
    shim = jobdir.bin / "hadoop"
    shim.write_text(render.render("hadoop-shim.sh.j2", python=sys.executable))
    os.chmod(shim, 0o700)


def job_environment(env: Mapping[str, str], jobdir: JobDir, hadoop: Hadoop,
                    ham_jar: str, java_home: str) -> dict[str, str]:
    """The environment of the user's command: plain `hadoop jar` then runs on HAM."""
    out = dict(env)
    out["HAM_JOB_DIR"] = str(jobdir.path)
    out["HADOOP_CONF_DIR"] = str(jobdir.conf)
    out["HADOOP_CLASSPATH"] = ":".join(p for p in (ham_jar, env.get("HADOOP_CLASSPATH", "")) if p)
    bins = [str(jobdir.bin)] + ([str(hadoop.home / "bin")] if hadoop.kind == "site" else [])
    out["PATH"] = ":".join(bins + [env.get("PATH", "/usr/bin:/bin")])
    if java_home:
        out["JAVA_HOME"] = java_home
    return out

