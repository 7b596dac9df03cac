"""Orchestration: rounds of HAM vs baselines, alternated, results written after every round."""

from __future__ import annotations

import argparse
import json
import shlex
import shutil
import sys
import time
import traceback
from pathlib import Path
from typing import Any, Callable

from hambench import cases as C
from hambench import resume, scale
from hambench.jobs import RECORDS, Sample, run_ham, run_local, run_yarn, startup_split
from hambench.report import write_all
from hambench.util import (RESULTS, WORK, YARN_LIB, BenchError, cluster_env, ensure_cluster,
                           log, snapshot_dist)
from hambench.yarn import YarnCluster

JOB_CASES = ("dispatch", "wordcount", "terasort")
STEPS: dict[str, Callable[[C.Params, str], list[C.Step]]] = {
    "dispatch": C.dispatch_steps, "wordcount": C.wordcount_steps, "terasort": C.terasort_steps}


def parse(argv: list[str]) -> tuple[C.Params, argparse.Namespace]:
    ap = argparse.ArgumentParser(prog="bench/run.sh", description=__doc__)
    ap.add_argument("--quick", action="store_true", help="small sizes (~3-4 min)")
    ap.add_argument("--rounds", type=int)
    ap.add_argument("--cases", help=f"comma list of {','.join(C.ALL_CASES)}")
    ap.add_argument("--no-yarn", action="store_true", help="skip the ephemeral YARN baseline")
    ap.add_argument("--yarn", action="store_true", help="include YARN (default except --quick)")
    ap.add_argument("--no-lustre", action="store_true",
                    help="skip HAM on lustre:// (variants ham-lustre and lustre)")
    ap.add_argument("--out", default=str(RESULTS))
    ap.add_argument("--scale-dist", metavar="DIR",
                    help="scale: the HAM bundle to measure (default: this tree's build)")
    ap.add_argument("--scale-conf", metavar="KEY=VALUE", action="append", default=[],
                    help="scale: a job configuration key for every configuration (repeatable)")
    ap.add_argument("--scale-client-jit", choices=("c1", "tiered"), dest="scale_client_jit",
                    help="scale: the driver JVM's JIT, as the setting client_jit (default: its "
                         "default)")
    ap.add_argument("--report-only", action="store_true",
                    help="rewrite results.md and the plots from OUT/results.json")
    for name in ("nodes", "slots_per_node", "dispatch_maps", "dispatch_map_ms", "wc_mb",
                 "wc_files", "tera_rows", "dfsio_files", "dfsio_mb", "dfsio_settle_s",
                 "driver_maps", "driver_runners_per_node", "resume_maps", "resume_map_ms",
                 "scale_heartbeat_ms", "scale_connect_ramp_ms", "scale_sim_warmup"):
        ap.add_argument("--" + name.replace("_", "-"), type=int, dest=name)
    for name in ("scale_maps", "scale_runners"):
        ap.add_argument("--" + name.replace("_", "-"), dest=name, metavar="N,N,...",
                        type=lambda v: [int(x) for x in v.split(",") if x])
    a = ap.parse_args(argv)
    p = C.Params.quick() if a.quick else C.Params()
    for k, v in vars(a).items():
        if v is not None and k not in ("quick", "yarn", "no_yarn", "cases", "out",
                                       "report_only", "no_lustre", "scale_dist", "scale_conf") \
                and hasattr(p, k):
            setattr(p, k, v)
    if a.cases:
        p.cases = [c for c in a.cases.split(",") if c]
        bad = set(p.cases) - set(C.ALL_CASES)
        if bad:
            ap.error(f"unknown case(s): {', '.join(sorted(bad))}")
    if a.yarn:
        p.yarn = True
    if a.no_yarn:
        p.yarn = False
    if a.no_lustre:
        p.lustre = False
    if p.rounds < 1:
        ap.error("--rounds must be >= 1")
    return p, a


