"""The bench's physical limit (bench/hambench/limit.py): the fastest raw tool, and a ratio above
it reported as a measurement bug."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

from hambench import limit  # noqa: E402


def test_the_limit_is_the_fastest_tool() -> None:
    assert limit.limit_of({"dd": 700.0, "dd-direct": 1500.0, "fio": 800.0,
                           "fio-direct": 1400.0}) == ("dd-direct", 1500.0)
    with pytest.raises(ValueError):
        limit.limit_of({})


def test_limit_metrics_take_each_operation_from_its_own_best_tool() -> None:
    m = limit.limit_metrics({"dd": {"write_MBps": 900.0, "read_MBps": 700.0},
                             "fio-direct": {"write_MBps": 800.0, "read_MBps": 1600.0}})
    assert m["write_MBps"] == 900.0 and limit.TOOLS[int(m["write_tool"])] == "dd"
    assert m["read_MBps"] == 1600.0 and limit.TOOLS[int(m["read_tool"])] == "fio-direct"


def test_a_ratio_above_one_is_a_bug_and_one_is_not() -> None:
    assert limit.check_ratio(1.0) is None
    assert limit.check_ratio(0.42) is None
    line = limit.check_ratio(2.7)
    assert line and line.startswith("MEASUREMENT BUG") and "2.70x" in line


def test_the_bench_names_every_round_that_beats_its_limit() -> None:
    samples = [
        {"case": "dfsio", "variant": "limit", "round": 0,
         "metrics": {"write_MBps": 1000.0, "read_MBps": 1000.0}},
        {"case": "dfsio", "variant": "lustre", "round": 0,
         "metrics": {"write_MBps": 2700.0, "read_MBps": 900.0}},
        {"case": "dfsio", "variant": "ham", "round": 0,
         "metrics": {"write_MBps": 500.0, "read_MBps": 400.0}},
    ]
    lines = limit.bugs(samples)
    assert len(lines) == 1 and "dfsio/lustre write" in lines[0] and "MEASUREMENT BUG" in lines[0]


def test_raw_tools_do_the_same_io_as_each_other(tmp_path: Path) -> None:
    spec = limit.RawSpec(files=3, mb=64, parallel=2)
    dd_w = limit.dd_argvs(spec, tmp_path, "write", direct=True)
    assert len(dd_w) == 3
    assert all("conv=fdatasync" in a and "oflag=direct" in a and "count=64" in a for a in dd_w)
    assert all("iflag=direct" not in a for a in limit.dd_argvs(spec, tmp_path, "read", False))
    fio = limit.fio_batches(spec, tmp_path, "write", direct=False)
    # 3 files, 2 at once: a batch of 2 then 1, each file 64 MiB, synced at the end
    assert [a[-1] for a in fio] == ["--numjobs=2", "--numjobs=1"]
    assert all("--size=64M" in a and "--end_fsync=1" in a and "--direct=0" in a for a in fio)
    reads = limit.fio_batches(spec, tmp_path, "read", direct=True)
    assert [a[1] for a in reads] == [a[1] for a in fio]  # the read reads the files written
