"""One round of the job cases: every system's block of growth points and job mixes, in the
round's rotated order (systems.rotation). Each sample names its point (growth.Point)."""

from __future__ import annotations

import shutil
import threading
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

from hambench import growth, memory
from hambench.data import wordcount_input
from hambench.jobs import CHAIN, LOGS, SHARED, Sample, Step, run_ham, run_local
from hambench.systems import HAM, LOCAL, YARN_PROFILES, rotation
from hambench.util import EXAMPLES_JAR, WORK, BenchError, log, run
from hambench.yarn import YarnCluster

Record = Callable[..., None]


@dataclass
class JobPlan:
    """What the job cases of a run do: its points, its mixes and their sizes."""

    points: list[growth.Point]
    systems: list[str]
    slots_per_node: int
    wc_files: int
    nodes: int                      # the nodes of the mixes
    mix_jobs: int = 20              # small jobs in a row in one allocation
    mix_parallel: int = 3           # jobs at once in one allocation
    mix_wc_mib: int = 64            # the small job: wordcount of this many MiB
    yarn_default_max_maps: int = 300
    mixes: bool = True
    skipped: list[str] = field(default_factory=list)
    # (round, point label) -> system -> digest of what its job wrote (growth.output_digest)
    outputs: dict[tuple[int, str], dict[str, str]] = field(default_factory=dict)

    def keep_digest(self, rnd: int, pt: growth.Point, system: str) -> None:
        self.outputs.setdefault((rnd, pt.label), {})[system] = growth.output_digest(pt, system)

    def mix_steps(self, system: str, kind: str) -> list[Step]:
        n = self.mix_jobs if kind == "sequence" else self.mix_parallel
        slots = self.nodes * self.slots_per_node
        src = wordcount_input(self.mix_wc_mib, self.wc_files)
        out = growth.OUT / system / f"mix-{kind}"
        return [Step("wordcount", EXAMPLES_JAR, "wordcount",
                     (str(src), str(out / f"j{i}")),
                     conf=(("mapreduce.job.reduces", str(slots)),), clean=(out / f"j{i}",))
                for i in range(n)]


def run_round(plan: JobPlan, env: dict[str, str], lenv: dict[str, str], rnd: int,
              record: Record) -> None:
    order = rotation(plan.systems, rnd)
    log(f"  job cases, order of this round: {', '.join(order)}")
    for system in order:
        if system == HAM:
            ham_block(plan, env, rnd, record)
        elif system == LOCAL:
            local_block(plan, lenv, rnd, record)
        else:
            yarn_block(plan, env, rnd, record, system)
        _rm(growth.OUT / system)
    # Every system must have written the same output at each point (a figure of a system that
    # wrote something else measures nothing).
    for (r, label), by_system in plan.outputs.items():
        if r == rnd and (diff := growth.output_mismatches(by_system)):
            record("outputs", "mismatch", rnd, error=f"{label}: {diff}")


def _metrics(s: Sample, peaks: dict[str, float]) -> dict[str, float]:
    m: dict[str, float] = {"cmd_s": s.cmd_s, **peaks}
    for st in s.steps:
        m[f"{st['name']}_s"] = st["wall_s"]
    return m


def ham_block(plan: JobPlan, env: dict[str, str], rnd: int, record: Record) -> None:
    for pt in plan.points:
        tag = f"r{rnd}-{pt.case}-{pt.size}-{pt.nodes}n-ham"
        try:
            with memory.PeakRss(memory.ham_roles(str(SHARED))) as mem:
                s = run_ham(growth.steps(pt, HAM, pt.nodes * plan.slots_per_node,
                                         plan.wc_files), env, tag, pt.nodes, plan.slots_per_node)
            m = _metrics(s, mem.metrics())
            m["e2e_s"] = s.info["e2e_s"]
            record(pt.case, HAM, rnd, m, {"slurm_job": s.info["slurm_job"]},
                   point=pt.as_dict())
            plan.keep_digest(rnd, pt, HAM)
            record("startup", HAM, rnd, {k: s.info[k] for k in (
                "startup_s", "teardown_s", "ham_exit_s", "alloc_s", "startup_in_alloc_s")
                if k in s.info}, {"from": tag, "slurm_job": s.info["slurm_job"]})
        except Exception as e:
            record(pt.case, HAM, rnd, error=_err(e), point=pt.as_dict())
        _rm(growth.OUT / HAM)
    if plan.mixes:
        for kind in ("sequence", "parallel"):
            tag = f"r{rnd}-mix-{kind}-ham"
            try:
                s = run_ham(plan.mix_steps(HAM, kind), env, tag, plan.nodes,
                            plan.slots_per_node, parallel=kind == "parallel")
                record(f"mix-{kind}", HAM, rnd, _mix_metrics(s.info["span_s"],
                                                             s.info["e2e_s"], s, plan, kind))
            except Exception as e:
                record(f"mix-{kind}", HAM, rnd, error=_err(e))
            _rm(growth.OUT / HAM)