def main(argv: list[str]) -> int:
    p, a = parse(argv)
    if a.report_only:
        return report_only(Path(a.out))
    env = cluster_env()
    if not set(p.cases) <= set(C.NO_CLUSTER_CASES):
        ensure_cluster(env)
    env["HAM_BUNDLE_DIR"] = str(snapshot_dist())
    scale_classes = scale.snapshot_classes() if "scale" in p.cases else None
    if p.yarn and any(c in p.cases for c in JOB_CASES) \
            and not any(YARN_LIB.glob("hadoop-yarn-server-resourcemanager-*.jar")):
        raise SystemExit(f"{YARN_LIB} has no YARN jars: run bench/run.sh (it fetches them with "
                         f"mvn -f bench/yarn/pom.xml) or pass --no-yarn")
    out = Path(a.out)
    samples: list[dict[str, Any]] = []
    t_suite = time.time()
    meta: dict[str, Any] = {
        "command": "bash bench/run.sh " + shlex.join(argv),
        "started": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
        "params": {**vars(p), "scale_dist": a.scale_dist, "scale_conf": a.scale_conf},
        "sizes": (f"dispatch {p.dispatch_maps} maps x {p.dispatch_map_ms} ms + 1 reduce; "
                  f"wordcount {p.wc_mb} MiB in {p.wc_files} files; teragen/terasort/teravalidate "
                  f"{p.tera_rows} rows ({p.tera_rows * 100 / 1e6:.0f} MB); TestDFSIO "
                  f"{p.dfsio_files} x {p.dfsio_mb} MB; driver {p.driver_maps} no-op maps on "
                  f"{p.nodes * p.driver_runners_per_node} runners; resume {p.resume_maps} "
                  f"maps x {p.resume_map_ms} ms stopped half-way; scale {p.scale_maps} maps x "
                  f"{p.scale_runners} simulated runners; {p.nodes} nodes x "
                  f"{p.slots_per_node} slot(s)"),
    }

    def record(case: str, variant: str, rnd: int, metrics: dict[str, Any] | None = None,
               info: dict[str, Any] | None = None, error: str | None = None) -> None:
        samples.append({"case": case, "variant": variant, "round": rnd,
                        "metrics": metrics or {}, "info": info or {}, "error": error})
        if error:
            log(f"  {case}/{variant} FAILED: {error.strip().splitlines()[0][:200]}")
        else:
            shown = {k: round(v, 3) for k, v in (metrics or {}).items()
                     if isinstance(v, float)}
            log(f"  {case}/{variant}: {shown}")

    def ham_sample(case: str, rnd: int, s: Sample, metrics: dict[str, Any],
                   variant: str = "ham") -> None:
        metrics["e2e_s"] = s.info["e2e_s"]
        record(case, variant, rnd, metrics, {"steps": s.steps, **s.info})
        if variant != "ham":  # start-up is HAM's whatever the file system: counted once
            return
        record("startup", "ham", rnd, {k: s.info[k] for k in (
                   "startup_s", "teardown_s", "ham_exit_s", "alloc_s", "startup_in_alloc_s")
                   if k in s.info},
               {"from": case, "slurm_job": s.info["slurm_job"]})

    def metrics_for(case: str, s: Sample) -> dict[str, Any]:
        return C.dispatch_metrics(p, s) if case == "dispatch" else C.job_metrics(p, s)

    # data first (not timed)
    if "wordcount" in p.cases:
        C.wordcount_input(p.wc_mb, p.wc_files)

    for rnd in range(p.rounds):
        log(f"=== round {rnd + 1}/{p.rounds}")
        for case in [c for c in JOB_CASES if c in p.cases]:
            lustre = ("ham-lustre",) if p.lustre and case != "dispatch" else ()
            for variant in ("ham", *lustre, "local"):
                tag = f"r{rnd}-{case}-{variant}"
                try:
                    steps = STEPS[case](p, variant)
                    if variant in ("ham", "ham-lustre"):
                        venv = C.lustre_env(env) if variant == "ham-lustre" else env
                        s = run_ham(steps, venv, tag, p.nodes, p.slots_per_node)
                        ham_sample(case, rnd, s, metrics_for(case, s), variant)
                    else:
                        s = run_local(steps, env, tag, p.slots)
                        m = metrics_for(case, s)
                        m["e2e_s"] = s.info["e2e_s"]
                        record(case, "local", rnd, m, {"steps": s.steps})
                except Exception as e:
                    record(case, variant, rnd, error=_err(e))
                C.cleanup_outputs(variant)
        if "dfsio" in p.cases:
            # file:// then lustre://, each followed by dd in the directory it wrote to
            for variant, raw in (("ham", "raw"), *((("lustre", "raw-lustre"),) if p.lustre
                                                   else ())):
                try:
                    venv = C.lustre_env(env) if variant == "lustre" else env
                    s = run_ham(C.dfsio_steps(p, variant), venv, f"r{rnd}-dfsio-{variant}",
                                p.nodes, p.slots_per_node, settle_s=p.dfsio_settle_s)
                    ham_sample("dfsio", rnd, s, C.dfsio_metrics(p, s, variant), variant)
                except Exception as e:
                    record("dfsio", variant, rnd, error=_err(e))
                try:
                    record("dfsio", raw, rnd, C.raw_io(p, variant))
                except Exception as e:
                    record("dfsio", raw, rnd, error=_err(e))
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
        if "scale" in p.cases:
            scale.run_round(Path(a.scale_dist) if a.scale_dist else Path(env["HAM_BUNDLE_DIR"]),
                            scale_classes, rnd, p.scale_maps, p.scale_runners,
                            p.scale_heartbeat_ms, record, a.scale_conf,
                            p.scale_connect_ramp_ms, p.scale_client_jit, p.scale_sim_warmup)
        if p.yarn and any(c in p.cases for c in JOB_CASES):
            yarn_round(p, env, rnd, record)
        meta["duration_s"] = time.time() - t_suite
        write_all(out, meta, samples)
        log(f"round {rnd + 1} done at {meta['duration_s'] / 60:.1f} min; results in {out}")
    shutil.rmtree(WORK / "out", ignore_errors=True)
    log(f"done in {(time.time() - t_suite) / 60:.1f} min: {out}/results.md")
    return 0


