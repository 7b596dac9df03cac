"""launcher/ham/warm.py: `ham run`'s end stops the runners parked in its session."""

from __future__ import annotations

import socket
import threading
import time
from pathlib import Path

from ham import contract as c
from ham import warm


def _listener() -> tuple[socket.socket, list[bytes], threading.Thread]:
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    got: list[bytes] = []

    def accept() -> None:
        conn, _ = server.accept()
        with conn:
            got.append(conn.makefile("rb").readline())

    t = threading.Thread(target=accept, daemon=True)
    t.start()
    return server, got, t


def _entry(directory: Path, name: str, port: int, nonce: str) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    # As java.util.Properties.store writes it: a date comment, ':' escaped.
    (directory / f"{name}{c.WARM_SUFFIX}").write_text(
        f"#Fri Nov 27 13\\:00\\:00 UTC 2026\nnode=node1\naddress=127.0.0.1\nport={port}\n"
        f"nonce={nonce}\nkey=k\\:1\njob=/s/jobs/job_1_0001\n")


def test_each_parked_runner_gets_its_stop_with_its_nonce(tmp_path: Path) -> None:
    server, got, t = _listener()
    parked = tmp_path / c.WARM_DIR / c.WARM_PARKED
    _entry(parked, "node1-10", server.getsockname()[1], "n0nce")
    closed = socket.socket()
    closed.bind(("127.0.0.1", 0))  # bound, not listening: that runner is already gone
    _entry(parked, "node2-11", closed.getsockname()[1], "other")
    assert warm.stop_parked(tmp_path) == 1
    t.join(5)
    assert got == [f"{c.WARM_STOP}\tn0nce\n".encode()]
    # Renamed first: a runner parking meanwhile finds no directory and exits.
    assert not parked.exists() and parked.with_name("parked.closed").is_dir()
    assert warm.stop_parked(tmp_path) == 0
    server.close()
    closed.close()


def test_a_session_without_warm_runners_has_nothing_to_stop(tmp_path: Path) -> None:
    assert warm.stop_parked(tmp_path) == 0
    assert warm.parked(tmp_path / "nowhere") == []


def test_the_stop_returns_once_the_runner_has_closed_its_end(tmp_path: Path) -> None:
    """A stopped runner keeps the connection open until its JVM is gone: stop_parked returns
    after that, so nothing of the session runs once `ham run` has returned."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    exited = threading.Event()

    def runner() -> None:
        conn, _ = server.accept()
        conn.makefile("rb").readline()
        time.sleep(0.5)  # the JVM on its way out
        exited.set()
        conn.close()

    t = threading.Thread(target=runner, daemon=True)
    t.start()
    _entry(tmp_path / c.WARM_DIR / c.WARM_PARKED, "node1-10", server.getsockname()[1], "n")
    assert warm.stop_parked(tmp_path) == 1
    assert exited.is_set(), "stop_parked returned while the runner was still running"
    t.join(5)
    server.close()
