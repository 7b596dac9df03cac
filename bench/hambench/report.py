"""results.json, results.md and PNG plots from the raw samples."""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hambench import growth, limit
from hambench.util import write_json

# (case, metric, HAM variant, baseline variant): the ratio reported is HAM/baseline of medians
PAIRS: list[tuple[str, str, str, str]] = [
    # the job cases' ratios are per point, in the growth tables (hambench/growth.py)
    ("mix-sequence", "e2e_s", "ham", "local"),
    ("mix-sequence", "e2e_s", "ham", "yarn-tuned"),
    ("mix-sequence", "e2e_s", "ham", "yarn-default"),
    ("mix-parallel", "e2e_s", "ham", "local"),
    ("mix-parallel", "e2e_s", "ham", "yarn-tuned"),
    ("mix-parallel", "e2e_s", "ham", "yarn-default"),
    # against the physical limit: the fastest raw tool on the same files (hambench/limit.py)
    ("dfsio", "write_MBps", "ham", "limit"),
    ("dfsio", "read_MBps", "ham", "limit"),
    ("dfsio", "write_MBps", "lustre", "limit"),
    ("dfsio", "read_MBps", "lustre", "limit"),
    ("startup", "startup_s", "ham", "yarn-tuned"),
    ("startup", "teardown_s", "ham", "yarn-tuned"),
    ("resume", "total_s", "resumed", "uninterrupted"),
]

# metrics shown in the plots, per case
PLOT_METRICS: dict[str, list[str]] = {
    "mix-sequence": ["span_s", "e2e_s"],
    "mix-parallel": ["span_s", "e2e_s"],
    "dfsio": ["write_MBps", "read_MBps"],
    "startup": ["startup_s", "alloc_s", "startup_in_alloc_s", "teardown_s"],
    "driver": ["dispatches_per_s", "driver_steady_cpu_ms_per_task", "driver_maxrss_MB"],
    "resume": ["total_s", "maps_rerun"],
}

# scale: the columns of its table (one row per maps x runners), also the only scale metrics
# listed under "All metrics" (results.json keeps every one)
SCALE_COLUMNS = ["dispatches_per_s", "steady_dispatches_per_s", "driver_cpu_ms_per_dispatch",
                 "driver_cpu_bound_dispatches_per_s", "driver_cpu_util",
                 "heap_per_pending_task_B", "heap_per_finished_task_B", "rss_peak_MB",
                 "record_total_ms", "record_bytes", "lost_detect_s", "rpc_getTask_p99_ms",
                 "rpc_done_p99_ms", "connect_s"]

UNITS = {"_s": "s", "_ms_per_task": "ms/task", "_ms_per_map": "ms/map", "MBps": "MB/s",
         "_per_s": "1/s", "_MB": "MB"}


@dataclass
class Stat:
    median: float
    min: float
    max: float
    n: int


def summarize(samples: list[dict[str, Any]]) -> dict[str, dict[str, dict[str, Stat]]]:
    vals: dict[str, dict[str, dict[str, list[float]]]] = {}
    for s in samples:
        if s.get("error"):
            continue
        variant = f"{s['variant']} {s['point']['label']}" if s.get("point") else s["variant"]
        for k, v in s["metrics"].items():
            if isinstance(v, (int, float)):
                vals.setdefault(s["case"], {}).setdefault(variant, {}).setdefault(
                    k, []).append(float(v))
    return {c: {v: {k: Stat(statistics.median(x), min(x), max(x), len(x))
                    for k, x in ms.items()} for v, ms in vs.items()} for c, vs in vals.items()}


def _get(summary: dict[str, Any], case: str, variant: str, metric: str) -> Stat | None:
    return summary.get(case, {}).get(variant, {}).get(metric)


