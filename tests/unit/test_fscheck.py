"""`ham doctor`'s cross-node file-system checks (ham.fscheck) with the probe run in this process:
on one coherent file system every check passes, and a reader whose client keeps what it saw
(a small model of a weakly cached mount) fails the checks that depend on it, each naming the
problem. On the real cluster: tests/integration/test_netfs.py."""

from __future__ import annotations

import threading
from typing import Any, Callable

import pytest

from ham import fsprobe
from ham.fscheck import CrossNode


class LocalProbe:
    """Every node is this process: one file system, no cache of its own."""

    def run(self, node: str, args: list[str]) -> dict[str, Any]:
        return fsprobe.ACTIONS[args[0]](*args[1:])

    def start(self, node: str, args: list[str]) -> Callable[[], dict[str, Any]]:
        answer: dict[str, Any] = {}
        t = threading.Thread(target=lambda: answer.update(self.run(node, args)))
        t.start()
        return lambda: (t.join(), answer)[1]


class CachingReader(LocalProbe):
    """The reader node answers reads and listings from what it saw before, like a client that
    keeps data, attributes and names across opens (GlusterFS's default profile)."""

    def __init__(self) -> None:
        self.seen: dict[tuple[str, str], dict[str, Any]] = {}

    def run(self, node: str, args: list[str]) -> dict[str, Any]:
        if node == "reader" and args[0] in ("read", "list"):
            key = (args[0], args[1])
            if key not in self.seen:
                self.seen[key] = super().run(node, args)
            return self.seen[key]
        return super().run(node, args)


def results(probe, tmp_path) -> dict[str, tuple[bool, str]]:
    out = {}
    with CrossNode(tmp_path, "writer", "reader", probe) as cross:
        for name, fn in cross.checks():
            try:
                out[name] = (True, fn())
            except Exception as exc:  # noqa: BLE001 - the checks raise HamError with the reason
                out[name] = (False, str(exc))
        scratch = cross.dir
    assert not scratch.exists()  # the scratch directory is removed
    return out


def test_coherent_file_system_passes_every_check(tmp_path):
    got = results(LocalProbe(), tmp_path)
    assert all(ok for ok, _ in got.values()), got
    assert got["fs: read after close"][1] == "reader read what writer wrote and closed (3 of 3)"
    assert got["fs: visible after"][1].startswith("reader saw a 4 MiB file ")


@pytest.mark.parametrize("check, words", [
    ("fs: read after close", ["read old bytes", "(3 of 3 tries)", "close-to-open"]),
    ("fs: rename", ["read the replaced file's old bytes", "lookupcache=none"]),
    ("fs: delete", ["still found files that writer had deleted", "(3 of 3)"]),
    ("fs: listing", ["listing missed files", "(3 of 3)"]),
])
def test_cached_reader_fails_with_the_problem_named(tmp_path, check, words):
    ok, detail = results(CachingReader(), tmp_path)[check]
    assert not ok
    assert all(w in detail for w in words), detail
    assert "docs/admin.md" in detail and "\n" not in detail


def test_direct_io_refused_is_not_a_failure(tmp_path, monkeypatch):
    """A file system without O_DIRECT (tmpfs) makes lustre:// use the page cache: said, not
    failed."""
    monkeypatch.setattr(fsprobe, "direct", lambda path: {"ok": False, "error": "open: Invalid argument"})
    monkeypatch.setitem(fsprobe.ACTIONS, "direct", fsprobe.direct)
    ok, detail = results(LocalProbe(), tmp_path)["fs: O_DIRECT"]
    assert ok and "buffered I/O" in detail


def test_probe_prints_one_json_line(capsys, tmp_path):
    f = str(tmp_path / "f")
    assert fsprobe.main(["write", f, "t", "10"]) == 0
    fsprobe.main(["read", f])
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2 and '"size": 10' in lines[1]
    assert (tmp_path / "f").read_bytes() == b"t\nt\nt\nt\nt\n"
