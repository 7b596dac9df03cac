"""Where a run's results go: one dated directory per `bash bench/run.sh`, named after the
commit it measured, so that every figure names the one run behind it."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

TRIALS = "trials"  # bench/results/trials/NAME/: a trial that explains a figure, with a README


def run_dir_name(started: time.struct_time, commit: str, dirty: bool) -> str:
    """<YYYY-MM-DD-HHMM>-<commit[:9]>[-dirty]: sorts by time, names the build measured; a run
    of a tree with uncommitted changes says so (it cannot be rebuilt from the commit alone)."""
    return time.strftime("%Y-%m-%d-%H%M", started) + f"-{commit[:9]}" + ("-dirty" if dirty else "")


def trial_dir(results: Path, name: str) -> Path:
    if not name or "/" in name or name.startswith("."):
        raise ValueError(f"a trial's name is one plain directory name, not {name!r}")
    return results / TRIALS / name


def git_commit(repo: Path, paths: tuple[str, ...] = ("bench", "mapreduce", "launcher",
                                                     "templates")) -> tuple[str, bool]:
    """HEAD's commit, and whether the measured paths differ from it."""
    head = subprocess.run(["git", "-C", str(repo), "rev-parse", "HEAD"], capture_output=True,
                          text=True, check=True).stdout.strip()
    diff = subprocess.run(["git", "-C", str(repo), "status", "--porcelain", "--", *paths],
                          capture_output=True, text=True, check=True).stdout.strip()
    return head, bool(diff)


def new_run_dir(results: Path, repo: Path) -> Path:
    commit, dirty = git_commit(repo)
    return results / run_dir_name(time.localtime(), commit, dirty)
