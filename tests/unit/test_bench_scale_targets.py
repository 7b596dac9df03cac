"""The scale and load cases' report against issue 32's targets (bench/hambench/report.py)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

from hambench.report import Stat, load_table, scale_target_table, targets  # noqa: E402
from hambench.scale import (load_params_problem, load_task_ms, load_variant,  # noqa: E402
                            parse_load_variant)


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
    # at most their goal
    assert rows["scale (#32): all runners connected, 10,000 runners (worst over maps)"]["met"]
    # a closed loop's latency is not held to the target (the load case's is)
    assert not any("task request" in t for t in rows)
    assert rows["scale (#32): driver CPU a dispatch, 10,000 runners (worst over maps)"]["met"]


def test_the_table_shows_every_configuration_with_its_verdicts() -> None:
    lines = scale_target_table(_summary())
    row = next(x for x in lines if x.startswith("| 10000 | 100 |"))
    assert "0.12 **not met**" in row and "| 20.0 |" in row and "3000" in row
    assert sum(x.startswith("| ") and x[2].isdigit() for x in lines) == 3
    header = next(x for x in lines if x.startswith("| maps"))
    assert header.count("|") == lines[lines.index(header) + 1].count("|") == row.count("|")
    # 0.5 ms a connection: 100 runners 0.05 s of driver CPU, 10,000 runners 5 s
    assert row.endswith("| 0.50 | 0.05 met |")
    assert next(x for x in lines if x.startswith("| 1000 | 10000 |")).endswith("| 5.00 **not met** |")


def _load_summary() -> dict:
    def cfg(cpu: float, p99: float) -> dict:
        return {"task_ms": _one(0.0), "dispatches_per_s": _one(900.0),
                "driver_cpu_ms_per_dispatch": _one(cpu), "rpc_getTask_p99_ms": _one(p99),
                "rpc_getTask_first_p99_ms": _one(2000.0)}
    return {"load": {load_variant("nocommit", 100, 0): cfg(0.1, 500.0),
                     load_variant("commit", 100, 0): cfg(0.18, 500.0),
                     load_variant("nocommit", 10000, 1000): cfg(0.4, 99.9),
                     load_variant("commit", 10000, 1000): cfg(0.4, 100.0)}}


def test_load_holds_cpu_when_saturated_and_latency_under_load_to_the_targets() -> None:
    rows = {t["target"]: t for t in targets(_load_summary()) if t["target"].startswith("load")}
    cpu = [t for name, t in rows.items() if "CPU" in name]
    # only the configurations where runners ask as fast as they can: the dispatch's own cost
    assert sorted((t["value"], t["met"]) for t in cpu) == [(0.1, True), (0.18, False)]
    p99 = {name: t for name, t in rows.items() if "p99" in name}
    assert len(p99) == 2  # only under an offered load: a closed loop's wait is Little's law's
    [met] = [t for name, t in p99.items() if "nothing to commit" in name]
    [missed] = [t for name, t in p99.items() if "nothing to commit" not in name]
    assert (met["value"], met["met"], missed["met"]) == (99.9, True, False)  # strictly under
    assert all("10,000 runners, 1,000 tasks/s offered" in name for name in p99)


def test_load_variants_and_task_times() -> None:
    assert parse_load_variant(load_variant("commit", 10000, 1000)) == ("commit", 10000, 1000)
    # 10,000 runners offer 1,000 tasks a second with 10 s tasks; 0: no task time
    assert (load_task_ms(10000, 1000), load_task_ms(100, 1000), load_task_ms(100, 0)) == (
        10000, 100, 0)
    lines = load_table(_load_summary())
    assert sum(x.startswith("| commit") or x.startswith("| nocommit") for x in lines) == 4
    header = next(x for x in lines if x.startswith("| kind"))
    row = next(x for x in lines if x.startswith("| nocommit | 10000 | 1000 |"))
    assert header.count("|") == row.count("|") and "| 99.9 |" in row


def test_load_parameters_that_cannot_run_are_refused_in_one_line() -> None:
    ok = (30_000, ["commit", "nocommit"], [100, 10_000], [0, 1_000])
    assert load_params_problem(*ok) is None
    for bad, words in (((30_000, [], [100], [0]), "--load-kinds is empty"),
                       ((30_000, ["commit"], [100], [0, 0]), "repeats"),
                       ((0, ["commit"], [100], [0]), "at least 1"),
                       ((30_000, ["commit"], [100], [-5]), "must be 0"),
                       ((30_000, ["commit"], [100], [300_000]), "under 1 ms")):
        problem = load_params_problem(*bad)
        assert problem and words in problem and "\n" not in problem, (bad, problem)
