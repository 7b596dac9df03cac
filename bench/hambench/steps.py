"""The scale case measured once per commit (bench/scale-steps.sh): one table of what each driver
change did, from the committed results (bench/results/scale-steps/<n>-<commit>/results.json).

    .venv/bin/python bench/hambench/steps.py [DIR]    # prints it, writes DIR/steps.md
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from hambench.scale import parse_variant  # noqa: E402
from hambench.util import REPO, RESULTS  # noqa: E402

STEPS = RESULTS / "scale-steps"
# (metric, column title, format)
COLUMNS = [
    ("dispatches_per_s", "dispatches/s", "{:.0f}"),
    ("driver_cpu_ms_per_dispatch", "driver CPU ms/dispatch", "{:.2f}"),
    ("driver_cpu_bound_dispatches_per_s", "dispatches per driver CPU-s", "{:.0f}"),
    ("tail_driver_cpu_util", "driver cores while runners idle", "{:.2f}"),
    ("heap_per_pending_task_B", "heap B/pending task", "{:.0f}"),
    ("heap_per_finished_task_B", "heap B/finished task", "{:.0f}"),
    ("record_total_ms", "status record ms", "{:.0f}"),
    ("record_bytes", "status record MB", "{:.1f}"),
    ("rpc_done_p99_ms", "done p99 ms", "{:.0f}"),
    ("connect_s", "runners connected in s", "{:.1f}"),
    ("connect_failures", "connect failures", "{:.0f}"),
]


def subject(sha: str) -> str:
    """The commit's subject up to its colon, or "" when the label is not a commit."""
    r = subprocess.run(["git", "-C", str(REPO), "log", "-1", "--format=%s", sha, "--"],
                       capture_output=True, text=True)
    s = r.stdout.strip() if r.returncode == 0 else ""
    return s.split(":")[0] if ":" in s[:40] else s[:40]


def table(root: Path) -> str:
    rows = []
    for d in sorted(root.iterdir(), key=lambda p: int(p.name.split("-")[0])
                    if p.name.split("-")[0].isdigit() else 1 << 30):
        f = d / "results.json"
        if not d.is_dir() or not f.is_file():
            continue
        n, sha = d.name.split("-", 1)
        data = json.loads(f.read_text())
        for s in sorted(data["samples"], key=lambda s: parse_variant(s["variant"])):
            if s["case"] != "scale":
                continue
            maps, runners = parse_variant(s["variant"])
            cells = []
            for metric, _, fmt in COLUMNS:
                v = s["metrics"].get(metric)
                if v is not None and metric == "record_bytes":
                    v = v / 1e6
                cells.append("-" if v is None else fmt.format(v))
            if s.get("error"):
                cells = ["failed: " + s["error"].strip().splitlines()[0][:80]] + [""] * (
                    len(COLUMNS) - 1)
            label = f"`{sha}` {subject(sha)}".strip()
            conf = data["meta"]["params"].get("scale_conf") or []
            if conf:
                label += " (" + ", ".join(f"`{c}`" for c in conf) + ")"
            rows.append(f"| {n} | {label} | {maps} | {runners} | "
                        + " | ".join(cells) + " |")
    head = ("| step | build | maps | runners | " + " | ".join(c[1] for c in COLUMNS) + " |\n"
            + "|---|---|---|---|" + "---|" * len(COLUMNS))
    return head + "\n" + "\n".join(rows) + "\n"


def main(argv: list[str]) -> int:
    root = Path(argv[0]) if argv else STEPS
    text = table(root)
    (root / "steps.md").write_text("# The scale case, one driver change at a time\n\n"
                                   "Made by `bench/hambench/steps.py` from the results in this "
                                   "directory (`bash bench/scale-steps.sh`; each directory's "
                                   "results.md has the command).\n\n" + text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
