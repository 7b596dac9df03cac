"""The benchmark cases: which steps each variant runs and which metrics a sample yields."""

from __future__ import annotations

import math
import shutil
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hambench.chain import cold_cache
from hambench.data import wordcount_input
from hambench.jobs import Sample, Step
from hambench.util import EXAMPLES_JAR, TESTS_JAR, WORK, BenchError

OUT = WORK / "out"


def _client_jit_default() -> str:
    from ham import settings
    return settings.BY_KEY["client_jit"].default


@dataclass
class Params:
    """Sizes and knobs; with the defaults the whole suite takes about an hour on the 2-core test
    machine (scale ~8 min, dfsio ~5 min a round)."""

    rounds: int = 3
    nodes: int = 3
    slots_per_node: int = 1          # task runners (HAM) = containers (YARN) per node
    dispatch_maps: int = 60
    dispatch_map_ms: int = 1
    wc_mb: int = 64
    wc_files: int = 4
    tera_rows: int = 1_500_000       # 100-byte rows: 150 MB
    dfsio_files: int = 3
    dfsio_mb: int = 2048            # big enough that task start-up does not dominate
    dfsio_settle_s: int = 20        # wait after each page-cache drop (chain.cold_cache)
    driver_maps: int = 600
    driver_runners_per_node: int = 4
    resume_maps: int = 60
    resume_map_ms: int = 2000
    # scale: the driver alone with simulated runners (hambench/scale.py), every maps x runners
    scale_maps: list[int] = field(default_factory=lambda: [1_000, 10_000, 100_000])
    scale_runners: list[int] = field(default_factory=lambda: [100, 1_000, 10_000])
    scale_heartbeat_ms: int = 30_000  # ham.heartbeat.timeout.ms's default
    scale_connect_ramp_ms: int = -1  # runners connect over this long; -1: 1 ms per runner
    # attempts each simulated-runner JVM ends against a stand-in in itself before it connects,
    # so that its JIT is not compiling on the driver's cores at go (SimWarmUp); 0: none
    scale_sim_warmup: int = 2_000
    # the driver JVM's JIT, as the setting client_jit gives a job's client JVM (its default)
    scale_client_jit: str = field(default_factory=_client_jit_default)
    yarn: bool = True
    lustre: bool = True              # also run HAM on lustre:// (wordcount, terasort, dfsio)
    cases: list[str] = field(default_factory=lambda: list(ALL_CASES))

    @property
    def slots(self) -> int:
        return self.nodes * self.slots_per_node

    @classmethod
    def quick(cls) -> "Params":
        return cls(rounds=3, dispatch_maps=24, wc_mb=12, wc_files=3, tera_rows=50_000,
                   dfsio_files=3, dfsio_mb=32, dfsio_settle_s=2, driver_maps=200,
                   driver_runners_per_node=3,
                   resume_maps=24, resume_map_ms=1000, scale_maps=[1_000, 10_000],
                   scale_runners=[100, 1_000], yarn=False,
                   cases=[c for c in ALL_CASES if c != "terasort"])


ALL_CASES = ("dispatch", "wordcount", "terasort", "dfsio", "driver", "resume", "scale")
# Cases that need no Slurm cluster (the suite leaves the test cluster alone when only these run)
NO_CLUSTER_CASES = ("scale",)

# HAM on lustre:// (setting filesystem = lustre) with lustre_root = WORK: the same directories
# as the file:// runs, reached through HAM's Lustre file system (raw, large buffers) instead of
# Hadoop's checksummed local one. Its variant names: "ham-lustre" (job cases), "lustre" (dfsio).
LUSTRE_ROOT = WORK
LUSTRE_VARIANTS = ("ham-lustre", "lustre")


def lustre_env(env: dict[str, str]) -> dict[str, str]:
    return {**env, "HAM_FILESYSTEM": "lustre", "HAM_LUSTRE_ROOT": str(LUSTRE_ROOT)}


def on_fs(path: Path, variant: str) -> str:
    """path as the job of this variant names it: lustre:///<path under WORK>, or the path."""
    if variant in LUSTRE_VARIANTS:
        return "lustre:///" + str(path.relative_to(LUSTRE_ROOT))
    return str(path)


# ---- 1. dispatch overhead ----------------------------------------------------------------

def dispatch_steps(p: Params, variant: str) -> list[Step]:
    return [Step("sleep", TESTS_JAR, "sleep",
                 ("-m", str(p.dispatch_maps), "-r", "1", "-mt", str(p.dispatch_map_ms),
                  "-rt", "1"))]


