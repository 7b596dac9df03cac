"""The bench's results layout (bench/hambench/layout.py) and growth tables (growth.py)."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

from hambench import growth, layout  # noqa: E402
from hambench.util import BenchError  # noqa: E402


def test_a_run_directory_names_its_date_and_commit() -> None:
    t = time.strptime("2026-11-27 10:05", "%Y-%m-%d %H:%M")
    assert layout.run_dir_name(t, "9239808abcdef0123", False) == "2026-11-27-1005-9239808ab"
    assert layout.run_dir_name(t, "9239808abcdef0123", True) == "2026-11-27-1005-9239808ab-dirty"


def test_a_trial_lives_under_trials_by_a_plain_name(tmp_path: Path) -> None:
    assert layout.trial_dir(tmp_path, "dfsio-direct") == tmp_path / "trials" / "dfsio-direct"
    for bad in ("", "../x", "a/b", ".hidden"):
        with pytest.raises(ValueError):
            layout.trial_dir(tmp_path, bad)


def test_points_cover_every_size_and_the_node_sweep_once() -> None:
    pts = growth.points([60, 300], [64, 1024], [1000], [1, 2, 3], nodes=3, nodes_wc_mib=1024)
    labels = [p.label for p in pts]
    assert labels == ["60 maps x 3n", "300 maps x 3n", "64 MiB x 3n", "1,024 MiB x 3n",
                      "1,000 MB x 3n", "1,024 MiB x 1n", "1,024 MiB x 2n"]
    assert growth.Point("terasort", 4000, 3).units == 4.0
    assert growth.Point("maps", 300, 3).units == 300.0


def _sample(case: str, size: int, system: str, rnd: int, cmd_s: float) -> dict:
    return {"case": case, "variant": system, "round": rnd, "error": None,
            "metrics": {"cmd_s": cmd_s}, "point": growth.Point(case, size, 3).as_dict()}


def test_growth_rows_give_cost_per_unit_and_ham_against_the_best_baseline() -> None:
    samples = [_sample("maps", 300, s, r, v) for r in range(3) for s, v in
               (("ham", 6.0 + r), ("local", 8.0), ("yarn-tuned", 30.0 + r),
                ("yarn-default", 90.0))]
    samples += [_sample("maps", 60, "ham", 0, 3.0), _sample("maps", 60, "local", 0, 2.0)]
    samples.append({**_sample("maps", 60, "yarn-tuned", 0, 0.1), "error": "failed"})
    rows = growth.rows(samples, "maps")
    assert [r["size"] for r in rows] == [60, 300]  # smallest first
    small, big = rows
    assert small["best"] == "local" and small["ham_best"] == pytest.approx(1.5)
    assert "yarn-tuned" not in small["cells"]  # a failed run is no figure
    assert big["cells"]["ham"] == {"median": 7.0, "min": 6.0, "max": 8.0, "n": 3}
    assert big["per_unit"]["ham"] == pytest.approx(7.0 / 300)
    assert big["best"] == "local" and big["ham_best"] == pytest.approx(7.0 / 8.0)
    assert big["ham_default"] == pytest.approx(7.0 / 90.0)
    md = "\n".join(growth.markdown(samples))
    assert "## Growth: maps" in md and "| 300 maps x 3n |" in md


def test_memory_roles_take_the_jvm_not_the_srun_that_starts_it() -> None:
    from hambench import memory
    roles = memory.ham_roles("/shared")
    srun = "srun --jobid=5 /usr/lib/jvm/bin/java -cp x io.github.ham.TaskRunner /shared/u/5"
    java = "/usr/lib/jvm/bin/java -cp x io.github.ham.TaskRunner /shared/u/5"
    assert not roles["runner"](srun) and roles["runner"](java)
    assert not roles["driver"](java)
    assert memory.vm_hwm_mb("Name:\tjava\nVmHWM:\t  204800 kB\n") == 200.0
    assert memory.vm_hwm_mb("Name:\tkthreadd\n") is None


def test_the_node_sweep_shows_the_main_node_count_from_the_wordcount_point() -> None:
    def sample(case: str, nodes: int, v: float) -> dict:
        return {"case": case, "variant": "ham", "round": 0, "error": None,
                "metrics": {"cmd_s": v}, "point": growth.Point(case, 1024, nodes).as_dict()}
    samples = [sample("nodes", 1, 30.0), sample("nodes", 2, 16.0), sample("wordcount", 3, 11.0),
               {**sample("wordcount", 3, 11.0), "point": growth.Point("wordcount", 64, 3)
                .as_dict()}]
    assert [(r["nodes"], r["cells"]["ham"]["median"]) for r in growth.rows(samples, "nodes")] \
        == [(1, 30.0), (2, 16.0), (3, 11.0)]


def test_cpu_time_is_read_after_a_command_name_with_spaces_and_summed_per_role() -> None:
    from hambench import memory
    stat = "42 (java (x) y) S 1 42 42 0 -1 4194560 100 0 0 0 250 50 7 3 20 0 30 0 9 1 2"
    assert memory.cpu_s(stat, ticks=100) == 3.0  # utime 250 + stime 50, not the children's
    peaks = memory.PeakRss({})
    peaks._seen = {1: "runner", 2: "runner", 3: "driver"}
    peaks.cpu = {1: 2.0, 2: 3.0, 3: 1.5}
    m = peaks.metrics()
    assert (m["runner_cpu_s"], m["driver_cpu_s"]) == (5.0, 1.5)


def test_cpu_rows_give_ms_per_unit_and_ham_against_the_local_runner() -> None:
    def sample(system: str, metrics: dict) -> dict:
        return {"case": "maps", "variant": system, "round": 0, "error": None,
                "metrics": {"cmd_s": 1.0, **metrics},
                "point": growth.Point("maps", 300, 3).as_dict()}
    samples = [sample("ham", {"driver_cpu_s": 0.6, "runner_cpu_s": 2.4}),
               sample("local", {"driver_cpu_s": 6.0})]
    rows = {r["system"]: r for r in growth.cpu_rows(samples)}
    assert rows["ham"]["driver_ms"] == pytest.approx(2.0)
    assert rows["ham"]["runner_ms"] == pytest.approx(8.0)
    assert rows["ham"]["ham_local"] == pytest.approx(0.5)
    assert rows["local"]["runner_ms"] is None and rows["local"]["total_ms"] == pytest.approx(20.0)
    assert "| maps | 300 maps x 3n | ham | 2.00 | 8.00 | 10.00 | 0.50 |" in \
        "\n".join(growth.markdown(samples))


def test_an_application_archive_is_told_from_the_jdks_own() -> None:
    from hambench import memory
    jdk = "7f00-7f10 r--p 0 fd:00 1 /usr/lib/jvm/java-17/lib/server/classes.jsa\n"
    app = "7f20-7f30 r--p 0 fd:00 2 /work/main/bench/work/yarn-cds/yarn-tasks.jsa\n"
    assert not memory.maps_app_archive(jdk)
    assert memory.maps_app_archive(jdk + app)
    assert not memory.maps_app_archive("")


def write_parts(d: Path, parts: list[str]) -> None:
    d.mkdir(parents=True)
    for i, text in enumerate(parts):
        (d / f"part-r-{i:05d}").write_text(text)


def test_outputs_compare_whatever_number_of_reduces_wrote_them(tmp_path: Path) -> None:
    wc = growth.Point("wordcount", 64, 3)
    write_parts(tmp_path / "one", ["a\t1\nb\t2\nc\t3\n"])
    write_parts(tmp_path / "three", ["b\t2\n", "c\t3\na\t1\n", ""])
    write_parts(tmp_path / "other", ["a\t1\nb\t2\nc\t4\n"])
    one, three, other = (growth.output_digest(wc, "x", tmp_path / d)
                         for d in ("one", "three", "other"))
    assert one == three != other
    assert growth.output_mismatches({"ham": one, "local": three}) is None
    assert "ham" in (growth.output_mismatches({"ham": other, "local": one}) or "")
    tera = growth.Point("terasort", 10, 3)
    write_parts(tmp_path / "t1" / "sorted", ["aaa", "bbb"])
    write_parts(tmp_path / "t2" / "sorted", ["aaabbb"])
    write_parts(tmp_path / "t3" / "sorted", ["bbb", "aaa"])  # out of order: not a total order
    t1, t2, t3 = (growth.output_digest(tera, "x", tmp_path / d) for d in ("t1", "t2", "t3"))
    assert t1 == t2 != t3
    (tmp_path / "empty").mkdir()
    with pytest.raises(BenchError, match="no part-r-"):
        growth.output_digest(wc, "x", tmp_path / "empty")
