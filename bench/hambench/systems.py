"""The systems a job runs on and the order they run in: HAM against its baselines.

A round runs every system's block of jobs one after the other; the order is rotated every
round, so that no system always runs first (on a cold machine) or last (after the heaviest
block), as YARN always did before (bench/README.md, "How it runs").
"""

from __future__ import annotations

from typing import Mapping, Sequence

HAM = "ham"
LOCAL = "local"
YARN_DEFAULT = "yarn-default"
YARN_TUNED = "yarn-tuned"
SYSTEMS = (HAM, LOCAL, YARN_DEFAULT, YARN_TUNED)
BASELINES = (LOCAL, YARN_DEFAULT, YARN_TUNED)
YARN_PROFILES = {YARN_DEFAULT: "default", YARN_TUNED: "tuned"}


def rotation(systems: Sequence[str], rnd: int) -> list[str]:
    """The order of the systems in round rnd (0-based): round 0 as given, then each round
    starts one later, so over len(systems) rounds every system runs once in every place."""
    if not systems:
        return []
    k = rnd % len(systems)
    return [*systems[k:], *systems[:k]]


def best_baseline(medians: Mapping[str, float], lower_is_better: bool = True
                  ) -> tuple[str, float] | None:
    """The best baseline figure of a point (system, median): the fastest time or the highest
    rate among the baselines measured there; HAM itself is never its own baseline."""
    have = [(s, v) for s, v in medians.items() if s in BASELINES and v is not None]
    if not have:
        return None
    pick = min if lower_is_better else max
    return pick(have, key=lambda sv: sv[1])
