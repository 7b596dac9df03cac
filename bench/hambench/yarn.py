"""An ephemeral YARN cluster inside one Slurm allocation, Magpie-style.

salloc --no-shell -N n; ResourceManager on the first node and one NodeManager (with the
mapreduce_shuffle aux service) per node, each started with `srun --overlap` from the pinned
Hadoop 3.4.2 jars in bench/work/yarn-lib (bench/yarn/pom.xml); fs.defaultFS=file:/// on the
shared directory. Readiness is read from the RM REST API with yarn-api-client. Clients run with
srun on the first node (inside the node network namespaces, where node names resolve).
Start-up (allocation + daemons + readiness) and shutdown (daemons stopped + allocation free)
are timed separately.
"""

from __future__ import annotations

import logging
import os
import re
import shutil
import signal
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping, Sequence

from yarn_api_client.resource_manager import ResourceManager

logging.getLogger("yarn_api_client").setLevel(logging.CRITICAL)

from hambench.util import YARN_LIB, BenchError, Run, node_addrs, run, slurm_job_alive

ADD_OPENS = " ".join(f"--add-opens=java.base/{p}=ALL-UNNAMED" for p in (
    "java.lang", "java.lang.reflect", "java.util", "java.util.concurrent", "java.io", "java.net",
    "java.nio", "sun.nio.ch", "java.util.regex"))
TASK_OPTS = "-Xmx1g -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -XX:NewRatio=1"  # same as HAM's runner_java_opts
DAEMON_OPTS = "-Xmx512m -XX:+UseSerialGC"

# YARN as a Hadoop admin tunes a small cluster for short jobs (profile "tuned"; "default" is
# Hadoop's defaults), each key against the default it replaces: bench/README.md lists them.
TUNED: dict[str, dict[str, object]] = {
    "core": {
        "io.file.buffer.size": 131072,  # 4096: HAM's core-site value (ham.contract)
    },
    "yarn": {
        "yarn.resourcemanager.nodemanagers.heartbeat-interval-ms": 100,  # 1000
    },
    "mapred": {
        "yarn.app.mapreduce.am.scheduler.heartbeat.interval-ms": 100,  # 1000
        "mapreduce.client.progressmonitor.pollinterval": 100,  # 1000
        "mapreduce.client.completion.pollinterval": 100,  # 5000
        # 0.05: reducers took containers the maps were waiting for; with a handful of
        # containers a reducer only waits idle before the last map ends
        "mapreduce.job.reduce.slowstart.completedmaps": 1.0,
        # a job of at most 9 maps, 1 reduce and one block of input runs in the AM's JVM
        "mapreduce.job.ubertask.enable": "true",
        # the AM is HAM's driver's counterpart: the same JIT choice as HAM's client (C1)
        "yarn.app.mapreduce.am.command-opts": f"-Xmx768m {TASK_OPTS} {ADD_OPENS}",
    },
}
PROFILES = ("default", "tuned")
CDS_CLASSLISTS = ("runner.classlist", "client.classlist")  # in the HAM bundle's cds/
CDS_DIR = YARN_LIB.parent / "yarn-cds"


def task_cds_archive(bundle: Path) -> Path | None:
    """tuned: class-data sharing for YARN's JVMs (AM and tasks), as HAM has for its runners and
    client: one static archive of the classes HAM's runner and client JVMs load (the bundle's
    class lists; a class YARN does not have is skipped), over YARN's jars; made once (before
    any cluster starts, so that no start-up pays for it). None if it cannot be made."""
    jsa = CDS_DIR / "yarn-tasks.jsa"
    if jsa.is_file():
        return jsa
    lists = [bundle / "cds" / n for n in CDS_CLASSLISTS]
    if not all(f.is_file() for f in lists):
        return None
    CDS_DIR.mkdir(parents=True, exist_ok=True)
    names = sorted({line for f in lists for line in f.read_text().splitlines()
                    if line and not line.startswith(("#", "@"))})
    classlist = CDS_DIR / "yarn-tasks.classlist"
    classlist.write_text("\n".join(names) + "\n")
    r = run(["java", "-Xshare:dump", f"-XX:SharedClassListFile={classlist}",
             f"-XX:SharedArchiveFile={jsa}", "-cp", ":".join(_cds_jars())], check=False,
            timeout=600)
    return jsa if r.rc == 0 and jsa.is_file() else None


