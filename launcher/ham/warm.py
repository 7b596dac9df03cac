"""Parked task runners (warm runners, ham.runner.warm.idle.ms) end with their session.

A runner whose job ended parks in the session's warm-runner directory (tmp/ham-warm/parked/,
0700; Java: runner.WarmPark) until a later job of the session claims it or its idle time passes.
`ham run`'s teardown (and the reaper, when `ham run` was killed) stops those still parked: each
gets its stop line over TCP with the nonce of its entry. A runner also exits within a second of
its session's directory going (retention), and Slurm ends every step with the allocation.
"""

from __future__ import annotations

import logging
import re
import socket
from pathlib import Path

from ham import contract as c

log = logging.getLogger(__name__)
TIMEOUT = 2.0


def _properties(text: str) -> dict[str, str]:
    """A java.util.Properties file as Properties.store writes it (no continued lines)."""
    out: dict[str, str] = {}
    for line in text.splitlines():
        line = line.strip()
        if not line or line[0] in "#!" or "=" not in line:
            continue
        key, _, value = line.partition("=")
        out[key.strip()] = re.sub(r"\\(.)", r"\1", value.strip())
    return out


def parked(directory: Path) -> list[dict[str, str]]:
    """The entries of the runners parked in directory (none if there is no such directory)."""
    entries = []
    for f in sorted(directory.glob(f"*{c.WARM_SUFFIX}")) if directory.is_dir() else []:
        try:
            entry = _properties(f.read_text())
        except OSError:
            continue  # claimed or gone meanwhile
        if {"address", "port", "nonce"} <= entry.keys():
            entries.append(entry)
    return entries


def stop_parked(session: Path) -> int:
    """Tells every runner parked in session to exit; returns how many took the stop. The
    directory they park in is renamed first: a runner parking meanwhile finds none and exits,
    and the ones parked see it gone within a second even if the stop does not reach them."""
    directory = session / c.WARM_DIR / c.WARM_PARKED
    closed = directory.with_name(c.WARM_PARKED + ".closed")
    try:
        directory.rename(closed)
    except FileNotFoundError:
        return 0  # no job of the session parked its runners
    stopped = 0
    for entry in parked(closed):
        try:
            with socket.create_connection((entry["address"], int(entry["port"])),
                                          timeout=TIMEOUT) as s:
                s.sendall(f"{c.WARM_STOP}\t{entry['nonce']}\n".encode())
            stopped += 1
        except (OSError, ValueError) as exc:
            log.debug("parked runner %s:%s: %s", entry["address"], entry["port"], exc)
    if stopped:
        log.info("stopped %d parked task runner(s)", stopped)
    return stopped
