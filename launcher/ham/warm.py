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
import selectors
import socket
import time
from pathlib import Path

from ham import contract as c

log = logging.getLogger(__name__)
TIMEOUT = 2.0
# How long the session waits for its stopped runners to exit (a JVM ends in well under a second).
EXIT_WAIT = 10.0


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
    """Tells every runner parked in session to exit and waits (up to EXIT_WAIT s) until each
    has: a runner keeps the stop's connection open until its JVM is gone, so its end is the
    runner's. Returns how many took the stop. The directory they park in is renamed first: a
    runner parking meanwhile finds none and exits, and the ones parked see it gone within a
    second even if the stop does not reach them."""
    directory = session / c.WARM_DIR / c.WARM_PARKED
    closed = directory.with_name(c.WARM_PARKED_CLOSED)
    try:
        directory.rename(closed)
    except FileNotFoundError:
        return 0  # no job of the session parked its runners
    stopping: list[socket.socket] = []
    for entry in parked(closed):
        try:
            s = socket.create_connection((entry["address"], int(entry["port"])), timeout=TIMEOUT)
            s.sendall(f"{c.WARM_STOP}\t{entry['nonce']}\n".encode())
            stopping.append(s)
        except (OSError, ValueError) as exc:
            log.debug("parked runner %s:%s: %s", entry["address"], entry["port"], exc)
    _wait_closed(stopping, EXIT_WAIT)
    if stopping:
        log.info("stopped %d parked task runner(s)", len(stopping))
    return len(stopping)


def _wait_closed(sockets: list[socket.socket], timeout: float) -> None:
    """Waits until the other end of each socket has closed it (or timeout), then closes them."""
    deadline = time.monotonic() + timeout
    with selectors.DefaultSelector() as sel:
        for s in sockets:
            sel.register(s, selectors.EVENT_READ)
        while sel.get_map() and time.monotonic() < deadline:
            for key, _ in sel.select(deadline - time.monotonic()):
                try:
                    ended = not key.fileobj.recv(64)  # type: ignore[union-attr]
                except OSError:
                    ended = True
                if ended:
                    sel.unregister(key.fileobj)
    for s in sockets:
        s.close()
