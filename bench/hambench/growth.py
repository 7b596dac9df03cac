"""Sizes that grow: the points of each job case, their steps, and the cost per unit.

A point is one job at one size on one number of nodes: the many-map job (wordcount over N
one-line files, so that every system runs N maps: the sleep job's maps come from
mapreduce.job.maps, which Hadoop's local framework forces to 1), wordcount over generated text
(MiB), terasort (teragen + terasort + teravalidate, MB), and a fixed wordcount on 1, 2 and 3
nodes. Every system runs every point; the tables give each system's median (min-max), its time
per unit (per map or per GB), and HAM against the best baseline at that point, with the
default YARN beside it.
"""

from __future__ import annotations

import hashlib
import statistics
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

from hambench.data import oneline_files, wordcount_input
from hambench.jobs import Step
from hambench.systems import BASELINES, HAM, LOCAL, SYSTEMS, YARN_DEFAULT, best_baseline
from hambench.util import EXAMPLES_JAR, WORK, BenchError

OUT = WORK / "out"
CASES = ("maps", "wordcount", "terasort", "nodes")
UNIT = {"maps": "map", "wordcount": "GB", "terasort": "GB", "nodes": "GB"}
MIB = 1 << 20


@dataclass(frozen=True)
class Point:
    """One job at one size on `nodes` nodes."""

    case: str
    size: int        # maps, MiB (wordcount, nodes) or MB (terasort)
    nodes: int

    @property
    def label(self) -> str:
        unit = {"maps": " maps", "wordcount": " MiB", "terasort": " MB", "nodes": " MiB"}
        return f"{self.size:,}{unit[self.case]} x {self.nodes}n"

    @property
    def units(self) -> float:
        """How many units of cost the point has: maps, or GB of input."""
        if self.case == "maps":
            return float(self.size)
        if self.case == "terasort":
            return self.size / 1000.0
        return self.size * MIB / 1e9

    def as_dict(self) -> dict[str, Any]:
        return {"case": self.case, "size": self.size, "nodes": self.nodes, "label": self.label,
                "units": self.units, "unit": UNIT[self.case]}


def points(maps: Sequence[int], wc_mib: Sequence[int], tera_mb: Sequence[int],
           node_counts: Sequence[int], nodes: int, nodes_wc_mib: int) -> list[Point]:
    """Every point of a run: each size on `nodes` nodes, then the node sweep (a point already
    in the wordcount sizes is not run twice)."""
    pts = [*(Point("maps", m, nodes) for m in maps),
           *(Point("wordcount", w, nodes) for w in wc_mib),
           *(Point("terasort", t, nodes) for t in tera_mb)]
    for n in node_counts:
        if not (n == nodes and nodes_wc_mib in wc_mib):
            pts.append(Point("nodes", nodes_wc_mib, n))
    return pts


def steps(p: Point, system: str, slots: int, wc_files: int) -> list[Step]:
    """The `hadoop jar` steps of a point for one system (slots = its task slots)."""
    out = OUT / system / f"{p.case}-{p.size}-{p.nodes}"
    if p.case in ("maps", "wordcount", "nodes"):
        src = oneline_files(p.size) if p.case == "maps" else wordcount_input(p.size, wc_files)
        return [Step("wordcount", EXAMPLES_JAR, "wordcount", (str(src), str(out)),
                     conf=(("mapreduce.job.reduces", str(slots)),), clean=(out,))]
    gen, srt, val = out / "gen", out / "sorted", out / "report"
    # YARN with fs.defaultFS=file:///: YarnChild sets the default (= local) file system's
    # working directory to the client's, so TeraSort's relative "_partition.lst" (a
    # distributed-cache link in the container directory) is looked up there; point it at the
    # output directory, where TeraSort writes that file.
    yarn_fix = (("mapreduce.job.working.dir", str(srt)),) if system.startswith("yarn") else ()
    rows = p.size * 10_000  # 100-byte rows
    return [
        Step("teragen", EXAMPLES_JAR, "teragen", (str(rows), str(gen)),
             conf=(("mapreduce.job.maps", str(slots)),), clean=(out,)),
        Step("terasort", EXAMPLES_JAR, "terasort", (str(gen), str(srt)),
             conf=(("mapreduce.job.reduces", str(slots)), *yarn_fix)),
        Step("teravalidate", EXAMPLES_JAR, "teravalidate", (str(srt), str(val))),
    ]


def prepare_data(pts: Iterable[Point], wc_files: int) -> None:
    """Make every input before the first timed run (cached under bench/work/data)."""
    for p in pts:
        if p.case == "maps":
            oneline_files(p.size)
        elif p.case in ("wordcount", "nodes"):
            wordcount_input(p.size, wc_files)


