"""Run a list of `hadoop jar` steps three ways: through HAM (`ham run`), through Hadoop's local
runner (`ham hadoop` without HADOOP_CONF_DIR) and as clients of an ephemeral YARN cluster."""

from __future__ import annotations

import getpass
import json
import os
import re
import shutil
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from hambench.chain import cold_cache
from hambench.util import cmdlines, WORK, BenchError, log, run, runner_pids, slurm_job_alive
from hambench.yarn import YarnCluster

CHAIN = Path(__file__).resolve().parent / "chain.py"
SHARED = WORK / "shared"
LOGS = WORK / "logs"
RECORDS = WORK / "records"


@dataclass(frozen=True)
class Step:
    """One `hadoop jar JAR PROGRAM [-D k=v ...] ARGS` invocation."""

    name: str
    jar: Path
    program: str
    args: tuple[str, ...]
    conf: tuple[tuple[str, str], ...] = ()
    clean: tuple[Path, ...] = ()  # removed before the step runs (output directories)

    def argv(self, extra: Mapping[str, str] | None = None) -> list[str]:
        defs = [*self.conf, *(extra or {}).items()]
        return [str(self.jar), self.program,
                *[x for k, v in defs for x in ("-D", f"{k}={v}")], *self.args]

    def prepare(self) -> None:
        for p in self.clean:
            shutil.rmtree(p, ignore_errors=True)


@dataclass
class Sample:
    """What one variant's run of one case measured."""

    steps: list[dict[str, Any]] = field(default_factory=list)  # per step: wall_s, job_s ...
    info: dict[str, Any] = field(default_factory=dict)

    @property
    def cmd_s(self) -> float:
        return sum(s["wall_s"] for s in self.steps)


# ---- HAM ------------------------------------------------------------------------------

def _load_statuses(job_dir: Path) -> list[dict[str, Any]]:
    out = [json.loads(p.read_text()) for p in sorted(job_dir.glob("jobs/*/status.json"))]
    return sorted(out, key=lambda s: s.get("start_time") or 0)


def attempt_span(status: Mapping[str, Any], kind: str = "MAP") -> tuple[float, float]:
    """(first start, last finish) in seconds of the succeeded attempts of one type."""
    att = [a for a in status.get("attempts", []) if a.get("type") == kind and a.get("start")
           and a.get("finish")]
    if not att:
        return (0.0, 0.0)
    return (min(a["start"] for a in att) / 1000.0, max(a["finish"] for a in att) / 1000.0)


def attempts_started_after(status: Mapping[str, Any], t: float, kind: str = "MAP") -> int:
    """How many attempts of one type started at or after t (seconds)."""
    return sum(1 for a in status.get("attempts", [])
               if a.get("type") == kind and a.get("start") and a["start"] / 1000.0 >= t)


def job_dir_of(mine: Path, slurm_id: str, since: float) -> Path:
    """The directory `ham run` made for allocation `slurm_id` at or after `since`: `<id>`, or
    `<id>.<n>` when `<id>` was taken (a job of an earlier test cluster with the same id leaves
    its directory when the bench's work directory outlives the cluster: HAM takes the next
    free name, launcher/ham/jobdir.py)."""
    names = re.compile(re.escape(slurm_id) + r"(\.\d+)?")
    made = [p for p in mine.glob(f"{slurm_id}*")
            if names.fullmatch(p.name) and p.stat().st_mtime >= since - 1]
    return max(made, key=lambda p: p.stat().st_mtime) if made else mine / slurm_id


