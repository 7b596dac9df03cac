"""Task timelines from a job's status record: text rows (`ham status --tasks`) and a PNG with
the tasks of every node over time (`ham report`)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ham.errors import EnvironmentProblem, UsageError


@dataclass(frozen=True)
class Bar:
    node: str
    lane: int  # concurrent attempts on one node are stacked in lanes
    attempt: str
    kind: str  # MAP or REDUCE
    state: str
    start: float  # seconds since the job started
    end: float


def bars(status: dict[str, Any]) -> list[Bar]:
    """Attempts laid out per node, greedily in lanes so that overlapping ones do not collide."""
    started = sorted((a for a in status["attempts"] if a.get("start") is not None),
                     key=lambda a: a["start"])
    t0 = status.get("start_time") or min((a["start"] for a in started), default=0)
    now = status.get("finish_time") or max((a.get("finish") or a["start"] for a in started),
                                           default=t0)
    lanes: dict[str, list[float]] = {}
    out = []
    for a in started:
        start, end = (a["start"] - t0) / 1000, ((a.get("finish") or now) - t0) / 1000
        ends = lanes.setdefault(a.get("node") or "?", [])
        lane = next((i for i, e in enumerate(ends) if e <= start), len(ends))
        if lane == len(ends):
            ends.append(end)
        else:
            ends[lane] = end
        out.append(Bar(a.get("node") or "?", lane, a["id"], a["type"], a["state"], start, end))
    return out


def text_rows(status: dict[str, Any]) -> list[str]:
    return [f"{b.attempt:<40} {b.kind:<6} {b.node:<10} {b.state:<9} "
            f"{b.start:8.2f}s {b.end:8.2f}s {b.end - b.start:7.2f}s" for b in bars(status)]


def png_path(output: str, job_id: str, several: bool = False) -> Path:
    """The file `ham report -o OUTPUT` writes for job_id, so that the path printed is the file
    written: matplotlib would add .png to a name without an extension by itself, and pick the
    format from any other one. With several Hadoop jobs to draw, a file name without {job}
    gets it before its extension: each job would be written over the one before."""
    named = Path(output)
    if several and "{job}" not in output and not named.is_dir():
        output = str(named.with_name(f"{named.stem}-{{job}}{named.suffix}"))
    path = Path(output.replace("{job}", job_id))
    if path.is_dir():
        return path / f"ham-{job_id}.png"
    if not path.suffix:
        return path.with_name(path.name + ".png")
    if path.suffix.lower() != ".png":
        raise UsageError(f"-o {output}: `ham report` writes PNG images: give a file name ending "
                         f"in .png (or a directory)")
    return path


def timeline_png(status: dict[str, Any], path: Path) -> Path:
    try:
        import matplotlib
    except ImportError:
        raise EnvironmentProblem("`ham report` needs matplotlib: pip install 'ham-launcher[report]'") \
            from None
    matplotlib.use("Agg")  # no display on compute and login nodes
    import matplotlib.pyplot as plt

    laid = bars(status)
    rows = sorted({(b.node, b.lane) for b in laid})
    index = {row: i for i, row in enumerate(rows)}
    fig, ax = plt.subplots(figsize=(10, 1.2 + 0.35 * max(len(rows), 1)))
    colours = {"MAP": "#4C72B0", "REDUCE": "#DD8452"}
    for b in laid:
        failed = b.state not in ("SUCCEEDED", "RUNNING")
        ax.barh(index[(b.node, b.lane)], b.end - b.start, left=b.start, height=0.8,
                color="#C44E52" if failed else colours.get(b.kind, "grey"),
                hatch="//" if failed else None, edgecolor="white", linewidth=0.5)
    ax.set_yticks(range(len(rows)), [f"{node} #{lane}" for node, lane in rows])
    ax.invert_yaxis()
    ax.set_xlabel("seconds since the job started")
    maps = status.get("maps", {})
    reduces = status.get("reduces", {})
    ax.set_title(f"{status.get('job_id', '')} {status.get('name', '')}: {status.get('state', '')}, "
                 f"{maps.get('total', 0)} maps, {reduces.get('total', 0)} reduces")
    from matplotlib.patches import Patch

    ax.legend(handles=[Patch(color=colours["MAP"], label="map"),
                       Patch(color=colours["REDUCE"], label="reduce"),
                       Patch(color="#C44E52", hatch="//", label="failed / killed")],
              loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize="small")
    ax.set_xlim(left=0)
    fig.tight_layout()
    try:
        fig.savefig(path, dpi=110, format="png")
    except OSError as exc:
        raise UsageError(f"cannot write {path}: {exc.strerror}: choose another file with -o") \
            from None
    finally:
        plt.close(fig)
    return path