def output_dir(system: str) -> Path:
    return OUT / system


def output_digest(p: Point, system: str, out: Path | None = None) -> str:
    """What a point's job wrote, whatever number of tasks wrote it (the systems run different
    numbers of reduces), as a SHA-256: wordcount's lines sorted (its reduces partition by hash),
    terasort's sorted output as it stands (a total order across its parts)."""
    out = out or OUT / system / f"{p.case}-{p.size}-{p.nodes}"
    parts = sorted((out / "sorted" if p.case == "terasort" else out).glob("part-r-*"))
    if not parts:  # else every system's "nothing" would compare equal
        raise BenchError(f"no part-r-* files in {out}: the job wrote no output")
    h = hashlib.sha256()
    if p.case == "terasort":
        for part in parts:
            with part.open("rb") as f:
                for chunk in iter(lambda: f.read(MIB), b""):
                    h.update(chunk)
    else:
        for line in sorted(line for part in parts for line in part.read_bytes().splitlines()):
            h.update(line + b"\n")
    return h.hexdigest()


def output_mismatches(by_system: Mapping[str, str]) -> str | None:
    """None when every system's output digest is the same, else what differs (one line)."""
    if len(set(by_system.values())) <= 1:
        return None
    return "the systems' outputs differ: " + ", ".join(
        f"{system} {digest[:12]}" for system, digest in sorted(by_system.items()))


# ---- tables ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class Cell:
    median: float
    min: float
    max: float
    n: int


def cells(samples: Iterable[Mapping[str, Any]], case: str, metric: str
          ) -> dict[tuple[int, int], dict[str, Cell]]:
    """(size, nodes) -> system -> median, min, max and n of a metric over the rounds."""
    samples = list(samples)
    # the node sweep's point on the main node count is a wordcount point, run once (points())
    swept = {s["point"]["size"] for s in samples if s.get("point", {}).get("case") == "nodes"}
    vals: dict[tuple[int, int], dict[str, list[float]]] = {}
    for s in samples:
        pt = s.get("point")
        if s.get("error") or not pt or metric not in s["metrics"] or not (
                pt["case"] == case or
                (case == "nodes" and pt["case"] == "wordcount" and pt["size"] in swept)):
            continue
        vals.setdefault((pt["size"], pt["nodes"]), {}).setdefault(s["variant"], []).append(
            float(s["metrics"][metric]))
    return {k: {sy: Cell(statistics.median(x), min(x), max(x), len(x)) for sy, x in v.items()}
            for k, v in vals.items()}


def rows(samples: Iterable[Mapping[str, Any]], case: str, metric: str = "cmd_s"
         ) -> list[dict[str, Any]]:
    """One row per point of a case, smallest first: every system's cell and cost per unit,
    the best baseline and HAM's ratio to it, and HAM's ratio to the default YARN."""
    out = []
    for (size, nodes), by in sorted(cells(samples, case, metric).items()):
        units = Point(case, size, nodes).units
        best = best_baseline({s: c.median for s, c in by.items()})
        ham = by.get(HAM)
        row: dict[str, Any] = {"size": size, "nodes": nodes, "units": units,
                               "label": Point(case, size, nodes).label,
                               "cells": {s: c.__dict__ for s, c in by.items()},
                               "per_unit": {s: c.median / units for s, c in by.items()},
                               "best": best[0] if best else None,
                               "ham_best": ham.median / best[1] if ham and best and best[1]
                               else None,
                               "ham_default": ham.median / by[YARN_DEFAULT].median
                               if ham and YARN_DEFAULT in by and by[YARN_DEFAULT].median
                               else None}
        out.append(row)
    return out


def _f(x: float | None, digits: int = 2) -> str:
    if x is None:
        return "-"
    return f"{x:,.0f}" if abs(x) >= 100 else f"{x:.{digits}f}"