def run_ham(steps: list[Step], env: Mapping[str, str], tag: str, nodes: int,
            runners_per_node: int, overcommit: bool = False, time_v: bool = False,
            settle_s: float | None = None, parallel: bool = False) -> Sample:
    """One `ham run -N nodes` whose command runs every step in order (chain.py); with settle_s,
    each step's writes are synced (timed), and each step starts from a dropped page cache
    settle_s seconds old (chain.cold_cache): the first from a drop before `ham run`, so the
    wait is not in HAM's start-up."""
    SHARED.mkdir(parents=True, exist_ok=True)
    chain_out = WORK / "tmp" / f"{tag}.chain.json"
    chain_out.parent.mkdir(parents=True, exist_ok=True)
    tv_dir = WORK / "tmp" / f"{tag}.timev"
    for s in steps:
        s.prepare()
    cmd: list[str] = [sys.executable, str(CHAIN), str(chain_out)]
    if time_v:
        cmd += ["--time-v", str(tv_dir)]
    if parallel:  # the steps run at once, as jobs of one allocation side by side
        cmd.append("--parallel")
    if settle_s is not None:
        cmd += ["--sync", str(settle_s)]
    cmd.append("--")
    for i, s in enumerate(steps):
        if i:
            cmd.append("--then")
        cmd += ["hadoop", "jar", *s.argv()]
    argv = ["ham", "run", f"-N{nodes}", "--retention", "all", "-J", f"bench-{tag}"]
    if overcommit:
        argv.append("--slurm-arg=--overcommit")
    argv += ["--", *cmd]
    henv = {**env, "HAM_SHARED_ROOT": str(SHARED), "HAM_RUNNERS_PER_NODE": str(runners_per_node)}
    sampler = DriverSampler(str(SHARED)) if time_v else None
    if settle_s is not None:
        cold_cache(settle_s)
    t_launch = time.time()
    if sampler:
        sampler.start()
    r = run(argv, env=henv, check=False, log_to=LOGS / f"{tag}.log", timeout=3600)
    t_ret = time.time()
    if sampler:
        sampler.stop_event.set()
        sampler.join()
    m = re.search(r"Granted job allocation (\d+)", r.err + r.out)
    if not m:
        raise BenchError(f"ham run: no allocation (rc={r.rc}); see {LOGS / (tag + '.log')}")
    slurm_id = m.group(1)
    job_dir = job_dir_of(SHARED / getpass.getuser(), slurm_id, t_launch)
    # teardown: until no runner of this job is left and Slurm has released the allocation
    while (runner_pids(str(job_dir)) or slurm_job_alive(slurm_id, henv)) and \
            time.time() - t_ret < 120:
        time.sleep(0.05)
    t_gone = time.time()
    if r.rc != 0:
        raise BenchError(f"ham run failed (rc={r.rc}); see {LOGS / (tag + '.log')}")
    statuses = _load_statuses(job_dir)
    chain = json.loads(chain_out.read_text())
    if len(statuses) != len(steps):
        raise BenchError(f"expected {len(steps)} status records in {job_dir}, got {len(statuses)}")
    rec = RECORDS / tag
    rec.mkdir(parents=True, exist_ok=True)
    for i, st in enumerate(statuses):
        (rec / f"status{i}.json").write_text(json.dumps(st, indent=1))
    if (job_dir / "ham.json").is_file():
        shutil.copy(job_dir / "ham.json", rec / "ham.json")
    shutil.rmtree(job_dir, ignore_errors=True)

    sample = Sample()
    for s, c, st in zip(steps, chain, statuses):
        ms, mf = attempt_span(st, "MAP")
        sample.steps.append({"name": s.name, "wall_s": c["t1"] - c["t0"],
                             "job_s": (st["finish_time"] - st["start_time"]) / 1000.0,
                             "map_span_s": mf - ms, "maps": st["maps"]["total"],
                             "reduces": st["reduces"]["total"], "state": st["state"],
                             "job_start": st["start_time"] / 1000.0,
                             "job_finish": st["finish_time"] / 1000.0,
                             "first_map_start": ms, "last_map_finish": mf,
                             "maps_second_half": attempts_started_after(st, (ms + mf) / 2),
                             "sync_s": c.get("sync_s", 0.0),
                             "cache_dropped": c.get("cache_dropped", False)})
        if time_v:
            sample.steps[-1]["time_v"] = _parse_time_v(tv_dir / f"step{len(sample.steps)-1}.txt")
    first_attempt = min((a["start"] for a in statuses[0]["attempts"] if a.get("start")),
                        default=0) / 1000.0
    job_end = max(st["finish_time"] for st in statuses) / 1000.0
    sample.info = {"slurm_job": slurm_id, "e2e_s": t_gone - t_launch,
                   "startup_s": first_attempt - t_launch, "teardown_s": t_gone - job_end,
                   "ham_exit_s": t_ret - job_end, "runners": statuses[0].get("runners"),
                   "t_launch": t_launch,
                   "span_s": max(c["t1"] for c in chain) - min(c["t0"] for c in chain)}
    sample.info.update(startup_split(rec, t_launch))
    if sampler:
        sample.info["driver_cpu_series"] = sampler.series
    return sample


