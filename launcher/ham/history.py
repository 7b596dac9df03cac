"""`ham history-server`: Hadoop's own JobHistoryServer over HAM's job directories.

Each HAM job leaves its history in Hadoop's format in its job directory
(`jobs/<id>/history/done/`: the `.jhist`, `<id>_conf.xml` and `<id>.summary` the MRAppMaster
would publish). This module runs the real JobHistoryServer (the Hadoop 3.4.2 jars bundled in
`history-server/`, no YARN daemons) on a directory of its own, and copies each finished job's
files into its intermediate directory as they appear, as the MRAppMaster's history handler
does: the summary, the configuration, the `.jhist` last, each under a temporary name first.
The server moves them to its done directory; HAM's copies stay with the job (`ham status`,
`ham report` and `mapred job -history` keep reading them).

The attempts' logs are shown as YARN shows them, from aggregated logs: each driver writes its
job's into the session's `app-logs/` (YARN's remote-app-log-dir layout, Hadoop's TFile format)
when the job ends, and the server's own `app-logs/` (its remote-app-log-dir) holds a symbolic
link to each job's application directory, made before the job's history is handed over.
"""

from __future__ import annotations

import getpass
import logging
import os
import shutil
import signal
import socket
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator

from ham import contract as c
from ham import proc, render
from ham.errors import EnvironmentProblem, UsageError
from ham.hadoop import bundle_dir
from ham.java import java_binary
from ham.jobconf import PLAIN_LOG_APPENDER
from ham.settings import Settings

log = logging.getLogger(__name__)

MAIN = "org.apache.hadoop.mapreduce.v2.hs.JobHistoryServer"
# Its web app (Guice, cglib) reflects into these on Java 17; without them it does not start.
ADD_OPENS = ["--add-opens", "java.base/java.lang=ALL-UNNAMED",
             "--add-opens", "java.base/java.util=ALL-UNNAMED",
             "--add-opens", "java.base/java.lang.reflect=ALL-UNNAMED"]
TEN_YEARS_MS = 10 * 365 * 24 * 3600 * 1000  # the server deletes older jobs (its max-age)


@dataclass(frozen=True)
class Server:
    """Where one history server keeps its files, and the job directories it reads."""

    home: Path  # conf/, intermediate/, done/, published/, app-logs/, server.log
    shared: Path  # the shared root
    user: str | None  # whose jobs it shows; None: every user's (a site's server)
    bind: str
    port: int

    @property
    def roots(self) -> list[Path]:
        """The <shared_root>/<user> directories whose jobs it shows (looked at again on each
        scan: a site's server sees a new user's first job)."""
        if self.user is not None:
            return [self.shared / self.user]
        return sorted(p for p in self.shared.iterdir()
                      if p.is_dir() and not p.name.startswith("."))

    @property
    def url(self) -> str:
        return f"http://{self.bind}:{self.port}"


def plan(settings: Settings, port: int, bind: str, all_users: bool, home: str | None) -> Server:
    shared = Path(settings["shared_root"])
    if not shared.is_dir():
        raise EnvironmentProblem(f"shared root {shared} does not exist: set shared_root")
    user = None if all_users else getpass.getuser()
    default_home = shared / ".history" if user is None else shared / user / ".history"
    return Server(Path(home) if home else default_home, shared, user, bind, port)


def published_mark(server: Server, done: Path) -> Path:
    """The server's own record that it has a job (<user>.<session>.<job id>): kept in its home,
    not in the job directory, so a user's server and the site's each take every job."""
    job = done.parent.parent
    return server.home / "published" / f"{job.parents[2].name}.{job.parents[1].name}.{job.name}"


def finished_jobs(server: Server) -> Iterator[Path]:
    """history/done directories of finished jobs not yet given to the server."""
    for root in server.roots:
        for done in sorted(root.glob(f"*/{c.JOBS}/*/history/done")):
            if not published_mark(server, done).exists() and any(done.glob("*.jhist")):
                yield done


def link_logs(server: Server, job: Path) -> None:
    """Link the job's aggregated-log directory (<session>/app-logs/<user>/<suffix>/<bucket>/
    <application id>, made by its driver before the history is published) into the server's
    app-logs/ at the same place."""
    session_logs = job.parent.parent / c.APP_LOGS
    app = "application_" + job.name.removeprefix("job_")
    for app_dir in session_logs.glob(f"*/*/*/{app}"):
        link = server.home / c.APP_LOGS / app_dir.relative_to(session_logs)
        if not link.is_symlink():
            link.parent.mkdir(parents=True, exist_ok=True)
            link.symlink_to(app_dir)


def publish(server: Server, done: Path) -> None:
    """Copy a job's three files into the server's intermediate directory, the .jhist last (its
    logs linked first)."""
    link_logs(server, done.parent.parent)
    intermediate = server.home / "intermediate" / "ham"
    order = sorted(done.iterdir(), key=lambda p: (p.suffix == ".jhist", p.name))
    for src in order:
        tmp = intermediate / (src.name + "_tmp")
        shutil.copyfile(src, tmp)
        os.chmod(tmp, 0o660)
        tmp.replace(intermediate / src.name)
    published_mark(server, done).touch()


