"""Orchestration: rounds of HAM vs baselines, alternated, results written after every round."""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import sys
import time
import traceback
from pathlib import Path
from typing import Any, Callable

from hambench import cases as C
from hambench import growth, layout, limit, localconf, resume, rounds, scale, warm, yarn
from hambench.jobs import LOGS, RECORDS, SHARED, Sample, run_ham, startup_split
from hambench.report import write_all
from hambench.systems import SYSTEMS
from hambench.util import (REPO, RESULTS, WORK, YARN_LIB, BenchError, cluster_env,
                           ensure_cluster, log, run, snapshot_dist)


def _ints(v: str) -> list[int]:
    return [int(x) for x in v.split(",") if x]


def parse(argv: list[str]) -> tuple[C.Params, argparse.Namespace]:
    ap = argparse.ArgumentParser(prog="bench/run.sh", description=__doc__)
    ap.add_argument("--smoke", action="store_true",
                    help="every system at tiny sizes of every kind, 1 round (minutes)")
    ap.add_argument("--rounds", type=int)
    ap.add_argument("--cases", help=f"comma list of {','.join(C.ALL_CASES)}")
    ap.add_argument("--systems", help=f"comma list of {','.join(SYSTEMS)} (default: all)")
    ap.add_argument("--no-yarn", action="store_true", help="leave out both YARN systems")
    ap.add_argument("--no-mixes", action="store_true", help="leave out the job mixes")
    ap.add_argument("--no-lustre", action="store_true", help="skip TestDFSIO on lustre://")
    ap.add_argument("--out", help="results directory (default: bench/results/<date>-<commit>)")
    ap.add_argument("--scale-dist", metavar="DIR",
                    help="scale: the HAM bundle to measure (default: this tree's build)")
    ap.add_argument("--scale-conf", metavar="KEY=VALUE", action="append", default=[],
                    help="scale: a job configuration key for every configuration (repeatable)")
    ap.add_argument("--scale-client-jit", choices=("c1", "tiered"), dest="scale_client_jit",
                    help="scale: the driver JVM's JIT, as the setting client_jit (default: its "
                         "default)")
    ap.add_argument("--report-only", action="store_true",
                    help="rewrite results.md and the plots from OUT/results.json")
    for name in ("nodes", "slots_per_node", "nodes_wc_mib", "wc_files", "yarn_default_max_maps",
                 "mix_jobs", "mix_parallel", "mix_wc_mib", "dfsio_files", "dfsio_mb",
                 "dfsio_settle_s", "driver_maps", "driver_runners_per_node", "resume_maps",
                 "resume_map_ms", "warm_jobs", "warm_wc_mib", "scale_heartbeat_ms", "scale_connect_ramp_ms",
                 "scale_sim_warmup", "load_maps"):
        ap.add_argument("--" + name.replace("_", "-"), type=int, dest=name)
    for name in ("maps", "wc_mib", "tera_mb", "node_counts", "scale_maps", "scale_runners",
                 "load_offered"):
        ap.add_argument("--" + name.replace("_", "-"), dest=name, metavar="N,N,...", type=_ints)
    ap.add_argument("--load-kinds", dest="load_kinds", metavar="KIND,...",
                    type=lambda v: [x for x in v.split(",") if x],
                    help=f"load: comma list of {','.join(scale.LOAD_KINDS)}")
    a = ap.parse_args(argv)
    p = C.Params.smoke() if a.smoke else C.Params()
    for k, v in vars(a).items():
        if v is not None and k not in ("smoke", "no_yarn", "cases", "out", "systems",
                                       "report_only", "no_lustre", "scale_dist", "scale_conf") \
                and hasattr(p, k):
            setattr(p, k, v)
    if a.cases:
        p.cases = [c for c in a.cases.split(",") if c]
        bad = set(p.cases) - set(C.ALL_CASES)
        if bad:
            ap.error(f"unknown case(s): {', '.join(sorted(bad))}")
    bad = set(p.load_kinds) - set(scale.LOAD_KINDS)
    if bad:
        ap.error(f"unknown load kind(s): {', '.join(sorted(bad))}")
    problem = scale.load_params_problem(p.load_maps, p.load_kinds, p.scale_runners,
                                        p.load_offered)
    if problem:
        ap.error(problem)
    if a.no_yarn:
        p.yarn = False
    if a.no_lustre:
        p.lustre = False
    if p.rounds < 1:
        ap.error("--rounds must be >= 1")
    return p, a


