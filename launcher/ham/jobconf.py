"""The Hadoop configuration and environment of one job directory (pure where it can be)."""

from __future__ import annotations

import os
import socket
from pathlib import Path
from typing import Any, Mapping

from ham import contract as c
from ham import nohdfs, proc, render
from ham.hadoop import COMMANDS, Hadoop, command_argv
from ham.jobdir import JobDir
from ham.settings import Settings


CLIENT_POLL_MS = 100


def tuned_core_site() -> dict[str, Any]:
    """HAM's core-site tunings of Hadoop's own code, which the bench's local runner gets too
    (bench/hambench/localconf.py), so that its baseline runs as tuned."""
    return {
        # Hadoop's default buffer, 4 KB, made the map side's spills and file.out (on the shared
        # file system) go out and be merged in 4 KB system calls; 128 KB as production
        # clusters set it. lustre:// streams take it too (at least ham.lustre.record.buffer.size).
        c.IO_FILE_BUFFER_SIZE: c.HAM_IO_FILE_BUFFER_SIZE,
        # Off: with it on (Hadoop's default), closing any local file stream adds its statistics
        # to the thread's IOStatisticsContext through a parallel stream, 0.6 ms of a runner's
        # CPU a map (its main thread and the common fork-join pool) for statistics no MapReduce
        # code reads (bench/README.md, "Per-map cost of a warm runner"; docs/from-yarn.md).
        c.IOSTATISTICS_THREAD_LEVEL: "false",
        # Hadoop's local file system, with permissions set in the JVM: without libhadoop, which
        # the bundle lacks, Hadoop's starts a chmod process for every file and directory it
        # creates (42 in a 60-map job's client and driver, before its submission and end).
        "fs.file.impl": c.LOCAL_FS_CLASS,
        "fs.AbstractFileSystem.file.impl": c.LOCAL_AFS_CLASS,
    }


def core_site(settings: Settings, jobdir: JobDir) -> dict[str, Any]:
    props: dict[str, Any] = {
        # The shared file system is the default file system: no HDFS. Either its files as
        # they are (file:///) or HAM's lustre:/// under lustre_root.
        "fs.defaultFS": nohdfs.default_fs(settings),
        "hadoop.tmp.dir": str(jobdir.tmp),
        **tuned_core_site(),
        # HAM's own class names; HAL's (org.apache.hadoop.fs.LustreFileSystem...) still load.
        f"fs.{c.LUSTRE_SCHEME}.impl": c.LUSTRE_FS_CLASS,
        f"fs.AbstractFileSystem.{c.LUSTRE_SCHEME}.impl": c.LUSTRE_AFS_CLASS,
        # hdfs:// fails at once with one line naming the scheme to use (nohdfs.py).
        **nohdfs.core_site(),
    }
    if settings["lustre_root"]:
        props[c.LUSTRE_ROOT] = settings["lustre_root"]
    if settings["file_stripes"]:
        props[c.LUSTRE_FILE_STRIPES] = settings["file_stripes"]
    return props


