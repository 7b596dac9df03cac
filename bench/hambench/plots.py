"""The PNG plots of a run: one per case (bars = median, whiskers = min..max, dots = rounds),
the growth plot (time per unit against size), the scale grid, and the ratios."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hambench import growth
from hambench.report import _fmt, scale_grid

# metrics shown in the plots, per case
PLOT_METRICS: dict[str, list[str]] = {
    "mix-sequence": ["span_s", "e2e_s"],
    "mix-parallel": ["span_s", "e2e_s"],
    "dfsio": ["write_MBps", "read_MBps"],
    "startup": ["startup_s", "alloc_s", "startup_in_alloc_s", "teardown_s"],
    "driver": ["dispatches_per_s", "driver_steady_cpu_ms_per_task", "driver_maxrss_MB"],
    "resume": ["total_s", "maps_rerun"],
}

UNITS = {"_s": "s", "_ms_per_task": "ms/task", "_ms_per_map": "ms/map", "MBps": "MB/s",
         "_per_s": "1/s", "_MB": "MB"}


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
