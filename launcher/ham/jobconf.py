"""The Hadoop configuration and environment of one job directory (pure where it can be)."""

from __future__ import annotations

import os
import socket
import sys
from typing import Any, Mapping

from ham import contract as c
from ham import proc, render
from ham.hadoop import Hadoop
from ham.jobdir import JobDir
from ham.settings import Settings


def core_site(settings: Settings, jobdir: JobDir) -> dict[str, Any]:
    lustre = settings["filesystem"] == c.LUSTRE_SCHEME
    props: dict[str, Any] = {
        # The shared file system is the default file system: no HDFS. Either its files as
        # they are (file:///) or HAM's lustre:/// under lustre_root.
        "fs.defaultFS": f"{c.LUSTRE_SCHEME}:///" if lustre else "file:///",
        "hadoop.tmp.dir": str(jobdir.tmp),
        # Hadoop's default buffer, 4 KB, made the map side's spills and file.out (on the shared
        # file system) go out and be merged in 4 KB system calls; 128 KB as production
        # clusters set it. Streams of lustre:// buffer more (ham.lustre.buffer.size).
        c.IO_FILE_BUFFER_SIZE: c.HAM_IO_FILE_BUFFER_SIZE,
        # HAM's own class names; HAL's (org.apache.hadoop.fs.LustreFileSystem...) still load.
        f"fs.{c.LUSTRE_SCHEME}.impl": c.LUSTRE_FS_CLASS,
        f"fs.AbstractFileSystem.{c.LUSTRE_SCHEME}.impl": c.LUSTRE_AFS_CLASS,
    }
    if settings["lustre_root"]:
        props[c.LUSTRE_ROOT] = settings["lustre_root"]
    if settings["file_stripes"]:
        props[c.LUSTRE_FILE_STRIPES] = settings["file_stripes"]
    return props


def mapred_site(settings: Settings, jobdir: JobDir, *, framework: str, driver_host: str,
                java: str, runner_classpath: str, srun: str = c.DEFAULTS[c.SRUN]) -> dict[str, Any]:
    return {
        "mapreduce.framework.name": framework,
        c.JOB_DIR: str(jobdir.path),
        "yarn.app.mapreduce.am.staging-dir": str(jobdir.staging),
        "mapreduce.jobtracker.staging.root.dir": str(jobdir.staging),
        "mapreduce.cluster.local.dir": str(jobdir.local),
        c.DRIVER_HOST: driver_host,
        c.RUNNER_JAVA: java,
        c.RUNNER_CLASSPATH: runner_classpath,
        c.RUNNER_JAVA_OPTS: settings["runner_java_opts"],
        c.RUNNERS_PER_NODE: settings["runners_per_node"],
        c.SRUN: srun,
        c.LUSTRE_MAP_OUTPUT_STRIPE: settings["map_output_stripe"],
        **({c.LUSTRE_OUTPUT_STRIPE: settings["output_stripe"]} if settings["output_stripe"] else {}),
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


# Loggers of what the driver does in the client JVM that a YARN client does not print (the
# MRAppMaster does it, in its own log): HAM's driver, the IPC server, the job's committer.
DRIVER_LOGGERS = ("io.github.ham.mapreduce", "org.apache.hadoop.ipc",
                  "org.apache.hadoop.mapreduce.lib.output", "org.apache.hadoop.mapred.FileOutputCommitter")


def write_conf(jobdir: JobDir, core: dict[str, Any], mapred: dict[str, Any], log_level: str) -> None:
    files = {
        "core-site.xml": render.hadoop_xml(core),
        "mapred-site.xml": render.hadoop_xml(mapred),
        "log4j.properties": render.render("log4j.properties.j2", level=log_level,
                                          driver_log=str(jobdir.driver_log),
                                          driver_loggers=DRIVER_LOGGERS),
    }
    for name, text in files.items():
        path = jobdir.conf / name
        path.write_text(text)
        os.chmod(path, 0o600)
    # `mapred job|classpath|version` are `hadoop`'s job, classpath and version.
    for name in ("hadoop", "mapred"):
        shim = jobdir.bin / name
        shim.write_text(render.render("hadoop-shim.sh.j2", python=sys.executable))
        os.chmod(shim, 0o700)


def job_environment(env: Mapping[str, str], jobdir: JobDir, hadoop: Hadoop,
                    ham_jar: str, java_home: str) -> dict[str, str]:
    """The environment of the user's command: plain `hadoop jar` then runs on HAM."""
    out = dict(env)
    out[c.ENV_JOB_DIR] = str(jobdir.path)
    out["HADOOP_CONF_DIR"] = str(jobdir.conf)
    out["HADOOP_CLASSPATH"] = ":".join(p for p in (ham_jar, env.get("HADOOP_CLASSPATH", "")) if p)
    bins = [str(jobdir.bin)] + ([str(hadoop.home / "bin")] if hadoop.kind == "site" else [])
    out["PATH"] = ":".join(bins + [env.get("PATH", "/usr/bin:/bin")])
    if java_home:
        out["JAVA_HOME"] = java_home
    return out