def markdown(samples: Sequence[Mapping[str, Any]]) -> list[str]:
    L: list[str] = []
    for case in CASES:
        rs = rows(samples, case)
        if not rs:
            continue
        unit = UNIT[case]
        per = f"s per {unit}"
        L += ["", f"## Growth: {case} (`cmd_s`, the job alone: median (min-max) of "
                  f"{max(c['n'] for r in rs for c in r['cells'].values())} rounds; {per}; "
                  f"HAM / best baseline, and HAM / default YARN beside it)", "",
              "| point | " + " | ".join(SYSTEMS) + " | " +
              " | ".join(f"{s} {per}" for s in SYSTEMS) + " | best baseline | HAM/best | "
              "HAM/yarn-default |",
              "|---" * (2 * len(SYSTEMS) + 4) + "|"]
        for r in rs:
            cs = [f"{_f(c['median'])} ({_f(c['min'])}-{_f(c['max'])})" if (c := r["cells"].get(s))
                  else "-" for s in SYSTEMS]
            pu = [_f(r["per_unit"].get(s), 3) for s in SYSTEMS]
            L.append(f"| {r['label']} | " + " | ".join(cs) + " | " + " | ".join(pu) +
                     f" | {r['best'] or '-'} | {_f(r['ham_best'])} | {_f(r['ham_default'])} |")
    cpu = cpu_rows(samples)
    if cpu:
        L += ["", "## CPU time per unit (ms, median over rounds; JVM start-up included): the "
                  "driver (HAM: the client JVM; YARN: the MRAppMaster; local: its one JVM), the "
                  "runners together (TaskRunners, YarnChilds), their sum, and HAM's sum / the "
                  "local runner's (what 2 busy cores do not hide)", "",
              "| case | point | system | driver ms per unit | runners ms per unit | "
              "total ms per unit | HAM/local |", "|---|---|---|---|---|---|---|"]
        for r in cpu:
            L.append(f"| {r['case']} | {r['label']} | {r['system']} | "
                     f"{_f(r['driver_ms'], 2)} | {_f(r['runner_ms'], 2)} | "
                     f"{_f(r['total_ms'], 2)} | {_f(r['ham_local'])} |")
    mem = memory_rows(samples)
    if mem:
        L += ["", "## Memory: peak RSS (MB, median over rounds) of the driver (HAM: the client "
                  "JVM; YARN: the MRAppMaster; local: the one JVM) and of the largest runner "
                  "(HAM: a TaskRunner; YARN: a YarnChild), and per unit", "",
              "| case | point | system | driver MB | runner MB | driver MB per unit | "
              "runner MB per unit |", "|---|---|---|---|---|---|---|"]
        for r in mem:
            L.append(f"| {r['case']} | {r['label']} | {r['system']} | {_f(r['driver'])} | "
                     f"{_f(r['runner'])} | {_f(r['driver_per_unit'], 3)} | "
                     f"{_f(r['runner_per_unit'], 3)} |")
    return L


def memory_rows(samples: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for case in CASES:
        drv = cells(samples, case, "driver_rss_MB")
        run = cells(samples, case, "runner_rss_MB")
        for key in sorted(set(drv) | set(run)):
            p = Point(case, *key)
            for s in SYSTEMS:
                d, r = drv.get(key, {}).get(s), run.get(key, {}).get(s)
                if not d and not r:
                    continue
                out.append({"case": case, "label": p.label, "system": s,
                            "driver": d.median if d else None, "runner": r.median if r else None,
                            "driver_per_unit": d.median / p.units if d else None,
                            "runner_per_unit": r.median / p.units if r else None})
    return out


def cpu_rows(samples: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Per case, point and system: CPU ms per unit of the driver, of the runners together
    and of both (medians over rounds), and on HAM's row its total / the local runner's."""
    out = []
    for case in CASES:
        drv = cells(samples, case, "driver_cpu_s")
        run = cells(samples, case, "runner_cpu_s")
        for key in sorted(set(drv) | set(run)):
            p = Point(case, *key)
            totals: dict[str, float] = {}
            rows_here = []
            for s in SYSTEMS:
                d, r = drv.get(key, {}).get(s), run.get(key, {}).get(s)
                if not d and not r:
                    continue
                d_ms = d.median * 1000 / p.units if d else None
                r_ms = r.median * 1000 / p.units if r else None
                totals[s] = (d_ms or 0.0) + (r_ms or 0.0)
                rows_here.append({"case": case, "label": p.label, "system": s,
                                  "driver_ms": d_ms, "runner_ms": r_ms,
                                  "total_ms": totals[s], "ham_local": None})
            for r in rows_here:
                if r["system"] == HAM and totals.get(LOCAL):
                    r["ham_local"] = totals[HAM] / totals[LOCAL]
            out += rows_here
    return out


def worst_ham_best(samples: Sequence[Mapping[str, Any]]) -> dict[str, float | None]:
    """Per case, HAM / best baseline at its largest point: the summary line of a growth table."""
    out: dict[str, float | None] = {}
    for case in CASES:
        rs = [r for r in rows(samples, case) if r["ham_best"] is not None]
        out[case] = rs[-1]["ham_best"] if rs else None
    return out


__all__ = ["BASELINES", "CASES", "Point", "points", "steps", "rows", "markdown", "cpu_rows"]