def dispatch_ideal_s(p: Params) -> float:
    return math.ceil(p.dispatch_maps / p.slots) * p.dispatch_map_ms / 1000.0 + 0.001


def dispatch_metrics(p: Params, s: Sample) -> dict[str, float]:
    tasks = p.dispatch_maps + 1
    m = {"cmd_s": s.cmd_s, "overhead_ms_per_task": (s.cmd_s - dispatch_ideal_s(p)) / tasks * 1e3}
    st = s.steps[0]
    if st.get("job_s"):
        m["job_s"] = st["job_s"]
    if st.get("map_span_s"):  # HAM: steady-state cost of one task on one runner
        m["slot_ms_per_map"] = (st["map_span_s"] * p.slots / p.dispatch_maps
                                - p.dispatch_map_ms / 1000.0) * 1e3
    return m


# ---- 2. throughput ---------------------------------------------------------------------

def wordcount_steps(p: Params, variant: str) -> list[Step]:
    src = wordcount_input(p.wc_mb, p.wc_files)
    out = OUT / variant / "wc"
    return [Step("wordcount", EXAMPLES_JAR, "wordcount", (on_fs(src, variant), on_fs(out, variant)),
                 conf=(("mapreduce.job.reduces", str(p.slots)),), clean=(out,))]


def terasort_steps(p: Params, variant: str) -> list[Step]:
    d = OUT / variant / "tera"
    gen, srt, val = d / "gen", d / "sorted", d / "report"
    # YARN with fs.defaultFS=file:///: YarnChild sets the default (= local) file system's working
    # directory to the client's, so TeraSort's relative "_partition.lst" (a distributed-cache
    # link in the container directory) is looked up there; point it at the output directory,
    # where TeraSort writes that file. HAM and the local runner need no such setting.
    yarn_fix = (("mapreduce.job.working.dir", str(srt)),) if variant == "yarn" else ()
    g, s, v = (on_fs(x, variant) for x in (gen, srt, val))
    return [
        Step("teragen", EXAMPLES_JAR, "teragen", (str(p.tera_rows), g),
             conf=(("mapreduce.job.maps", str(p.slots)),), clean=(gen, srt, val)),
        Step("terasort", EXAMPLES_JAR, "terasort", (g, s),
             conf=(("mapreduce.job.reduces", str(p.slots)), *yarn_fix)),
        Step("teravalidate", EXAMPLES_JAR, "teravalidate", (s, v)),
    ]


def job_metrics(p: Params, s: Sample) -> dict[str, float]:
    m = {"cmd_s": s.cmd_s}
    for st in s.steps:
        m[f"{st['name']}_s"] = st["wall_s"]
    return m


def cleanup_outputs(variant: str) -> None:
    shutil.rmtree(OUT / variant, ignore_errors=True)


# ---- 4. I/O: TestDFSIO through HAM vs dd ---------------------------------------------------

def dfsio_dir(variant: str) -> Path:
    return WORK / "io" / variant


def dfsio_steps(p: Params, variant: str) -> list[Step]:
    d = dfsio_dir(variant)
    common = ("-nrFiles", str(p.dfsio_files), "-size", f"{p.dfsio_mb}MB",
              "-resFile", str(d / "TestDFSIO_results.log"))
    conf = (("test.build.data", on_fs(d / "data", variant)),)
    return [Step("dfsio-write", TESTS_JAR, "TestDFSIO", ("-write", *common), conf=conf,
                 clean=(d,)),
            Step("dfsio-read", TESTS_JAR, "TestDFSIO", ("-read", *common), conf=conf)]


def _dfsio_reported(d: Path) -> list[float]:
    """'Throughput mb/sec' lines of TestDFSIO's result file (write first, then read)."""
    f = d / "TestDFSIO_results.log"
    if not f.is_file():
        return []
    return [float(line.split(":")[-1]) for line in f.read_text().splitlines()
            if "Throughput mb/sec" in line]


def dfsio_metrics(p: Params, s: Sample, variant: str) -> dict[str, float]:
    total = p.dfsio_files * p.dfsio_mb
    m: dict[str, float] = {}
    for st, op in zip(s.steps, ("write", "read")):
        # Aggregate rate over the map phase (first map start .. last map finish): the tasks'
        # I/O plus HAM's per-task overhead. Writes count until they are on disk (the `sync`
        # after the job), as dd's fdatasync does; the read step starts with a cold page cache.
        sync_s = st["sync_s"] if op == "write" else 0.0
        m[f"{op}_MBps"] = total / max(st["map_span_s"] + sync_s, 1e-6)
        m[f"{op}_job_MBps"] = total / max(st["job_s"] + sync_s, 1e-6)
    m["cold_reads"] = float(s.steps[0]["cache_dropped"])
    rep = _dfsio_reported(dfsio_dir(variant))
    if len(rep) >= 2:
        m["write_per_file_MBps"], m["read_per_file_MBps"] = rep[0], rep[1]
    shutil.rmtree(dfsio_dir(variant) / "data", ignore_errors=True)
    return m


