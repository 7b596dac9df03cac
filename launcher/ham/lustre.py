"""Lustre in the launcher: whether a path is on Lustre (the one seam, shared with the Java
runtime's LustreMounts), `lfs setstripe` of directories HAM creates, and the syntax of stripe
layouts in settings.

A path is on Lustre when its mount's statfs type is Lustre's magic (0x0BD00BD0), or when it
lies under a directory listed in $HAM_LUSTRE_MOUNTS (':'-separated; for a Lustre seen through
a mount that reports another type, and for tests that put a stand-in `lfs` on PATH). Only then
does HAM run `lfs`; elsewhere it runs nothing and says so in one INFO line.
"""

from __future__ import annotations

import logging
import os
import re
from pathlib import Path
from typing import Mapping

from ham import contract as c
from ham import proc

log = logging.getLogger(__name__)

LUSTRE_MAGIC = "bd00bd0"  # statfs f_type of Lustre (0x0BD00BD0), as `stat -f -c %t` prints it
STRIPE_UNIT = 64 * 1024   # Lustre stripe sizes are multiples of 64 KiB
_SIZE = re.compile(r"^(\d+)([KMG]?)$", re.IGNORECASE | re.ASCII)
# COUNT:SIZE, spaces allowed around either, as the Java runtime's lustre.StripeLayout reads it
# (tests/vectors/stripe_layouts.tsv holds the cases both parsers are tested on).
_LAYOUT = re.compile(r"^\s*(-?\d+)\s*:\s*(\d+)([KMG]?)\s*$", re.IGNORECASE | re.ASCII)
_UNITS = {"": 1, "K": 2**10, "M": 2**20, "G": 2**30}
_INT_MAX, _LONG_MAX = 2**31 - 1, 2**63 - 1  # the Java side's int count and long size


def forced_mounts(env: Mapping[str, str]) -> list[Path]:
    return [Path(os.path.abspath(p.strip()))
            for p in env.get(c.ENV_LUSTRE_MOUNTS, "").split(":") if p.strip()]


def is_lustre(path: Path, env: Mapping[str, str] | None = None) -> bool:
    env = os.environ if env is None else env
    absolute = Path(os.path.abspath(path))
    if any(absolute == m or m in absolute.parents for m in forced_mounts(env)):
        return True
    # A path not made yet (an output directory) is on the file system of its nearest existing
    # ancestor, as the Java runtime's LustreMounts decides.
    while not absolute.exists() and absolute != absolute.parent:
        absolute = absolute.parent
    res = proc.run(["stat", "-f", "-c", "%t", str(absolute)], check=False)
    return res.returncode == 0 and res.stdout.strip() == LUSTRE_MAGIC


def stripe_directory(path: Path, count: int, size: str, what: str,
                     env: Mapping[str, str] | None = None) -> bool:
    """`lfs setstripe -c COUNT -S SIZE path` if path is on Lustre (else one INFO line).
    Returns whether it ran."""
    if not is_lustre(path, env):
        log.info("%s is not on Lustre: %s stripe layout %s:%s not applied", path, what, count, size)
        return False
    proc.run(["lfs", *setstripe_args(f"{count}:{size}"), str(path)],
             hint="check stripe_count / stripe_size")
    return True


def setstripe_args(layout: str) -> list[str]:
    """`lfs setstripe`'s arguments before the path for COUNT:SIZE, as the Java runtime's Lfs."""
    count, size = _layout(layout)
    return ["setstripe", "-c", str(count), "-S", _size_text(size)]


# -- settings syntax (the Java side parses the same: lustre.StripeLayout, lustre.StripeRules) --

def size_bytes(text: str) -> int:
    m = _SIZE.match(text.strip())
    if not m:
        raise ValueError("expected a size such as 1M or 4M")
    return int(m.group(1)) * _UNITS[m.group(2).upper()]


def parse_size(v: object) -> str:
    """A stripe size such as 1M or 4M (lfs setstripe -S syntax): a multiple of 64K."""
    if not isinstance(v, str):
        raise ValueError("expected a size such as 1M or 4M")
    n = size_bytes(v)
    if n <= 0 or n % STRIPE_UNIT:
        raise ValueError("expected a multiple of 64K such as 1M or 4M")
    return v.strip().upper()


def _size_text(n: int) -> str:
    """A size in the largest unit that divides it (1M, not 1024K), as StripeLayout writes it."""
    for unit in ("G", "M", "K"):
        if n % _UNITS[unit] == 0:
            return f"{n // _UNITS[unit]}{unit}"
    return str(n)


def _layout(v: str) -> tuple[int, int]:
    """(count, size in bytes) of COUNT:SIZE; ValueError as the Java side refuses it."""
    m = _LAYOUT.match(v)
    if not m:
        raise ValueError("expected COUNT:SIZE, e.g. 4:16M")
    count, size = int(m.group(1)), int(m.group(2)) * _UNITS[m.group(3).upper()]
    if count < -1 or count == 0 or count > _INT_MAX:
        raise ValueError("expected COUNT:SIZE, e.g. 4:16M (COUNT -1 or more than 0)")
    if size <= 0 or size % STRIPE_UNIT or size > _LONG_MAX:
        raise ValueError("expected COUNT:SIZE with SIZE a multiple of 64K such as 1M or 4M")
    return count, size


def parse_layout(v: object) -> str:
    """COUNT:SIZE, e.g. 4:16M (count -1 = all OSTs), or empty for none; written as the Java
    runtime writes it (4:1M for 4:1024K)."""
    if not isinstance(v, str):
        raise ValueError("expected COUNT:SIZE, e.g. 4:16M")
    if not v.strip():
        return ""
    count, size = _layout(v)
    return f"{count}:{_size_text(size)}"


def parse_rules(v: object) -> str:
    """Comma-separated GLOB=COUNT:SIZE, e.g. part-*=4:16M, or empty."""
    if not isinstance(v, str):
        raise ValueError("expected GLOB=COUNT:SIZE[,GLOB=COUNT:SIZE...]")
    rules = []
    for item in (x.strip() for x in v.split(",")):
        if not item:
            continue
        glob, sep, layout = item.rpartition("=")
        if not sep or not glob.strip() or not layout.strip():
            raise ValueError(f"bad rule '{item}': expected GLOB=COUNT:SIZE, e.g. part-*=4:16M")
        rules.append(f"{glob.strip()}={parse_layout(layout)}")
    return ",".join(rules)