def systems_of(a: argparse.Namespace, p: C.Params) -> list[str]:
    chosen = [x for x in (a.systems or ",".join(SYSTEMS)).split(",") if x]
    bad = set(chosen) - set(SYSTEMS)
    if bad:
        raise SystemExit(f"bench/run.sh: unknown system(s) {', '.join(sorted(bad))}; "
                         f"known: {', '.join(SYSTEMS)}")
    return [x for x in chosen if p.yarn or not x.startswith("yarn")]


def main(argv: list[str]) -> int:
    p, a = parse(argv)
    out = Path(a.out) if a.out else layout.new_run_dir(RESULTS, REPO)
    if a.report_only:
        return report_only(out)
    systems = systems_of(a, p)
    env = cluster_env()
    if not set(p.cases) <= set(C.NO_CLUSTER_CASES):
        ensure_cluster(env)
    env["HAM_BUNDLE_DIR"] = str(snapshot_dist())
    scale_classes = scale.snapshot_classes() if {"scale", "load"} & set(p.cases) else None
    if "jobs" in p.cases and any(x.startswith("yarn") for x in systems) \
            and not any(YARN_LIB.glob("hadoop-yarn-server-resourcemanager-*.jar")):
        raise SystemExit(f"{YARN_LIB} has no YARN jars: run bench/run.sh (it fetches them with "
                         f"mvn -f bench/yarn/pom.xml) or pass --no-yarn")
    samples: list[dict[str, Any]] = []
    t_suite = time.time()
    plan = rounds.JobPlan(
        points=growth.points(p.maps, p.wc_mib, p.tera_mb, p.node_counts, p.nodes,
                             p.nodes_wc_mib),
        systems=systems, slots_per_node=p.slots_per_node, wc_files=p.wc_files,
        nodes=p.nodes, mix_jobs=p.mix_jobs, mix_parallel=p.mix_parallel,
        mix_wc_mib=p.mix_wc_mib, yarn_default_max_maps=p.yarn_default_max_maps,
        mixes=not a.no_mixes)
    meta: dict[str, Any] = {
        "command": (f"HAM_BENCH_WORK={shlex.quote(str(WORK))} " if os.environ.get(
            "HAM_BENCH_WORK") else "") + "bash bench/run.sh " + shlex.join(argv),
        "started": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
        "commit": layout.git_commit(REPO),
        "params": {**vars(p), "scale_dist": a.scale_dist, "scale_conf": a.scale_conf},
        "systems": systems,
        "points": [pt.label for pt in plan.points],
        "skipped": plan.skipped,
        "sizes": (f"many-map wordcount over {p.maps} one-line files; wordcount {p.wc_mib} MiB "
                  f"in {p.wc_files} files; terasort {p.tera_mb} MB; wordcount {p.nodes_wc_mib} "
                  f"MiB on {p.node_counts} nodes; mixes: {p.mix_jobs} in a row and "
                  f"{p.mix_parallel} at once, wordcount {p.mix_wc_mib} MiB; TestDFSIO "
                  f"{p.dfsio_files} x {p.dfsio_mb} MB; driver {p.driver_maps} no-op maps on "
                  f"{p.nodes * p.driver_runners_per_node} runners; resume {p.resume_maps} "
                  f"maps x {p.resume_map_ms} ms stopped half-way; scale {p.scale_maps} maps x "
                  f"{p.scale_runners} simulated runners; load {p.load_maps} maps x "
                  f"{p.scale_runners} runners, kinds {p.load_kinds}, offered {p.load_offered} "
                  f"tasks/s; {p.nodes} nodes x "
                  f"{p.slots_per_node} slot(s)"),
    }

    def record(case: str, variant: str, rnd: int, metrics: dict[str, Any] | None = None,
               info: dict[str, Any] | None = None, error: str | None = None,
               point: dict[str, Any] | None = None) -> None:
        samples.append({"case": case, "variant": variant, "round": rnd,
                        "metrics": metrics or {}, "info": info or {}, "error": error,
                        **({"point": point} if point else {})})
        where = f"{case}{' ' + point['label'] if point else ''}/{variant}"
        if error:
            lines = error.strip().splitlines()
            log(f"  {where} FAILED: "
                f"{(lines[-1] if 'Traceback (most recent' in lines[0] else lines[0])[:200]}")
        else:
            shown = {k: round(v, 3) for k, v in (metrics or {}).items()
                     if isinstance(v, float)}
            log(f"  {where}: {shown}")

    def ham_sample(case: str, rnd: int, s: Sample, metrics: dict[str, Any],
                   variant: str = "ham") -> None:
        metrics["e2e_s"] = s.info["e2e_s"]
        record(case, variant, rnd, metrics, {"steps": s.steps, **s.info})

    # data first (not timed)
    if "jobs" in p.cases:
        growth.prepare_data(plan.points, p.wc_files)
        if plan.mixes:
            from hambench.data import wordcount_input
            wordcount_input(p.mix_wc_mib, p.wc_files)
    lenv = localconf.prepare(env, Path(env["HAM_BUNDLE_DIR"])) \
        if "jobs" in p.cases and "local" in systems else env
    if set(p.cases) - set(C.NO_CLUSTER_CASES):
        # HAM makes its runners' and client's class-data archives for a bundle on its first
        # job (bench/work/dist is a new bundle each run): here, untimed, not in round 1's first
        SHARED.mkdir(parents=True, exist_ok=True)
        w = run(["ham", "run", "-N1", "--", "hadoop", "version"], check=False, timeout=600,
                env={**env, "HAM_SHARED_ROOT": str(SHARED)}, log_to=LOGS / "warm-up.log")
        log(f"HAM warm-up (class-data archives): rc={w.rc} in {w.wall:.1f}s")
    if "jobs" in p.cases and "yarn-tuned" in systems:
        jsa = yarn.task_cds_archive(Path(env["HAM_BUNDLE_DIR"]))
        log(f"yarn-tuned: class-data archive {jsa}" if jsa else
            "yarn-tuned: WARNING no class-data archive could be made; its JVMs start without")
        meta["yarn_tuned_cds"] = str(jsa) if jsa else None

    for rnd in range(p.rounds):
        log(f"=== round {rnd + 1}/{p.rounds}")
        if "jobs" in p.cases:
            rounds.run_round(plan, env, lenv, rnd, record)
        if "dfsio" in p.cases:
            dfsio_round(p, env, rnd, record, ham_sample)
        if "driver" in p.cases:
            try:
                s = run_ham(C.driver_steps(p, "ham"), env, f"r{rnd}-driver-ham", p.nodes,
                            p.driver_runners_per_node, overcommit=True, time_v=True)
                ham_sample("driver", rnd, s, C.driver_metrics(p, s))
            except Exception as e:
                record("driver", "ham", rnd, error=_err(e))
        if "resume" in p.cases:
            for variant, fn in (("uninterrupted", resume.uninterrupted),
                                ("resumed", resume.resumed)):
                try:
                    record("resume", variant, rnd, fn(env, f"r{rnd}-{variant}", p.nodes,
                                                      p.resume_maps, p.resume_map_ms))
                except Exception as e:
                    record("resume", variant, rnd, error=_err(e))
        if "warm" in p.cases:
            # Side by side, in an order rotated per round (neither always runs first).
            for variant in (("cold", "warm") if rnd % 2 == 0 else ("warm", "cold")):
                try:
                    record("warm", variant, rnd, warm.run_variant(
                        env, f"r{rnd}-warm-{variant}", variant, p.nodes, p.warm_jobs,
                        p.warm_wc_mib, p.wc_files))
                except Exception as e:
                    record("warm", variant, rnd, error=_err(e))
        if "scale" in p.cases:
            scale.run_round(Path(a.scale_dist) if a.scale_dist else Path(env["HAM_BUNDLE_DIR"]),
                            scale_classes, rnd, p.scale_maps, p.scale_runners,
                            p.scale_heartbeat_ms, record, a.scale_conf,
                            p.scale_connect_ramp_ms, p.scale_client_jit, p.scale_sim_warmup)
        if "load" in p.cases:
            scale.run_load_round(Path(a.scale_dist) if a.scale_dist
                                 else Path(env["HAM_BUNDLE_DIR"]), scale_classes, rnd, p, record,
                                 a.scale_conf)
        meta["duration_s"] = time.time() - t_suite
        write_all(out, meta, samples)
        log(f"round {rnd + 1} done at {meta['duration_s'] / 60:.1f} min; results in {out}")
    shutil.rmtree(WORK / "out", ignore_errors=True)
    log(f"done in {(time.time() - t_suite) / 60:.1f} min: {out}/results.md")
    for line in limit.bugs(samples):
        log(line)
    return 0


