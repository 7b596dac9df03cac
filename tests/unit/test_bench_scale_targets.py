"""The scale case's report against issue 32's targets (bench/hambench/report.py)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

from hambench.report import Stat, scale_target_table, targets  # noqa: E402


def _one(x: float) -> Stat:
    return Stat(x, x, x, 1)


def _summary() -> dict:
    def cfg(cpu: float, p99: float, connect: float) -> dict:
        return {"dispatches_per_s": _one(3000.0), "driver_cpu_ms_per_dispatch": _one(cpu),
                "rpc_getTask_p50_ms": _one(p99 / 4), "rpc_getTask_p99_ms": _one(p99),
                "connect_s": _one(connect), "connect_ramp_s": _one(0.1),
                "driver_cpu_ms_per_connection": _one(0.5)}
    return {"scale": {"m1000-r100": cfg(0.09, 99.0, 0.3),
                      "m10000-r100": cfg(0.12, 20.0, 0.2),
                      "m1000-r10000": cfg(0.05, 100.0, 2.0)}}


def test_each_runner_count_is_held_to_each_target_by_its_worst_configuration() -> None:
    rows = {t["target"]: t for t in targets(_summary()) if "(#32)" in t["target"]}
    cpu100 = rows["scale (#32): driver CPU a dispatch, 100 runners (worst over maps)"]
    assert (cpu100["value"], cpu100["met"]) == (0.12, False)
    p99 = rows["scale (#32): task request p99, 100 runners (worst over maps)"]
    assert (p99["value"], p99["met"]) == (99.0, True)
    # the latency's goal is strictly under 100 ms; the others' at most their goal
    assert not rows["scale (#32): task request p99, 10,000 runners (worst over maps)"]["met"]
    assert rows["scale (#32): all runners connected, 10,000 runners (worst over maps)"]["met"]
    assert rows["scale (#32): driver CPU a dispatch, 10,000 runners (worst over maps)"]["met"]


def test_the_table_shows_every_configuration_with_its_verdicts() -> None:
    lines = scale_target_table(_summary())
    row = next(x for x in lines if x.startswith("| 10000 | 100 |"))
    assert "0.12 **not met**" in row and "20.0 met" in row and "3000" in row
    assert sum(x.startswith("| ") and x[2].isdigit() for x in lines) == 3
    header = next(x for x in lines if x.startswith("| maps"))
    assert header.count("|") == lines[lines.index(header) + 1].count("|") == row.count("|")
    # 0.5 ms a connection: 100 runners 0.05 s of driver CPU, 10,000 runners 5 s
    assert row.endswith("| 0.50 | 0.05 met |")
    assert next(x for x in lines if x.startswith("| 1000 | 10000 |")).endswith("| 5.00 **not met** |")