def mapred_site(settings: Settings, jobdir: JobDir, *, framework: str, driver_host: str,
                java: str, runner_classpath: str, srun: str = c.DEFAULTS[c.SRUN],
                runner_java_opts: str | None = None, bind_host: str = "") -> dict[str, Any]:
    """HAM's keys of a job's mapred-site.xml; runner_java_opts (default: the setting's) may add
    to the setting, as class-data sharing does; bind_host (default: every address) is the one
    the driver listens on."""
    return {
        "mapreduce.framework.name": framework,
        c.JOB_DIR: str(jobdir.path),
        "yarn.app.mapreduce.am.staging-dir": str(jobdir.staging),
        "mapreduce.jobtracker.staging.root.dir": str(jobdir.staging),
        "mapreduce.cluster.local.dir": str(jobdir.local),
        c.DRIVER_HOST: driver_host,
        c.RUNNER_JAVA: java,
        c.RUNNER_CLASSPATH: runner_classpath,
        c.RUNNER_JAVA_OPTS: settings["runner_java_opts"] if runner_java_opts is None
        else runner_java_opts,
        c.RUNNERS_PER_NODE: settings["runners_per_node"],
        c.SRUN: srun,
        c.LUSTRE_MAP_OUTPUT_STRIPE: settings["map_output_stripe"],
        # The driver is in the client's JVM: asking it for the job's state is free, so the
        # client sees a job's end within 0.1 s, not up to Hadoop's 1 s (or 5 s) later.
        "mapreduce.client.progressmonitor.pollinterval": CLIENT_POLL_MS,
        "mapreduce.client.completion.pollinterval": CLIENT_POLL_MS,
        **({c.LUSTRE_OUTPUT_STRIPE: settings["output_stripe"]} if settings["output_stripe"] else {}),
        **({c.DRIVER_BIND_HOST: bind_host} if bind_host else {}),
        **({c.NETWORK: settings["network"]} if settings["network"] else {}),
        # Always rendered: 0 (off) must reach the driver, whose own default is on.
        c.RUNNER_WARM_IDLE_MS: settings["runner_warm_idle_ms"],
        # Always rendered, so that a user's or site's value reaches the driver.
        c.RUNNER_LOCAL_DIR: settings["runner_local_dir"],
    }


def yarn_site(jobdir: JobDir) -> dict[str, Any]:
    """Where the session's drivers aggregate their task logs, for `mapred job -logs` (YARN's
    key, read as on a YARN cluster from yarn-site.xml, which comes after yarn-default.xml)."""
    return {c.REMOTE_APP_LOG_DIR: str(jobdir.app_logs)}


def runner_classpath(hadoop: Hadoop, jobdir: JobDir, ham_jar: str,
                     env: Mapping[str, str], site_env: Path | None = None) -> str:
    """Classpath of the task runner JVMs: the job's conf, the HAM jar, then Hadoop's jars as
    `hadoop classpath` lists them (for a site, with its hadoop-env.sh, which may add jars). As
    in a YARN container, the client's HADOOP_CLASSPATH is not part of it (the job's own jars
    reach tasks as job.jar, -libjars and the distributed cache)."""
    clean = {k: v for k, v in env.items()
             if k not in ("HADOOP_CLASSPATH", "HADOOP_USER_CLASSPATH_FIRST")}
    clean["HADOOP_CONF_DIR"] = str(site_env.parent if site_env else jobdir.conf)
    hadoop_cp = proc.run([str(hadoop.bin()), "classpath"], env=clean).stdout.strip()
    return ":".join([str(jobdir.conf), ham_jar, hadoop_cp])


def client_classpath(hadoop: Hadoop, command_env: Mapping[str, str]) -> str:
    """Class path of the `hadoop` JVMs of a command run in command_env (its HADOOP_CONF_DIR
    and HADOOP_CLASSPATH), as the installation's script forms it."""
    return proc.run([str(hadoop.bin()), "classpath"], env=command_env).stdout.strip()