def write_conf(server: Server) -> Path:
    try:
        return _write_conf(server)
    except OSError as exc:  # --dir (or the default under the shared root) is no place for it
        raise UsageError(f"cannot write the history server's files: {exc.filename or server.home}"
                         f": {exc.strerror}: choose another directory with --dir") from None


def _write_conf(server: Server) -> Path:
    conf = server.home / "conf"
    conf.mkdir(parents=True, exist_ok=True)
    (server.home / "intermediate" / "ham").mkdir(parents=True, exist_ok=True)
    (server.home / "done").mkdir(parents=True, exist_ok=True)
    (server.home / "published").mkdir(parents=True, exist_ok=True)
    (server.home / c.APP_LOGS).mkdir(parents=True, exist_ok=True)
    site = {
        "mapreduce.jobhistory.address": f"{server.bind}:0",
        "mapreduce.jobhistory.admin.address": f"{server.bind}:0",
        "mapreduce.jobhistory.webapp.address": f"{server.bind}:{server.port}",
        "mapreduce.jobhistory.intermediate-done-dir": (server.home / "intermediate").as_uri(),
        "mapreduce.jobhistory.done-dir": (server.home / "done").as_uri(),
        "mapreduce.jobhistory.move.interval-ms": 5000,
        "mapreduce.jobhistory.max-age-ms": TEN_YEARS_MS,
        "mapreduce.jobhistory.recovery.enable": "false",
    }
    (conf / "mapred-site.xml").write_text(render.hadoop_xml(site))
    (conf / "core-site.xml").write_text(render.hadoop_xml({"fs.defaultFS": "file:///"}))
    # The attempts' "logs" pages read aggregated logs, as a JobHistoryServer of a YARN cluster.
    (conf / "yarn-site.xml").write_text(render.hadoop_xml({
        "yarn.log-aggregation-enable": "true",
        c.REMOTE_APP_LOG_DIR: (server.home / c.APP_LOGS).as_uri()}))
    (conf / "log4j.properties").write_text(render.render(
        "log4j.properties.j2", level="INFO", driver_log=str(server.home / "server.log"),
        driver_appender=PLAIN_LOG_APPENDER, driver_loggers=["org.apache.hadoop"]))
    return conf


def port_free(bind: str, port: int) -> bool:
    with socket.socket() as s:
        try:
            return s.connect_ex((bind, port)) != 0
        except socket.gaierror as exc:  # resolving the name failed: the user's input
            raise UsageError(f"--bind {bind}: {exc.strerror}: give a host name or IP address "
                             f"of this machine") from None


def start(settings: Settings, server: Server) -> proc.Popen:
    if not port_free(server.bind, server.port):
        raise UsageError(f"port {server.port} on {server.bind} is in use: choose another with --port")
    dist = bundle_dir(settings)
    if not (dist / "history-server").is_dir():
        raise EnvironmentProblem(f"{dist} has no history-server/: rebuild it with "
                                 f"`mvn -f mapreduce/pom.xml package -DskipTests`")
    conf = write_conf(server)
    java = java_binary(settings["java_home"])
    jars = [dist / "share" / "hadoop" / d for d in ("common", "common/lib", "hdfs", "mapreduce",
                                                    "yarn")] + [dist / "history-server"]
    classpath = ":".join([str(conf), *(f"{d}/*" for d in jars)])
    return proc.spawn([java, *ADD_OPENS, "-cp", classpath, MAIN], stdin=proc.DEVNULL,
                      stdout=proc.DEVNULL, stderr=proc.DEVNULL,
                      start_new_session=True)  # Ctrl-C is handled here, then it is stopped


def wait_ready(server: Server, child: proc.Popen, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if child.poll() is not None:
            raise EnvironmentProblem(f"the JobHistoryServer exited ({child.returncode}): see "
                                     f"{server.home / 'server.log'}")
        try:
            with urllib.request.urlopen(f"{server.url}/ws/v1/history/info", timeout=5):
                return
        except OSError:
            time.sleep(0.5)
    raise EnvironmentProblem(f"the JobHistoryServer did not answer at {server.url} within "
                             f"{timeout:.0f} s: see {server.home / 'server.log'}")


def serve(settings: Settings, server: Server, on_ready: Callable[[Server], None],
          poll: float = 2.0) -> int:
    """Run the server until SIGINT/SIGTERM, publishing finished jobs as they appear."""
    child = start(settings, server)
    stopping: list[int] = []
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda signum, _frame: stopping.append(signum))
    try:
        wait_ready(server, child)
        on_ready(server)
        while not stopping and child.poll() is None:
            for done in finished_jobs(server):
                publish(server, done)
            time.sleep(poll)
    finally:
        if child.poll() is None:
            child.terminate()
            try:
                child.wait(timeout=20)
            except proc.TimeoutExpired:
                child.kill()
    return 0 if stopping else 1