def yarn_round(p: C.Params, env: dict[str, str], rnd: int,
               record: Callable[..., None]) -> None:
    """One ephemeral YARN cluster for this round's job cases; its start-up and shutdown are
    added to every job's end-to-end figure (as if each job had started its own cluster)."""
    cluster = YarnCluster(base=WORK / "yarn" / f"r{rnd}", env=env, nodes=p.nodes,
                          slots_per_node=p.slots_per_node)
    done: list[tuple[str, Sample]] = []
    try:
        cluster.start()
        log(f"  yarn: up in {cluster.startup_s:.1f}s (allocation {cluster.alloc_s:.1f}s)")
        for case in [c for c in JOB_CASES if c in p.cases]:
            try:
                done.append((case, run_yarn(STEPS[case](p, "yarn"), cluster,
                                            f"r{rnd}-{case}-yarn")))
            except Exception as e:
                record(case, "yarn", rnd, error=_err(e))
            C.cleanup_outputs("yarn")
    except Exception as e:
        for case in [c for c in JOB_CASES if c in p.cases]:
            record(case, "yarn", rnd, error=f"YARN cluster start: {_err(e)}")
    finally:
        cluster.stop()
        log(f"  yarn: shutdown {cluster.shutdown_s:.1f}s")
    for case, s in done:
        m = C.dispatch_metrics(p, s) if case == "dispatch" else C.job_metrics(p, s)
        m["e2e_s"] = cluster.startup_s + s.cmd_s + cluster.shutdown_s
        record(case, "yarn", rnd, m, {"steps": s.steps, "startup_s": cluster.startup_s,
                                      "shutdown_s": cluster.shutdown_s})
    if cluster.startup_s:
        record("startup", "yarn", rnd, {"startup_s": cluster.startup_s,
                                        "teardown_s": cluster.shutdown_s,
                                        "alloc_s": cluster.alloc_s})
    shutil.rmtree(cluster.base / "nm", ignore_errors=True)
    shutil.rmtree(cluster.base / "staging", ignore_errors=True)


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
