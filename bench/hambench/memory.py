"""Peak RSS and CPU time of a job's driver and runners, read from /proc while the job runs.

Each process's own high-water mark (VmHWM in /proc/PID/status) is read every 0.2 s; a role's
figure is the largest of its processes' marks. Its CPU time (utime + stime in /proc/PID/stat)
is read at the same time; a role's figure is the sum over its processes of the last value
seen (what a process spends in its last 0.2 s is missed: at most 0.2 s a process). On a
machine whose cores are busy with other work, CPU per unit of work is the figure that load
does not hide (per-map cost, issue 32). Roles are told apart by their command lines:
HAM's driver is the `hadoop jar` client JVM (RunJar) and its runners TaskRunner JVMs; YARN's
driver is the MRAppMaster and its runners YarnChild JVMs; the local runner is one JVM (RunJar).
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Callable, Mapping

from hambench.util import cmdlines

Matcher = Callable[[str], bool]


def is_jvm(cmd: str) -> bool:
    """A java process itself, not the srun or shell that starts one with the same words."""
    return cmd.split(" ", 1)[0].endswith("/java") or cmd.startswith("java ")


def ham_roles(marker: str) -> dict[str, Matcher]:
    return {"driver": lambda c: is_jvm(c) and "RunJar" in c and marker in c
            and "TaskRunner" not in c,
            "runner": lambda c: is_jvm(c) and "TaskRunner" in c and marker in c}


def yarn_roles(marker: str) -> dict[str, Matcher]:
    return {"driver": lambda c: is_jvm(c) and "MRAppMaster" in c and marker in c,
            "runner": lambda c: is_jvm(c) and "YarnChild" in c and marker in c}


def local_roles(marker: str) -> dict[str, Matcher]:
    return {"driver": lambda c: is_jvm(c) and "RunJar" in c and marker in c}


def vm_hwm_mb(status_text: str) -> float | None:
    """VmHWM of a /proc/PID/status text, in MB; None for a process without one (a kernel
    thread, a zombie)."""
    for line in status_text.splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024.0
    return None


def cpu_s(stat_text: str, ticks: int = os.sysconf("SC_CLK_TCK")) -> float:
    """utime + stime of a /proc/PID/stat text, in seconds (fields 14 and 15, counted after
    the command name, which may hold spaces)."""
    fields = stat_text.rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / ticks


def maps_app_archive(maps_text: str) -> bool:
    """Whether a /proc/PID/maps text maps an application class-data archive: a .jsa other than
    the JDK's own (lib/server/classes*.jsa), which every JVM maps by default."""
    for line in maps_text.splitlines():
        path = line.split()[-1] if line.split() else ""
        if path.endswith(".jsa") and not Path(path).name.startswith("classes"):
            return True
    return False


class PeakRss(threading.Thread):
    """Use as a context manager around a job; .peaks then holds role -> MB."""

    def __init__(self, roles: Mapping[str, Matcher], period_s: float = 0.2) -> None:
        super().__init__(daemon=True)
        self.roles = roles
        self.period_s = period_s
        self.peaks: dict[str, float] = {}
        self._done = threading.Event()
        self._seen: dict[int, str] = {}
        self.cds: dict[int, bool] = {}  # runner pid -> whether it mapped a class-data archive
        self.cpu: dict[int, float] = {}  # pid -> its CPU seconds when last read

    def run(self) -> None:
        while not self._done.is_set():
            self.sample()
            self._done.wait(self.period_s)

    def sample(self) -> None:
        for pid, cmd in cmdlines():
            role = self._seen.get(pid) or next((r for r, m in self.roles.items() if m(cmd)),
                                               None)
            if role is None:
                continue
            self._seen[pid] = role
            # until seen mapped: a JVM read in its first milliseconds has not mapped it yet
            if role == "runner" and not self.cds.get(pid):
                try:
                    self.cds[pid] = maps_app_archive((Path("/proc") / str(pid) / "maps")
                                                     .read_text())
                except OSError:
                    pass
            try:
                mb = vm_hwm_mb((Path("/proc") / str(pid) / "status").read_text())
            except OSError:
                continue
            if mb is not None and mb > self.peaks.get(role, 0.0):
                self.peaks[role] = mb
            try:
                self.cpu[pid] = cpu_s((Path("/proc") / str(pid) / "stat").read_text())
            except (OSError, IndexError, ValueError):
                pass

    def __enter__(self) -> "PeakRss":
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._done.set()
        self.join()

    def metrics(self) -> dict[str, float]:
        """Peak RSS per role, CPU seconds per role ({role}_cpu_s, JVM start-up included), and
        runner_cds: the share of runner JVMs seen that had mapped a class-data archive (shows
        that HAM's and the tuned YARN's archives are used)."""
        m = {f"{role}_rss_MB": mb for role, mb in self.peaks.items()}
        for pid, secs in self.cpu.items():
            key = f"{self._seen[pid]}_cpu_s"
            m[key] = m.get(key, 0.0) + secs
        if self.cds:
            m["runner_cds"] = sum(self.cds.values()) / len(self.cds)
        return m