def raw_io(p: Params, variant: str) -> dict[str, float]:
    """dd the same files/bytes into the directory where the variant's TestDFSIO wrote its files
    (test.build.data/io_data), with the same parallelism: writes with fdatasync, reads after
    dropping the page cache, each from a cache dropped as long ago as the HAM run's."""
    d = dfsio_dir(variant) / "data" / "io_data"
    shutil.rmtree(d, ignore_errors=True)
    d.mkdir(parents=True)
    files = [d / f"f{i}" for i in range(p.dfsio_files)]
    total = p.dfsio_files * p.dfsio_mb

    def parallel(argvs: list[list[str]]) -> tuple[float, list[float]]:
        walls: list[float] = []
        t0 = time.time()
        for i in range(0, len(argvs), p.slots):  # at most `slots` at a time, like the tasks
            batch = [(time.time(), subprocess.Popen(a, stdout=subprocess.DEVNULL,
                                                    stderr=subprocess.DEVNULL))
                     for a in argvs[i:i + p.slots]]
            for start, proc in batch:
                if proc.wait() != 0:
                    raise BenchError(f"dd failed: {proc.args}")
                walls.append(time.time() - start)
        return time.time() - t0, walls

    cold_cache(p.dfsio_settle_s)
    w, ww = parallel([["dd", "if=/dev/zero", f"of={f}", "bs=1M", f"count={p.dfsio_mb}",
                       "conv=fdatasync"] for f in files])
    cold = cold_cache(p.dfsio_settle_s)
    r, rw = parallel([["dd", f"if={f}", "of=/dev/null", "bs=1M"] for f in files])
    shutil.rmtree(d, ignore_errors=True)
    return {"write_MBps": total / w, "read_MBps": total / r, "cold_reads": float(cold),
            "write_per_file_MBps": sum(p.dfsio_mb / x for x in ww) / len(ww),
            "read_per_file_MBps": sum(p.dfsio_mb / x for x in rw) / len(rw)}


# ---- 6. driver scale ------------------------------------------------------------------------

def driver_steps(p: Params, variant: str) -> list[Step]:
    # no-op tasks: 0 ms maps with a 1 MB sort buffer, so runner-side work is minimal and the
    # driver's dispatch path dominates
    return [Step("sleep0", TESTS_JAR, "sleep",
                 ("-m", str(p.driver_maps), "-r", "1", "-mt", "0", "-rt", "0"),
                 conf=(("mapreduce.task.io.sort.mb", "1"),))]


def driver_metrics(p: Params, s: Sample) -> dict[str, Any]:
    st = s.steps[0]
    span = st["last_map_finish"] - st["first_map_start"]
    tv = st.get("time_v", {})
    cpu = tv.get("user_s", 0.0) + tv.get("sys_s", 0.0)
    m = {"dispatches_per_s": p.driver_maps / max(span, 1e-6), "map_span_s": span,
         "job_s": st["job_s"], "runners": float(s.info.get("runners") or 0)}
    if st.get("maps_second_half") and span > 0:  # without the runners' JVM warm-up
        m["steady_dispatches_per_s"] = st["maps_second_half"] / (span / 2)
    series = s.info.get("driver_cpu_series") or []
    inside = [(t, c) for t, c in series if st["first_map_start"] <= t <= st["last_map_finish"]]
    if len(inside) >= 2 and inside[-1][0] - inside[0][0] > 1.0:
        (t0, c0), (t1, c1) = inside[0], inside[-1]
        n = p.driver_maps * (t1 - t0) / max(span, 1e-6)  # maps dispatched in that window
        m["driver_steady_cpu_ms_per_task"] = (c1 - c0) / max(n, 1e-6) * 1e3
        m["driver_steady_cpu_util"] = (c1 - c0) / (t1 - t0)
        m["driver_cpu_bound_dispatches_per_s"] = n / max(c1 - c0, 1e-6)
    if tv:
        m.update({"driver_cpu_s": cpu, "driver_maxrss_MB": tv.get("maxrss_mb", 0.0),
                  "driver_cpu_ms_per_task": cpu / (p.driver_maps + 1) * 1e3})
    return m
