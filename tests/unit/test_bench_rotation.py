"""The bench's order of systems (bench/hambench/systems.py) and best baseline."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

from hambench.systems import SYSTEMS, best_baseline, rotation  # noqa: E402


def test_every_system_runs_once_in_every_place_over_as_many_rounds() -> None:
    orders = [rotation(SYSTEMS, r) for r in range(len(SYSTEMS))]
    assert orders[0] == list(SYSTEMS)
    for place in range(len(SYSTEMS)):
        assert sorted(o[place] for o in orders) == sorted(SYSTEMS)
    assert all(sorted(o) == sorted(SYSTEMS) for o in orders)
    assert rotation(SYSTEMS, len(SYSTEMS)) == orders[0]
    assert rotation([], 3) == []


def test_the_best_baseline_is_the_fastest_and_never_ham() -> None:
    medians = {"ham": 1.0, "local": 9.0, "yarn-default": 30.0, "yarn-tuned": 6.0}
    assert best_baseline(medians) == ("yarn-tuned", 6.0)
    assert best_baseline(medians, lower_is_better=False) == ("yarn-default", 30.0)
    assert best_baseline({"ham": 1.0}) is None