def local_block(plan: JobPlan, lenv: dict[str, str], rnd: int, record: Record) -> None:
    for pt in plan.points:
        tag = f"r{rnd}-{pt.case}-{pt.size}-{pt.nodes}n-local"
        slots = pt.nodes * plan.slots_per_node
        try:
            with memory.PeakRss(memory.local_roles(f"{tag}.local")) as mem:
                s = run_local(growth.steps(pt, LOCAL, slots, plan.wc_files), lenv, tag, slots)
            m = _metrics(s, mem.metrics())
            m["e2e_s"] = s.info["e2e_s"]
            record(pt.case, LOCAL, rnd, m, point=pt.as_dict())
            plan.keep_digest(rnd, pt, LOCAL)
        except Exception as e:
            record(pt.case, LOCAL, rnd, error=_err(e), point=pt.as_dict())
        _rm(growth.OUT / LOCAL)
    if plan.mixes:
        slots = plan.nodes * plan.slots_per_node
        try:
            s_seq = run_local(plan.mix_steps(LOCAL, "sequence"), lenv, f"r{rnd}-mix-seq-local",
                              slots)
            record("mix-sequence", LOCAL, rnd, _mix_metrics(s_seq.cmd_s, s_seq.cmd_s, s_seq,
                                                            plan, "sequence"))
        except Exception as e:
            record("mix-sequence", LOCAL, rnd, error=_err(e))
        try:
            span = _local_parallel(plan.mix_steps(LOCAL, "parallel"), lenv,
                                   f"r{rnd}-mix-par-local", slots)
            record("mix-parallel", LOCAL, rnd, _mix_metrics(span, span, None, plan,
                                                            "parallel"))
        except Exception as e:
            record("mix-parallel", LOCAL, rnd, error=_err(e))
        _rm(growth.OUT / LOCAL)


def _local_parallel(steps: Sequence[Step], lenv: dict[str, str], tag: str, slots: int) -> float:
    """The steps at once, each its own local-runner JVM (chain.py --parallel)."""
    extra = {"mapreduce.local.map.tasks.maximum": str(slots),
             "mapreduce.local.reduce.tasks.maximum": str(slots)}
    out = WORK / "tmp" / f"{tag}.chain.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    cmd: list[str] = ["python3", str(CHAIN), str(out), "--parallel", "--"]
    for i, s in enumerate(steps):
        s.prepare()
        if i:
            cmd.append("--then")
        cmd += ["ham", "hadoop", "jar", *s.argv({**extra, "hadoop.tmp.dir":
                                                 str(WORK / "tmp" / f"{tag}-{i}.local")})]
    r = run(cmd, env=lenv, check=False, log_to=LOGS / f"{tag}.log", timeout=7200)
    if r.rc != 0:
        raise BenchError(f"local runner failed (rc={r.rc}); see {LOGS / (tag + '.log')}")
    return r.wall