def local_address_towards(addr: str) -> str:
    """The local IP on the route to addr (a UDP connect sends nothing)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.connect((addr, 9))
        return s.getsockname()[0]


# driver.log's appender (templates/log4j.properties.j2), in the ham-mapreduce jar; JVMs without
# that jar on their class path (the history server) use log4j's own.
DRIVER_LOG_APPENDER = "io.github.ham.mapreduce.driver.report.DriverLogAppender"
PLAIN_LOG_APPENDER = "org.apache.log4j.FileAppender"
# Loggers of what the driver does in the client JVM that a YARN client does not print (the
# MRAppMaster does it, in its own log): HAM's driver, the IPC server, the job's committer.
DRIVER_LOGGERS = ("io.github.ham.mapreduce", "org.apache.hadoop.ipc",
                  "SecurityLogger.org.apache.hadoop.ipc", "org.apache.hadoop.mapred.JobConf",
                  "org.apache.hadoop.mapreduce.lib.output",
                  "org.apache.hadoop.mapred.FileOutputCommitter")


def site_env_file(hadoop: Hadoop, env: Mapping[str, str]) -> Path | None:
    """A site Hadoop's hadoop-env.sh (JAVA_HOME, heap sizes, extra jars): Apache's scripts read
    it from HADOOP_CONF_DIR, which in a job is the job's conf/, so the job's sources it."""
    if hadoop.kind != "site":
        return None
    conf = Path(env["HADOOP_CONF_DIR"]) if env.get("HADOOP_CONF_DIR") else \
        hadoop.home / "etc" / "hadoop"
    path = conf / "hadoop-env.sh"
    return path if path.is_file() else None


def write_conf(jobdir: JobDir, core: dict[str, Any], mapred: dict[str, Any], log_level: str,
               hadoop: Hadoop, bundle: Path, site_env: Path | None = None) -> None:
    files = {
        "core-site.xml": render.hadoop_xml(core),
        "mapred-site.xml": render.hadoop_xml(mapred),
        "yarn-site.xml": render.hadoop_xml(yarn_site(jobdir)),
        "log4j.properties": render.render("log4j.properties.j2", level=log_level,
                                          driver_log=str(jobdir.driver_log),
                                          driver_appender=DRIVER_LOG_APPENDER,
                                          driver_loggers=DRIVER_LOGGERS),
    }
    for name, text in files.items():
        path = jobdir.conf / name
        path.write_text(text)
        os.chmod(path, 0o600)
    if site_env is not None:
        path = jobdir.conf / "hadoop-env.sh"
        path.write_text(render.render("hadoop-env.sh.j2", site_env=str(site_env),
                                      conf_dir=str(jobdir.conf)))
        os.chmod(path, 0o600)
    # hadoop, mapred, yarn, hdfs: the job's Hadoop (HAM's front door for a site's).
    refusal = nohdfs.refusal(core["fs.defaultFS"])
    for name in COMMANDS:
        shim = jobdir.bin / name
        shim.write_text(render.render("hadoop-shim.sh.j2", command=name, kind=hadoop.kind,
                                      home=str(hadoop.home), refusal=refusal,
                                      target=command_argv(hadoop, bundle, name, [])))
        os.chmod(shim, 0o700)


# Other names tools look for a Hadoop installation by (mrjob searches HADOOP_PREFIX,
# HADOOP_HOME, HADOOP_INSTALL, then any HADOOP_*_HOME). Set only when the user has them set,
# to the job's Hadoop, so that every name leads to the same installation.
HOME_ALIASES = ("HADOOP_PREFIX", "HADOOP_INSTALL", "HADOOP_COMMON_HOME", "HADOOP_HDFS_HOME",
                "HADOOP_YARN_HOME")


def job_environment(env: Mapping[str, str], jobdir: JobDir, hadoop: Hadoop,
                    ham_jar: str, java_home: str) -> dict[str, str]:
    """The environment of the user's command, as a Hadoop installation sets it (HADOOP_HOME,
    HADOOP_MAPRED_HOME, HADOOP_CONF_DIR, HADOOP_CLASSPATH, the commands on PATH): plain
    `hadoop jar` then runs on HAM, and tools find Hadoop by convention."""
    out = dict(env)
    out[c.ENV_JOB_DIR] = str(jobdir.path)
    out["HADOOP_HOME"] = out["HADOOP_MAPRED_HOME"] = str(hadoop.home)
    for alias in HOME_ALIASES:
        if alias in env:
            out[alias] = str(hadoop.home)
    out["HADOOP_CONF_DIR"] = str(jobdir.conf)
    out["HADOOP_CLASSPATH"] = ":".join(p for p in (ham_jar, env.get("HADOOP_CLASSPATH", "")) if p)
    bins = [str(jobdir.bin), str(hadoop.home / "bin")]
    out["PATH"] = ":".join(bins + [env.get("PATH", "/usr/bin:/bin")])
    if java_home:
        out["JAVA_HOME"] = java_home
    return out

