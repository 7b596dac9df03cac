"""The benchmark cases: which steps each variant runs and which metrics a sample yields."""

from __future__ import annotations

import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hambench.jobs import Sample, Step
from hambench.util import TESTS_JAR, WORK


def _client_jit_default() -> str:
    from ham import settings
    return settings.BY_KEY["client_jit"].default


@dataclass
class Params:
    """Sizes and knobs. The defaults are the full run (hours: bench/README.md has the estimate
    from the smoke runs); --smoke gives tiny sizes of every kind, for a check in minutes."""

    rounds: int = 3
    nodes: int = 3
    slots_per_node: int = 1          # task runners (HAM) = containers (YARN) per node
    # growth (hambench/growth.py): each list is the sizes of one case, on `nodes` nodes
    maps: list[int] = field(default_factory=lambda: [60, 300, 3_000, 10_000])
    wc_mib: list[int] = field(default_factory=lambda: [64, 1_024, 4_096])
    tera_mb: list[int] = field(default_factory=lambda: [1_000, 4_000, 10_000])
    node_counts: list[int] = field(default_factory=lambda: [1, 2, 3])
    nodes_wc_mib: int = 1_024        # the wordcount of the node sweep
    wc_files: int = 4
    yarn_default_max_maps: int = 300  # the default YARN takes ~1.2 s a map: 10,000 = 3 h
    # job mixes, in one allocation on `nodes` nodes: wordcount of mix_wc_mib
    mix_jobs: int = 20
    mix_parallel: int = 3
    mix_wc_mib: int = 64
    dfsio_files: int = 3
    dfsio_mb: int = 2048            # big enough that task start-up does not dominate
    dfsio_settle_s: int = 20        # wait after each page-cache drop (chain.cold_cache)
    driver_maps: int = 600
    driver_runners_per_node: int = 4
    resume_maps: int = 60
    resume_map_ms: int = 2000
    # warm: small jobs in a row in one allocation, with and without warm runners (hambench/warm.py)
    warm_jobs: int = 20
    warm_wc_mib: int = 1
    # scale: the driver alone with simulated runners (hambench/scale.py), every maps x runners
    scale_maps: list[int] = field(default_factory=lambda: [1_000, 10_000, 100_000])
    scale_runners: list[int] = field(default_factory=lambda: [100, 1_000, 10_000])
    scale_heartbeat_ms: int = 30_000  # ham.heartbeat.timeout.ms's default
    scale_connect_ramp_ms: int = -1  # runners connect over this long; -1: their own pacing
    # attempts each simulated-runner JVM ends against a stand-in in itself before it connects,
    # so that its JIT is not compiling on the driver's cores at go (SimWarmUp); 0: none
    scale_sim_warmup: int = 2_000
    # the driver JVM's JIT, as the setting client_jit gives a job's client JVM (its default)
    scale_client_jit: str = field(default_factory=_client_jit_default)
    # load: the driver of a load_maps job with each of scale_runners simulated runners, maps of
    # each kind (load_kinds: "commit", a map-only job's maps writing output, 2 round trips a
    # task; "nocommit", maps with nothing to commit, as a job with reduces has, 1), at each
    # offered load (load_offered tasks a second: each runner's tasks last runners x 1000 /
    # offered ms on average; 0: none, each runner asks again at once, as in `scale`)
    load_maps: int = 30_000
    load_kinds: list[str] = field(default_factory=lambda: ["commit", "nocommit"])
    load_offered: list[int] = field(default_factory=lambda: [0, 1_000])
    yarn: bool = True
    lustre: bool = True              # also run TestDFSIO on lustre://
    cases: list[str] = field(default_factory=lambda: list(ALL_CASES))

    @property
    def slots(self) -> int:
        return self.nodes * self.slots_per_node

    @classmethod
    def smoke(cls) -> "Params":
        """Every size kind at a tiny size, every system, one round: minutes, not hours."""
        return cls(rounds=1, maps=[6, 12], wc_mib=[4, 8], tera_mb=[5, 10], node_counts=[1, 2],
                   nodes_wc_mib=4, yarn_default_max_maps=12, mix_jobs=3, mix_parallel=3,
                   mix_wc_mib=4, dfsio_files=3, dfsio_mb=16, dfsio_settle_s=1, driver_maps=60,
                   driver_runners_per_node=2, resume_maps=12, resume_map_ms=500, warm_jobs=4,
                   scale_maps=[1_000], scale_runners=[100], load_maps=1_000,
                   cases=["jobs", "dfsio"])


# jobs: the growth points and job mixes of every system (hambench/rounds.py)
ALL_CASES = ("jobs", "dfsio", "driver", "resume", "warm", "scale", "load")
# Cases that need no Slurm cluster (the suite leaves the test cluster alone when only these run)
NO_CLUSTER_CASES = ("scale", "load")

# TestDFSIO on lustre:// (setting filesystem = lustre) with lustre_root = WORK: the same
# directories as the file:// run, reached through HAM's Lustre file system (raw, large buffers,
# direct I/O) instead of Hadoop's checksummed local one. Its variant name: "lustre".
LUSTRE_ROOT = WORK
LUSTRE_VARIANTS = ("lustre",)


def lustre_env(env: dict[str, str]) -> dict[str, str]:
    return {**env, "HAM_FILESYSTEM": "lustre", "HAM_LUSTRE_ROOT": str(LUSTRE_ROOT)}


def on_fs(path: Path, variant: str) -> str:
    """path as the job of this variant names it: lustre:///<path under WORK>, or the path."""
    if variant in LUSTRE_VARIANTS:
        return "lustre:///" + str(path.relative_to(LUSTRE_ROOT))
    return str(path)


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