def dfsio_round(p: C.Params, env: dict[str, str], rnd: int, record: Callable[..., None],
                ham_sample: Callable[..., None]) -> None:
    """TestDFSIO on file:// (and lustre://), then every raw tool on the same files in the same
    directory: the limit is the fastest tool (hambench/limit.py)."""
    for variant in ("ham", *(("lustre",) if p.lustre else ())):
        try:
            venv = C.lustre_env(env) if variant == "lustre" else env
            s = run_ham(C.dfsio_steps(p, variant), venv, f"r{rnd}-dfsio-{variant}",
                        p.nodes, p.slots_per_node, settle_s=p.dfsio_settle_s)
            ham_sample("dfsio", rnd, s, C.dfsio_metrics(p, s, variant), variant)
        except Exception as e:
            record("dfsio", variant, rnd, error=_err(e))
    try:
        spec = limit.RawSpec(files=p.dfsio_files, mb=p.dfsio_mb, parallel=p.slots)
        by_tool = limit.measure(spec, C.dfsio_dir("raw"), p.dfsio_settle_s)
        for tool, m in by_tool.items():
            record("dfsio", f"raw-{tool}", rnd, dict(m))
        record("dfsio", limit.LIMIT, rnd, limit.limit_metrics(by_tool))
    except Exception as e:
        record("dfsio", limit.LIMIT, rnd, error=_err(e))


def report_only(out: Path) -> int:
    """Re-derive metrics that need only the kept records, then rewrite the reports."""
    data = json.loads((out / "results.json").read_text())
    for s in data["samples"]:
        m, info = s["metrics"], s.get("info", {})
        if s["case"] == "startup" and s["variant"] == "ham" and "alloc_s" not in m \
                and info.get("from"):
            rec = RECORDS / f"r{s['round']}-{info['from']}-ham"
            try:
                st = json.loads((rec / "status0.json").read_text())
                first = min(x["start"] for x in st["attempts"] if x.get("start")) / 1000.0
            except (OSError, ValueError):
                continue
            m.update(startup_split(rec, first - m["startup_s"]))
    write_all(out, data["meta"], data["samples"])
    log(f"rewrote {out}/results.md and plots")
    return 0


def _err(e: BaseException) -> str:
    if isinstance(e, BenchError):
        return str(e)
    return "".join(traceback.format_exception(e))[-2000:]


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
