"""A JFR recording's execution samples as Markdown: samples per thread (numbers in thread names
folded), and for the busiest threads the methods most often on the stack (inclusive), so that a
profile quoted in bench/README.md is committed as data.

    python bench/hambench/jfrsummary.py RECORDING.jfr [--top 15] [--title TEXT] > OUT.md

The driver's JVM is recorded with, e.g., `-XX:StartFlightRecording=filename=X.jfr,settings=F`
where F enables jdk.ExecutionSample at a 2 ms period (bench/profile.jfc).
"""

from __future__ import annotations

import argparse
import collections
import json
import re
import subprocess


def samples(recording: str) -> list[tuple[str, list[str]]]:
    """(thread, frames top first as Class.method) of every execution sample."""
    out = subprocess.run(["jfr", "print", "--json", "--stack-depth", "64", "--events",
                          "jdk.ExecutionSample", recording],
                         check=True, capture_output=True, text=True).stdout
    result = []
    for e in json.loads(out)["recording"]["events"]:
        v = e["values"]
        thread = re.sub(r"\d+", "N", v["sampledThread"].get("javaName") or "?")
        frames = [f["method"]["type"]["name"].split("/")[-1] + "." + f["method"]["name"]
                  for f in v["stackTrace"]["frames"]]
        result.append((thread, frames))
    return result


def summary(recording: str, top: int, title: str) -> str:
    got = samples(recording)
    threads = collections.Counter(t for t, _ in got)
    lines = [f"# {title}", "", f"`{len(got)}` execution samples in `{recording.split('/')[-1]}`.",
             "", "| thread | samples | share |", "|---|---|---|"]
    lines += [f"| {t} | {n} | {n / len(got):.0%} |" for t, n in threads.most_common()]
    for thread, n in threads.most_common(4):
        inclusive: collections.Counter[str] = collections.Counter()
        for t, frames in got:
            if t == thread:
                inclusive.update(set(frames))
        lines += ["", f"## {thread} ({n} samples): methods on the stack", "",
                  "| method | samples | share of the thread |", "|---|---|---|"]
        lines += [f"| `{m}` | {c} | {c / n:.0%} |" for m, c in inclusive.most_common(top)]
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("recording")
    ap.add_argument("--top", type=int, default=15)
    ap.add_argument("--title", default="JFR execution samples")
    a = ap.parse_args()
    print(summary(a.recording, a.top, a.title), end="")


if __name__ == "__main__":
    main()