def _cds_jars() -> list[str]:
    return sorted(str(j) for j in YARN_LIB.glob("*.jar"))


def task_cds_opts(jsa: Path, conf: Path) -> str:
    """The JVM options that use the archive. The JVM maps it only when its class path starts
    with the archive's jars, and a YARN container's CLASSPATH starts with its own directory;
    so the options give the class path too (-cp wins over CLASSPATH): the archive's jars, the
    cluster's conf/, then the container's job jar and its directory (job.xml is read from
    the class path)."""
    cp = ":".join([*_cds_jars(), str(conf), "job.jar/job.jar", "job.jar/classes/", "."])
    return f"-XX:SharedArchiveFile={jsa} -Xlog:cds=off -Xlog:cds+dynamic=off -cp {cp}"


def _site(props: Mapping[str, object]) -> str:
    body = "".join(f"  <property><name>{k}</name><value>{v}</value></property>\n"
                   for k, v in props.items())
    return f'<?xml version="1.0"?>\n<configuration>\n{body}</configuration>\n'


LOG4J = """log4j.rootLogger=INFO,console
log4j.appender.console=org.apache.log4j.ConsoleAppender
log4j.appender.console.target=System.err
log4j.appender.console.layout=org.apache.log4j.PatternLayout
log4j.appender.console.layout.ConversionPattern=%d{ISO8601} %p %c{2}: %m%n
"""


def java_home() -> str:
    if os.environ.get("JAVA_HOME"):
        return os.environ["JAVA_HOME"]
    java = shutil.which("java")
    if not java:
        raise BenchError("java not found")
    return str(Path(os.path.realpath(java)).parent.parent)