class DriverSampler(threading.Thread):
    """Samples the CPU time (utime+stime) of the `hadoop jar` client JVM (HAM's driver) from
    /proc every 0.2 s, so the steady-state CPU cost per dispatch can be read off the map phase."""

    def __init__(self, marker: str) -> None:
        super().__init__(daemon=True)
        self.marker = marker
        self.series: list[tuple[float, float]] = []
        self.stop_event = threading.Event()
        self.tick = float(os.sysconf("SC_CLK_TCK"))

    def _find(self) -> int | None:
        for pid, cmd in cmdlines():
            if "org.apache.hadoop.util.RunJar" in cmd and self.marker in cmd \
                    and "TaskRunner" not in cmd:
                return pid
        return None

    def run(self) -> None:
        pid: int | None = None
        while not self.stop_event.is_set():
            if pid is None:
                pid = self._find()
            if pid is not None:
                try:
                    f = (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()
                    self.series.append((time.time(), (int(f[11]) + int(f[12])) / self.tick))
                except (OSError, IndexError, ValueError):
                    pid = None
            self.stop_event.wait(0.2)


def startup_split(rec: Path, t_launch: float) -> dict[str, float]:
    """Split start-up at the moment HAM made the job directory inside the allocation
    (ham.json "created"): before it = salloc (queueing + grant) and HAM's Python start; after
    it = configuration, client JVM, job submission, runner srun + JVMs, first task."""
    try:
        created = float(json.loads((rec / "ham.json").read_text())["created"])
        st = json.loads((rec / "status0.json").read_text())
        first = min(a["start"] for a in st["attempts"] if a.get("start")) / 1000.0
    except (OSError, KeyError, ValueError):
        return {}
    return {"alloc_s": created - t_launch, "startup_in_alloc_s": first - created}


def _parse_time_v(path: Path) -> dict[str, float]:
    out: dict[str, float] = {}
    if not path.is_file():
        return out
    for line in path.read_text().splitlines():
        k, _, v = line.strip().rpartition(": ")
        if k == "User time (seconds)":
            out["user_s"] = float(v)
        elif k == "System time (seconds)":
            out["sys_s"] = float(v)
        elif k == "Maximum resident set size (kbytes)":
            out["maxrss_mb"] = float(v) / 1024.0
    return out


# ---- local runner -----------------------------------------------------------------------

def run_local(steps: list[Step], lenv: Mapping[str, str], tag: str, slots: int) -> Sample:
    """The steps one after another in Hadoop's local runner; lenv from localconf.prepare."""
    local_dir = WORK / "tmp" / f"{tag}.local"
    extra = {"mapreduce.local.map.tasks.maximum": str(slots),
             "mapreduce.local.reduce.tasks.maximum": str(slots),
             "hadoop.tmp.dir": str(local_dir)}
    sample = Sample()
    t0 = time.time()
    for s in steps:
        s.prepare()
        r = run(["ham", "hadoop", "jar", *s.argv(extra)], env=lenv, check=False,
                log_to=LOGS / f"{tag}.log", timeout=3600)
        if r.rc != 0:
            raise BenchError(f"local runner failed (rc={r.rc}); see {LOGS / (tag + '.log')}")
        sample.steps.append({"name": s.name, "wall_s": r.wall})
    sample.info = {"e2e_s": time.time() - t0}
    shutil.rmtree(local_dir, ignore_errors=True)
    return sample


# ---- ephemeral YARN ---------------------------------------------------------------------

def run_yarn(steps: list[Step], cluster: YarnCluster, tag: str) -> Sample:
    """Clients on a running cluster; e2e_s is filled in by the caller once shutdown is known."""
    sample = Sample()
    for s in steps:
        s.prepare()
        r = cluster.job(s.argv(), log_to=LOGS / f"{tag}.log")
        apps = [a for a in r.extra.get("apps", []) if "started" in a]
        job_s = sum(a["finished"] - a["started"] for a in apps) if apps else None
        sample.steps.append({"name": s.name, "wall_s": r.wall, "job_s": job_s})
    log(f"  {tag}: {sample.cmd_s:.1f}s")
    return sample
