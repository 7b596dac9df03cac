"""Peak RSS of a job's driver and runners, read from /proc while the job runs.

Each process's own high-water mark (VmHWM in /proc/PID/status) is read every 0.2 s; a role's
figure is the largest of its processes' marks. Roles are told apart by their command lines:
HAM's driver is the `hadoop jar` client JVM (RunJar) and its runners TaskRunner JVMs; YARN's
driver is the MRAppMaster and its runners YarnChild JVMs; the local runner is one JVM (RunJar).
"""

from __future__ import annotations

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

    def __enter__(self) -> "PeakRss":
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._done.set()
        self.join()

    def metrics(self) -> dict[str, float]:
        """Peak RSS per role, and runner_cds: the share of runner JVMs seen that had mapped a
        class-data archive (shows that HAM's and the tuned YARN's archives are used)."""
        m = {f"{role}_rss_MB": mb for role, mb in self.peaks.items()}
        if self.cds:
            m["runner_cds"] = sum(self.cds.values()) / len(self.cds)
        return m