@dataclass
class YarnCluster:
    """One ephemeral YARN cluster; use start(), job(), stop()."""

    base: Path
    env: dict[str, str]
    nodes: int = 3
    slots_per_node: int = 1
    profile: str = "default"
    container_mb: int = 1024
    ready_timeout: float = 180.0
    job_id: str = ""
    hosts: list[str] = field(default_factory=list)
    addrs: dict[str, str] = field(default_factory=dict)
    procs: list[subprocess.Popen[bytes]] = field(default_factory=list)
    t_start0: float = 0.0
    startup_s: float = 0.0
    alloc_s: float = 0.0
    shutdown_s: float = 0.0

    # ---- configuration -------------------------------------------------------------
    @property
    def rm_addr(self) -> str:
        return self.addrs[self.hosts[0]]

    @property
    def common_conf(self) -> Path:
        return self.base / "conf"

    def classpath(self, conf: Path) -> str:
        return f"{conf}:{YARN_LIB}/*"

    def _write_conf(self) -> None:
        if self.base.exists():
            shutil.rmtree(self.base)
        staging = self.base / "staging"
        staging.mkdir(parents=True)
        core = {"fs.defaultFS": "file:///", "hadoop.tmp.dir": self.base / "tmp"}
        yarn = {
            "yarn.resourcemanager.hostname": self.rm_addr,
            "yarn.resourcemanager.scheduler.class":
                "org.apache.hadoop.yarn.server.resourcemanager.scheduler.fifo.FifoScheduler",
            "yarn.scheduler.minimum-allocation-mb": 128,
            "yarn.nodemanager.aux-services": "mapreduce_shuffle",
            "yarn.nodemanager.aux-services.mapreduce_shuffle.class":
                "org.apache.hadoop.mapred.ShuffleHandler",
            "yarn.nodemanager.vmem-check-enabled": "false",
            "yarn.nodemanager.pmem-check-enabled": "false",
            "yarn.nodemanager.resource.cpu-vcores": 16,
            "yarn.nodemanager.disk-health-checker.max-disk-utilization-per-disk-percentage": 99,
            "yarn.nodemanager.delete.debug-delay-sec": 0,
            "yarn.log-aggregation-enable": "false",
            "yarn.application.classpath": f"{self.common_conf},{YARN_LIB}/*",
            "yarn.nodemanager.env-whitelist":
                "JAVA_HOME,HADOOP_COMMON_HOME,HADOOP_HDFS_HOME,HADOOP_CONF_DIR,"
                "CLASSPATH_PREPEND_DISTCACHE,HADOOP_YARN_HOME,HADOOP_HOME,PATH,LANG,TZ",
        }
        mapred = {
            "mapreduce.framework.name": "yarn",
            "yarn.app.mapreduce.am.staging-dir": staging,
            "mapreduce.application.classpath": f"{self.common_conf},{YARN_LIB}/*",
            "yarn.app.mapreduce.am.resource.mb": self.container_mb,
            "yarn.app.mapreduce.am.command-opts": f"-Xmx768m {ADD_OPENS}",
            "mapreduce.map.memory.mb": self.container_mb,
            "mapreduce.reduce.memory.mb": self.container_mb,
            "mapreduce.map.java.opts": f"{TASK_OPTS} {ADD_OPENS}",
            "mapreduce.reduce.java.opts": f"{TASK_OPTS} {ADD_OPENS}",
            "mapreduce.cluster.local.dir": self.base / "mrlocal",
        }
        for conf, extra in [(self.common_conf, {})] + [
                (self.base / f"conf-{h}", {
                    "yarn.nodemanager.hostname": self.addrs[h],
                    "yarn.nodemanager.local-dirs": self.base / "nm" / h / "local",
                    "yarn.nodemanager.log-dirs": self.base / "nm" / h / "logs",
                    # one extra container on the first node for the MR ApplicationMaster, so
                    # tasks get exactly nodes*slots containers, like HAM's runners
                    "yarn.nodemanager.resource.memory-mb":
                        self.container_mb * (self.slots_per_node + (1 if i == 0 else 0)),
                }) for i, h in enumerate(self.hosts)]:
            tuned = self._tuned() if self.profile == "tuned" else {}
            conf.mkdir(parents=True, exist_ok=True)
            (conf / "core-site.xml").write_text(_site({**core, **tuned.get("core", {})}))
            (conf / "yarn-site.xml").write_text(_site({**yarn, **extra,
                                                       **tuned.get("yarn", {})}))
            (conf / "mapred-site.xml").write_text(_site({**mapred, **tuned.get("mapred", {})}))
            (conf / "log4j.properties").write_text(LOG4J)

    def _tuned(self) -> dict[str, dict[str, object]]:
        jsa = CDS_DIR / "yarn-tasks.jsa"
        if not jsa.is_file():  # task_cds_archive was not run or failed: no CDS
            return TUNED
        opts = task_cds_opts(jsa, self.common_conf)
        mapred = dict(TUNED["mapred"])
        mapred["yarn.app.mapreduce.am.command-opts"] = \
            f"{mapred['yarn.app.mapreduce.am.command-opts']} {opts}"
        for kind in ("map", "reduce"):
            mapred[f"mapreduce.{kind}.java.opts"] = f"{TASK_OPTS} {ADD_OPENS} {opts}"
        return {**TUNED, "mapred": mapred}

    # ---- lifecycle ------------------------------------------------------------------
    def _srun(self, argv: Sequence[str], nodes: str, ntasks: int) -> list[str]:
        return ["srun", f"--jobid={self.job_id}", "--overlap", f"--nodelist={nodes}",
                f"-N{len(nodes.split(','))}", f"-n{ntasks}", "--ntasks-per-node=1",
                "--kill-on-bad-exit=0", *argv]

    def _daemon(self, name: str, cls: str, nodes: list[str]) -> None:
        logf = (self.base / f"{name}.log").open("wb")
        # each task picks its node's conf directory
        script = (f'exec java {DAEMON_OPTS} {ADD_OPENS} -Dyarn.log.dir="$1/logs" '
                  f'-cp "$1/conf-$SLURMD_NODENAME:{YARN_LIB}/*" {cls}')
        argv = self._srun(["/bin/sh", "-c", script, "sh", str(self.base)], ",".join(nodes),
                          len(nodes))
        self.procs.append(subprocess.Popen(argv, env=self.env, stdout=logf,
                                           stderr=subprocess.STDOUT, start_new_session=True))

    def start(self) -> None:
        self.t_start0 = time.time()
        self.env = {**self.env, "JAVA_HOME": java_home()}
        r = run(["salloc", f"-N{self.nodes}", "--no-shell", "-J", "ham-bench-yarn"],
                env=self.env, timeout=600)
        m = re.search(r"Granted job allocation (\d+)", r.err + r.out)
        if not m:
            raise BenchError(f"salloc gave no job id: {r.err}")
        self.job_id = m.group(1)
        self.alloc_s = time.time() - self.t_start0
        nl = run(["squeue", "-h", "-j", self.job_id, "-o", "%N"], env=self.env).out.strip()
        self.hosts = run(["scontrol", "show", "hostnames", nl], env=self.env).out.split()
        self.addrs = node_addrs(self.env)
        self._write_conf()
        self._daemon("rm", "org.apache.hadoop.yarn.server.resourcemanager.ResourceManager",
                     self.hosts[:1])
        self._daemon("nm", "org.apache.hadoop.yarn.server.nodemanager.NodeManager", self.hosts)
        self._wait_ready()
        self.startup_s = time.time() - self.t_start0

    def rest(self) -> ResourceManager:
        return ResourceManager(service_endpoints=[f"http://{self.rm_addr}:8088"], timeout=5)

    def _wait_ready(self) -> None:
        deadline = time.time() + self.ready_timeout
        last = "no answer"
        while time.time() < deadline:
            for p in self.procs:
                if p.poll() is not None:
                    raise BenchError(f"a YARN daemon exited early (rc={p.returncode}); "
                                     f"see {self.base}/rm.log and nm.log")
            try:
                metrics = self.rest().cluster_metrics().data["clusterMetrics"]
                last = f"activeNodes={metrics['activeNodes']}"
                if metrics["activeNodes"] >= len(self.hosts) and metrics["totalMB"] > 0:
                    return
            except Exception as e:  # connection refused until the RM web app is up
                last = type(e).__name__
            time.sleep(0.2)
        raise BenchError(f"YARN not ready after {self.ready_timeout}s ({last}); see {self.base}")

    def job(self, argv: Sequence[str], log_to: Path | None = None) -> Run:
        """Run `hadoop jar ...` (argv after 'jar') as a YARN client on the first node."""
        # tuned: the client with HAM's client JIT choice (C1), as the admin's HADOOP_CLIENT_OPTS
        jit = ["-XX:TieredStopAtLevel=1"] if self.profile == "tuned" else []
        java = ["java", "-Xmx512m", *jit, *ADD_OPENS.split(),
                "-cp", self.classpath(self.common_conf), "org.apache.hadoop.util.RunJar", *argv]
        r = run(self._srun(java, self.hosts[0], 1), env=self.env, check=False,
                log_to=log_to, timeout=3600)
        apps = re.findall(r"Submitted application (application_\d+_\d+)", r.err + r.out)
        r.extra["apps"] = []
        for app in apps:
            try:
                a = self.rest().cluster_application(app).data["app"]
                r.extra["apps"].append({"id": app, "state": a.get("finalStatus"),
                                        "started": a["startedTime"] / 1000.0,
                                        "finished": a["finishedTime"] / 1000.0})
            except Exception as e:
                r.extra["apps"].append({"id": app, "error": str(e)})
        if r.rc != 0:
            tail = "\n".join((r.out + r.err).strip().splitlines()[-30:])
            raise BenchError(f"YARN job failed (rc={r.rc}): {' '.join(map(str, argv[:4]))}\n{tail}")
        return r

    def stop(self) -> None:
        t0 = time.time()
        for p in self.procs:
            if p.poll() is None:
                try:
                    os.killpg(p.pid, signal.SIGTERM)
                except ProcessLookupError:
                    pass
        for p in self.procs:
            try:
                p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()
        if self.job_id:
            run(["scancel", self.job_id], env=self.env, check=False, timeout=30)
            while slurm_job_alive(self.job_id, self.env) and time.time() - t0 < 60:
                time.sleep(0.05)
        self.shutdown_s = time.time() - t0
        self.procs = []