def pairs(summary: dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    for case, metric, a, b in PAIRS:
        sa, sb = _get(summary, case, a, metric), _get(summary, case, b, metric)
        if sa and sb:
            out.append({"case": case, "metric": metric, "ham": a, "baseline": b,
                        "ham_median": sa.median, "baseline_median": sb.median,
                        "ratio": sa.median / sb.median if sb.median else None})
    return out


def targets(summary: dict[str, Any]) -> list[dict[str, Any]]:
    t: list[dict[str, Any]] = []

    def add(name: str, goal: str, value: float | None, ok: bool | None) -> None:
        t.append({"target": name, "goal": goal, "value": value, "met": ok})

    def ratio(case: str, metric: str, num: str, den: str) -> float | None:
        a, b = _get(summary, case, num, metric), _get(summary, case, den, metric)
        return a.median / b.median if a and b and b.median else None

    for op in ("write", "read"):
        for fs, variant in (("lustre://", "lustre"), ("file://", "ham")):
            r = ratio("dfsio", f"{op}_MBps", variant, "limit")
            add(f"TestDFSIO through {fs} {op} / physical limit (a ratio > 1 is a measurement "
                f"bug)", "<= 1.0", r, r and r <= 1.0)
    s = _get(summary, "startup", "ham", "startup_s")
    add("start-up: `ham run` to first task running (median)", "< 5 s", s and s.median,
        s and s.median < 5)
    s = _get(summary, "startup", "ham", "startup_in_alloc_s")
    add("start-up, allocation granted to first task (excl. salloc/queueing)",
        "< 2 s", s and s.median, s and s.median < 2)
    s = _get(summary, "startup", "ham", "teardown_s")
    add("teardown: job end to runners gone + allocation free (median)", "< 3 s",
        s and s.median, s and s.median < 3)
    r = ratio("resume", "total_s", "resumed", "uninterrupted")
    add("resume: stopped half-way + resumed / uninterrupted (wall)", "<= 1.3x", r,
        r and r <= 1.3)
    s = _get(summary, "driver", "ham", "dispatches_per_s")
    add("driver dispatches/s (no-op tasks, median)", "> 500/s", s and s.median,
        s and s.median > 500)
    grid = scale_grid(summary, "dispatches_per_s")
    if grid:
        low = min(grid.values())
        add("scale: driver dispatches/s with simulated runners (lowest configuration)",
            ">= 5000/s", low, low >= 5000)
        for name, r in (("maps", _flatness(grid, 0)), ("runners", _flatness(grid, 1))):
            add(f"scale: dispatches/s flat over {name} (worst max/min)", "<= 2.0x", r,
                r is not None and r <= 2.0)
    slope = heap_slope(summary)
    if slope is not None:
        add("scale: driver heap per pending task (slope over maps, worst)", "< 2048 B", slope,
            slope < 2048)
    return t


def scale_grid(summary: dict[str, Any], metric: str) -> dict[tuple[int, int], float]:
    """(maps, runners) -> median of a scale metric."""
    from hambench.scale import parse_variant
    out = {}
    for v, ms in summary.get("scale", {}).items():
        if metric in ms:
            out[parse_variant(v)] = ms[metric].median
    return out


def _flatness(grid: dict[tuple[int, int], float], axis: int) -> float | None:
    """max/min of the metric along one axis (maps: 0, runners: 1), worst over the other."""
    lines: dict[int, list[float]] = {}
    for key, v in grid.items():
        lines.setdefault(key[1 - axis], []).append(v)
    ratios = [max(xs) / min(xs) for xs in lines.values() if len(xs) > 1 and min(xs) > 0]
    return max(ratios) if ratios else None


def heap_slope(summary: dict[str, Any]) -> float | None:
    """Bytes of driver heap per pending task: the slope between the smallest and largest job
    (a per-job constant cancels out), worst over runner counts."""
    grid = scale_grid(summary, "heap_per_pending_task_B")
    by_runners: dict[int, dict[int, float]] = {}
    for (m, r), v in grid.items():
        by_runners.setdefault(r, {})[m] = v * m  # total bytes
    slopes = []
    for pts in by_runners.values():
        if len(pts) > 1:
            lo, hi = min(pts), max(pts)
            slopes.append((pts[hi] - pts[lo]) / (hi - lo))
    return max(slopes) if slopes else None


def _fmt(x: float | None) -> str:
    if x is None:
        return "-"
    if abs(x) >= 100:
        return f"{x:.0f}"
    if abs(x) >= 10:
        return f"{x:.1f}"
    return f"{x:.2f}"


def markdown(meta: dict[str, Any], summary: dict[str, Any], prs: list[dict[str, Any]],
             tgs: list[dict[str, Any]], errors: list[dict[str, Any]],
             samples: list[dict[str, Any]] | None = None) -> str:
    L = ["# HAM benchmark results", "",
         f"Command: `{meta['command']}`  ",
         f"Started {meta['started']}, took {meta['duration_s'] / 60:.1f} min; "
         f"{meta['params']['rounds']} rounds; the systems' order rotated every round "
         f"({', '.join(meta.get('systems', []))} in round 1).  ",
         f"Commit: {meta.get('commit', ['?'])[0]}"
         f"{' (with uncommitted changes)' if meta.get('commit', [0, 0])[1] else ''}.  ",
         f"Sizes: {meta['sizes']}", *([f"Skipped: {'; '.join(meta['skipped'])}"]
                                      if meta.get("skipped") else []), ""]
    bugs = limit_lines(summary)
    if bugs:
        L += ["## !!! MEASUREMENT BUGS: a figure beats the physical limit", "", *bugs, ""]
    L += ["## Targets (reported, not asserted)", "", "| target | goal | value | met |",
          "|---|---|---|---|"]
    for t in tgs:
        met = "-" if t["met"] is None else ("yes" if t["met"] else "**no**")
        # a ratio of 0.895 against ">= 0.9" would print as "0.90 | no": one more digit below 10
        value = f"{t['value']:.3f}" if t["value"] is not None and abs(t["value"]) < 10 \
            else _fmt(t["value"])
        L.append(f"| {t['target']} | {t['goal']} | {value} | {met} |")
    L += ["", "## HAM / baseline (ratio of medians)", "",
          "| case | metric | HAM median | baseline | baseline median | HAM/baseline |",
          "|---|---|---|---|---|---|"]
    for p in prs:
        L.append(f"| {p['case']} | {p['metric']} | {_fmt(p['ham_median'])} | {p['baseline']} | "
                 f"{_fmt(p['baseline_median'])} | {_fmt(p['ratio'])} |")
    L += growth.markdown(samples or [])
    L += limit_table(summary)
    if "scale" in summary:
        L += scale_table(summary)
    L += ["", "## All metrics", "", "| case | variant | metric | median | min | max | n |",
          "|---|---|---|---|---|---|---|"]
    for case, vs in summary.items():
        for variant, ms in vs.items():
            for metric, s in ms.items():
                if case == "scale" and metric not in SCALE_COLUMNS:
                    continue
                L.append(f"| {case} | {variant} | {metric} | {_fmt(s.median)} | {_fmt(s.min)} | "
                         f"{_fmt(s.max)} | {s.n} |")
    if errors:
        L += ["", "## Failed runs", ""]
        for e in errors:
            lines = str(e["error"]).strip().splitlines()
            # a traceback's last line says what failed, its first only that one follows
            msg = (lines[-1] if lines[0].startswith("Traceback") else lines[0])[:300]
            L.append(f"- round {e['round']} {e['case']}/{e['variant']}: {msg}")
    L += ["", "Metric names: `cmd_s` = wall time of the `hadoop jar` client(s) with the cluster "
          "already there (the job alone); `e2e_s` = from asking Slurm for the allocation to the "
          "allocation being free (YARN: start-up + clients + shutdown); "
          "`overhead_ms_per_task` = (cmd_s - ideal) / tasks; `*_MBps` = total bytes / "
          "map-phase span (TestDFSIO) or wall (dd); plots: bars = median, whiskers = min..max, "
          "dots = rounds.", ""]
    return "\n".join(L)


def limit_lines(summary: dict[str, Any]) -> list[str]:
    """The loud lines: a TestDFSIO median above the limit's (limit.check_ratio)."""
    out = []
    for variant in ("ham", "lustre"):
        for op in limit.OPS:
            a, b = (_get(summary, "dfsio", v, f"{op}_MBps") for v in (variant, limit.LIMIT))
            bug = limit.check_ratio(a.median / b.median) if a and b and b.median else None
            if bug:
                out.append(f"- dfsio/{variant} {op}: {bug}")
    return out


def limit_table(summary: dict[str, Any]) -> list[str]:
    d = summary.get("dfsio", {})
    if limit.LIMIT not in d:
        return []
    L = ["", "## The physical limit: every raw tool on TestDFSIO's files (MB/s, median (min-max))",
         "", "| tool | write | read |", "|---|---|---|"]
    for v in [f"raw-{t}" for t in limit.TOOLS] + [limit.LIMIT, "ham", "lustre"]:
        if v in d:
            cells = [f"{_fmt(x.median)} ({_fmt(x.min)}-{_fmt(x.max)})" if (x := d[v].get(k))
                     else "-" for k in ("write_MBps", "read_MBps")]
            L.append(f"| {v} | " + " | ".join(cells) + " |")
    return L


def scale_table(summary: dict[str, Any]) -> list[str]:
    from hambench.scale import parse_variant
    L = ["", "## Scale: the driver with simulated runners (medians)", "",
         "| maps | runners | " + " | ".join(SCALE_COLUMNS) + " |",
         "|---|---|" + "---|" * len(SCALE_COLUMNS)]
    for v in sorted(summary["scale"], key=parse_variant):
        m, r = parse_variant(v)
        ms = summary["scale"][v]
        L.append(f"| {m} | {r} | " + " | ".join(_fmt(ms[c].median) if c in ms else "-"
                                                 for c in SCALE_COLUMNS) + " |")
    return L


def scale_plot(out: Path, summary: dict[str, Any]) -> Path | None:
    """scale.png: dispatches/s against maps and against runners (flat is the goal), the
    driver's CPU per dispatch, and its heap per pending and per finished task."""
    import matplotlib.pyplot as plt
    from hambench.scale import parse_variant
    if "scale" not in summary:
        return None
    stats = {parse_variant(v): ms for v, ms in summary["scale"].items()}
    maps = sorted({k[0] for k in stats})
    runners = sorted({k[1] for k in stats})
    fig, axes = plt.subplots(1, 4, figsize=(22, 4.5))

    def line(ax, metric, xs, key, label):
        pts = [(x, stats[key(x)][metric]) for x in xs if key(x) in stats
               and metric in stats[key(x)]]
        if not pts:
            return
        ax.errorbar([p[0] for p in pts], [p[1].median for p in pts],
                    yerr=[[p[1].median - p[1].min for p in pts],
                          [p[1].max - p[1].median for p in pts]],
                    marker="o", capsize=4, label=label)

    for r in runners:
        line(axes[0], "dispatches_per_s", maps, lambda m, r=r: (m, r), f"{r} runners")
        line(axes[2], "driver_cpu_ms_per_dispatch", maps, lambda m, r=r: (m, r), f"{r} runners")
    for m in maps:
        line(axes[1], "dispatches_per_s", runners, lambda r, m=m: (m, r), f"{m} maps")
    big = runners[0]
    line(axes[3], "heap_per_pending_task_B", maps, lambda m: (m, big), f"pending ({big} runners)")
    line(axes[3], "heap_per_finished_task_B", maps, lambda m: (m, big),
         f"finished ({big} runners)")
    titles = [("dispatches/s vs maps", "maps", "1/s"), ("dispatches/s vs runners", "runners", "1/s"),
              ("driver CPU per dispatch", "maps", "ms"), ("driver heap per task", "maps", "B")]
    for ax, (title, xl, yl) in zip(axes, titles):
        ax.set_xscale("log")
        ax.set_title(title)
        ax.set_xlabel(xl)
        ax.set_ylabel(yl)
        ax.set_ylim(bottom=0)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    for ax in axes[:2]:
        ax.axhline(5000, color="black", lw=0.8, ls="--")
    axes[3].axhline(2048, color="black", lw=0.8, ls="--")
    fig.tight_layout()
    path = out / "scale.png"
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def _unit(metric: str) -> str:
    for suffix, u in sorted(UNITS.items(), key=lambda x: -len(x[0])):
        if metric.endswith(suffix):
            return u
    return ""


def plots(out: Path, samples: list[dict[str, Any]], summary: dict[str, Any],
          prs: list[dict[str, Any]]) -> list[Path]:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    colors = {"ham": "#1f77b4", "local": "#ff7f0e", "yarn-default": "#98df8a",
              "yarn-tuned": "#2ca02c", "limit": "#7f7f7f", "lustre": "#9467bd",
              "raw-dd": "#c7c7c7", "raw-dd-direct": "#bcbd22", "raw-fio": "#dbdb8d",
              "raw-fio-direct": "#8c564b"}
    written = []
    for case, metrics in PLOT_METRICS.items():
        if case not in summary:
            continue
        fig, axes = plt.subplots(1, len(metrics), figsize=(5 * len(metrics), 4))
        for ax, metric in zip(axes, metrics):
            variants = [v for v in summary[case] if metric in summary[case][v]]
            for i, v in enumerate(variants):
                s = summary[case][v][metric]
                ax.bar(i, s.median, color=colors.get(v, "#999"), alpha=0.8,
                       yerr=[[s.median - s.min], [s.max - s.median]], capsize=6)
                pts = [x["metrics"][metric] for x in samples if x["case"] == case and
                       x["variant"] == v and not x.get("error") and metric in x["metrics"]]
                ax.scatter([i] * len(pts), pts, color="black", s=10, zorder=3)
                ax.annotate(_fmt(s.median), (i, s.median), ha="center", va="bottom",
                            xytext=(12, 2), textcoords="offset points", fontsize=9)
            ax.set_xticks(range(len(variants)), variants)
            ax.set_title(f"{case}: {metric}")
            ax.set_ylabel(_unit(metric))
            ax.grid(axis="y", alpha=0.3)
        fig.tight_layout()
        path = out / f"{case}.png"
        fig.savefig(path, dpi=100)
        plt.close(fig)
        written.append(path)
    g = growth_plot(out, samples, colors)
    if g:
        written.append(g)
    p = scale_plot(out, summary)
    if p:
        written.append(p)
    if prs:
        fig, ax = plt.subplots(figsize=(9, 0.35 * len(prs) + 1.5))
        labels = [f"{p['case']} {p['metric']} vs {p['baseline']}" for p in prs]
        ratios = [p["ratio"] or 0 for p in prs]
        ax.barh(range(len(prs)), ratios, color=[colors.get(p["baseline"], "#999") for p in prs])
        ax.axvline(1.0, color="black", lw=1)
        ax.set_yticks(range(len(prs)), labels, fontsize=8)
        ax.set_xscale("log")
        ax.set_xlabel("HAM / baseline (median); times: <1 is HAM faster, MB/s: >1 is HAM faster")
        for i, r in enumerate(ratios):
            ax.annotate(_fmt(r), (r, i), va="center", xytext=(3, 0), textcoords="offset points",
                        fontsize=8)
        from matplotlib.patches import Patch
        seen = sorted({p["baseline"] for p in prs})
        ax.legend(handles=[Patch(color=colors.get(b, "#999"), label=f"vs {b}") for b in seen],
                  loc="lower right", fontsize=8)
        ax.invert_yaxis()
        fig.tight_layout()
        path = out / "ratios.png"
        fig.savefig(path, dpi=100)
        plt.close(fig)
        written.append(path)
    return written


def growth_plot(out: Path, samples: list[dict[str, Any]], colors: dict[str, str]
                ) -> Path | None:
    """Time per unit against size, one line per system, one panel per growth case."""
    import matplotlib.pyplot as plt
    from hambench.systems import SYSTEMS
    cases = [(c, rs) for c in growth.CASES if (rs := growth.rows(samples, c))]
    if not cases:
        return None
    fig, axes = plt.subplots(1, len(cases), figsize=(5 * len(cases), 4), squeeze=False)
    for ax, (case, rs) in zip(axes[0], cases):
        for system in SYSTEMS:
            pts = [(r["nodes"] if case == "nodes" else r["units"], r["per_unit"][system])
                   for r in rs if system in r["per_unit"]]
            if pts:
                ax.plot(*zip(*pts), marker="o", label=system, color=colors.get(system, "#999"))
        ax.set_xscale("linear" if case == "nodes" else "log")
        ax.set_xlabel("nodes" if case == "nodes" else growth.UNIT[case] + "s")
        ax.set_ylabel(f"s per {growth.UNIT[case]}")
        ax.set_title(f"{case}: time per unit (median)")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    fig.tight_layout()
    path = out / "growth.png"
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def write_all(out: Path, meta: dict[str, Any], samples: list[dict[str, Any]]) -> None:
    out.mkdir(parents=True, exist_ok=True)
    summary = summarize(samples)
    prs = pairs(summary)
    tgs = targets(summary)
    errors = [s for s in samples if s.get("error")]
    js_summary = {c: {v: {m: s.__dict__ for m, s in ms.items()} for v, ms in vs.items()}
                  for c, vs in summary.items()}
    write_json(out / "results.json", {"meta": meta, "summary": js_summary, "pairs": prs,
                                       "targets": tgs,
                                       "growth": {c: growth.rows(samples, c)
                                                  for c in growth.CASES},
                                       "samples": samples})
    (out / "results.md").write_text(markdown(meta, summary, prs, tgs, errors, samples))
    plots(out, samples, summary, prs)