def yarn_block(plan: JobPlan, env: dict[str, str], rnd: int, record: Record,
               system: str) -> None:
    """One cluster per node count, kept up for that count's points (and the mixes on the
    mixes' node count): each job's e2e_s adds the cluster's start-up and shutdown, as if it
    had started its own; the mixes' e2e_s adds them once, as a Magpie script does."""
    profile = YARN_PROFILES[system]
    counts = sorted({pt.nodes for pt in plan.points} | ({plan.nodes} if plan.mixes else set()))
    for n in counts:
        pts = [pt for pt in plan.points if pt.nodes == n]
        if system != "yarn-tuned":
            for pt in [x for x in pts if x.case == "maps" and x.size > plan.yarn_default_max_maps]:
                plan.skipped.append(f"{system} {pt.label}: above --yarn-default-max-maps "
                                    f"{plan.yarn_default_max_maps}")
                pts.remove(pt)
        cluster = YarnCluster(base=WORK / "yarn" / f"r{rnd}-{profile}-{n}n", env=env, nodes=n,
                              slots_per_node=plan.slots_per_node, profile=profile)
        try:
            cluster.start()
            log(f"  {system} {n}n: up in {cluster.startup_s:.1f}s")
        except Exception as e:
            cluster.stop()
            for pt in pts:
                record(pt.case, system, rnd, error=f"YARN start: {_err(e)}", point=pt.as_dict())
            continue
        done: list[tuple[str, dict[str, float], dict[str, Any] | None]] = []
        try:
            for pt in pts:
                tag = f"r{rnd}-{pt.case}-{pt.size}-{n}n-{system}"
                try:
                    with memory.PeakRss(memory.yarn_roles(str(cluster.base))) as mem:
                        s = _yarn_steps(growth.steps(pt, system, n * plan.slots_per_node,
                                                     plan.wc_files), cluster, tag)
                    done.append((pt.case, _metrics(s, mem.metrics()), pt.as_dict()))
                    plan.keep_digest(rnd, pt, system)
                except Exception as e:
                    record(pt.case, system, rnd, error=_err(e), point=pt.as_dict())
                _rm(growth.OUT / system)
            if plan.mixes and n == plan.nodes:
                for kind in ("sequence", "parallel"):
                    try:
                        steps = plan.mix_steps(system, kind)
                        span = (_yarn_steps(steps, cluster, f"r{rnd}-mix-{kind}-{system}").cmd_s
                                if kind == "sequence"
                                else _yarn_parallel(steps, cluster, f"r{rnd}-mix-par-{system}"))
                        done.append((f"mix-{kind}", {"span_s": span}, None))
                    except Exception as e:
                        record(f"mix-{kind}", system, rnd, error=_err(e))
                    _rm(growth.OUT / system)
        finally:
            cluster.stop()
        around = cluster.startup_s + cluster.shutdown_s
        for case, m, pt_d in done:
            if case.startswith("mix-"):
                kind = case[4:]
                record(case, system, rnd, _mix_metrics(m["span_s"], m["span_s"] + around, None,
                                                       plan, kind))
            else:
                m["e2e_s"] = m["cmd_s"] + around
                record(case, system, rnd, m, {"startup_s": cluster.startup_s,
                                              "shutdown_s": cluster.shutdown_s}, point=pt_d)
        record("startup", system, rnd, {"startup_s": cluster.startup_s,
                                        "teardown_s": cluster.shutdown_s,
                                        "alloc_s": cluster.alloc_s}, {"nodes": n})
        # the daemons' logs stay for a failure's reader; containers and staging are big
        _rm(cluster.base / "nm")
        _rm(cluster.base / "staging")


def _yarn_steps(steps: Sequence[Step], cluster: YarnCluster, tag: str) -> Sample:
    from hambench.jobs import run_yarn
    return run_yarn(list(steps), cluster, tag)


def _yarn_parallel(steps: Sequence[Step], cluster: YarnCluster, tag: str) -> float:
    errors: list[BaseException] = []

    def one(i: int, s: Step) -> None:
        try:
            s.prepare()
            cluster.job(s.argv(), log_to=LOGS / f"{tag}-{i}.log")
        except BaseException as e:  # reported below, from the caller's thread
            errors.append(e)

    t0 = time.time()
    threads = [threading.Thread(target=one, args=(i, s)) for i, s in enumerate(steps)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]
    return time.time() - t0


def _mix_metrics(span_s: float, e2e_s: float, s: Sample | None, plan: JobPlan,
                 kind: str) -> dict[str, float]:
    n = plan.mix_jobs if kind == "sequence" else plan.mix_parallel
    return {"span_s": span_s, "e2e_s": e2e_s, "s_per_job": span_s / n,
            "e2e_s_per_job": e2e_s / n}


def _rm(path: Path) -> None:
    shutil.rmtree(path, ignore_errors=True)


def _err(e: BaseException) -> str:
    if isinstance(e, BenchError):
        return str(e)
    return "".join(traceback.format_exception(e))[-2000:]
