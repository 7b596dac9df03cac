"""`ham doctor`'s cross-node checks of the shared root: what HAM relies on when one node writes
and another reads (docs/admin.md, "What HAM needs from the shared file system"). A writer node
and a reader node each act through their own file-system client, one srun step per action
(ham.fsprobe), so whatever a client caches between two opens is what the reader sees. Each check
repeats its case, with the reader having looked at the file just before it changes: the case of
a reducer reading a map's index, or the client polling the status record."""

from __future__ import annotations

import json
import shutil
import sys
import time
import uuid
from pathlib import Path
from typing import Any, Callable, Protocol

from ham import proc
from ham.errors import HamError
from ham.fsprobe import content, digest

ROUNDS = 3
SIZE = 1 << 20  # a small map output
VISIBLE_WITHIN = 30.0  # seconds: past this a task would have failed long ago
WATCHER_START = 1.0  # seconds: more than a job step takes to start
SEE = "see docs/admin.md, 'What HAM needs from the shared file system'"
FIX_DATA = ("mount it so that an open sees the last close of any node (close-to-open): "
            "NFS without nocto; GlusterFS with --fopen-keep-cache=false and performance."
            f"quick-read, io-cache, open-behind, flush-behind off; {SEE}")
FIX_NAMES = ("mount it without a name or attribute cache (NFS: lookupcache=none,actimeo=0; "
             f"GlusterFS: --entry-timeout=0 --attribute-timeout=0 --negative-timeout=0); {SEE}")


class Probe(Protocol):
    """Runs one ham.fsprobe action on a node and returns its JSON answer."""

    def run(self, node: str, args: list[str]) -> dict[str, Any]: ...

    def start(self, node: str, args: list[str]) -> Callable[[], dict[str, Any]]:
        """Start an action; the returned function waits for its answer."""
        ...


class SrunProbe:
    """Each action one job step on its node (`srun -w NODE`), inside the current allocation."""

    def _argv(self, node: str, args: list[str]) -> list[str]:
        return ["srun", "-N1", "-n1", "-w", node, "--overlap", "--quiet",
                sys.executable, "-m", "ham.fsprobe", *args]

    def run(self, node: str, args: list[str]) -> dict[str, Any]:
        out = proc.run(self._argv(node, args), timeout=VISIBLE_WITHIN + 60,
                       hint="is Slurm installed? (`ham doctor` checks)").stdout
        return _answer(out)

    def start(self, node: str, args: list[str]) -> Callable[[], dict[str, Any]]:
        child = proc.spawn(self._argv(node, args), stdout=proc.PIPE, stderr=proc.PIPE, text=True)

        def wait() -> dict[str, Any]:
            try:
                out, err = child.communicate(timeout=VISIBLE_WITHIN + 60)
            except proc.TimeoutExpired:
                child.kill()
                child.wait()
                raise HamError(f"the probe on {node} did not answer within "
                               f"{VISIBLE_WITHIN + 60:.0f} s") from None
            if child.returncode != 0:
                said = err.strip().splitlines()
                raise HamError(f"the probe on {node} failed: {said[-1] if said else child.returncode}")
            return _answer(out)
        return wait


def _answer(out: str) -> dict[str, Any]:
    lines = out.strip().splitlines()
    try:
        return json.loads(lines[-1])
    except (IndexError, json.JSONDecodeError):
        raise HamError(f"the file-system probe printed no answer: {out[-200:]!r}") from None


class CrossNode:
    """The checks, for one writer and one reader, in a scratch directory under root."""

    def __init__(self, root: Path, writer: str, reader: str, probe: Probe) -> None:
        self.writer, self.reader, self.probe = writer, reader, probe
        self.dir = root / f".ham-doctor-{uuid.uuid4().hex[:8]}"

    def __enter__(self) -> "CrossNode":
        self.dir.mkdir()
        return self

    def __exit__(self, *exc: object) -> None:
        shutil.rmtree(self.dir, ignore_errors=True)

    def _w(self, *args: str) -> dict[str, Any]:
        return self.probe.run(self.writer, list(args))

    def _r(self, *args: str) -> dict[str, Any]:
        return self.probe.run(self.reader, list(args))

    def _path(self, name: str) -> str:
        return str(self.dir / name)

    def checks(self) -> list[tuple[str, Callable[[], str]]]:
        return [("fs: read after close", self.read_after_close),
                ("fs: rename", self.rename),
                ("fs: delete", self.delete),
                ("fs: listing", self.listing),
                ("fs: O_DIRECT", self.direct),
                ("fs: visible after", self.visible_after)]

    def read_after_close(self) -> str:
        f = self._path("data")
        self._w("write", f, "v0", str(SIZE))
        stale = 0
        for k in range(1, ROUNDS + 1):
            self._r("read", f)  # the reader has the old version open-and-closed
            self._w("write", f, f"v{k}", str(SIZE))
            if self._r("read", f).get("sha") != digest(content(f"v{k}", SIZE)):
                stale += 1
        if stale:
            raise HamError(f"{self.reader} read old bytes of a file that {self.writer} had "
                           f"rewritten and closed ({stale} of {ROUNDS} tries): reducers could "
                           f"read stale map output; {FIX_DATA}")
        return f"{self.reader} read what {self.writer} wrote and closed ({ROUNDS} of {ROUNDS})"

    def rename(self) -> str:
        dst, bad = self._path("record"), []
        self._w("write", dst, "r0", "4096")
        for k in range(1, ROUNDS + 1):
            tmp = self._path(f"record.tmp{k}")
            self._r("read", dst)
            self._w("write", tmp, f"r{k}", "4096")
            self._r("read", tmp)  # the reader knows the old name too
            self._w("rename", tmp, dst)
            if self._r("read", dst).get("sha") != digest(content(f"r{k}", 4096)):
                bad.append("read the replaced file's old bytes")
            if self._r("read", tmp).get("exists"):
                bad.append("still found the old name")
        if bad:
            raise HamError(f"after a rename on {self.writer}, {self.reader} {bad[0]} "
                           f"({len(bad)} of {2 * ROUNDS}): output commits and status records "
                           f"could be misread; {FIX_NAMES}")
        return f"{self.reader} saw {self.writer}'s renames over a file at once ({ROUNDS} of {ROUNDS})"

    def delete(self) -> str:
        seen = 0
        for k in range(ROUNDS):
            f = self._path(f"gone{k}")
            self._w("write", f, "d", "4096")
            self._r("read", f)
            self._w("delete", f)
            seen += bool(self._r("read", f).get("exists"))
        if seen:
            raise HamError(f"{self.reader} still found files that {self.writer} had deleted "
                           f"({seen} of {ROUNDS}); {FIX_NAMES}")
        return f"{self.reader} saw {self.writer}'s deletes at once ({ROUNDS} of {ROUNDS})"

    def listing(self) -> str:
        d, missed = self._path("dir"), 0
        self._w("write", self._path("dir.keep"), "x", "1")  # the writer's client knows the dir
        Path(d).mkdir()
        for k in range(ROUNDS):
            self._r("list", d)
            self._w("write", f"{d}/new{k}", "n", "1")
            missed += f"new{k}" not in self._r("list", d)["names"]
        if missed:
            raise HamError(f"{self.reader}'s listing missed files that {self.writer} had just "
                           f"created ({missed} of {ROUNDS}): the output committer lists task "
                           f"directories; {FIX_NAMES}")
        return f"{self.reader} listed {self.writer}'s new files at once ({ROUNDS} of {ROUNDS})"

    def direct(self) -> str:
        got = self._r("direct", self._path("direct"))
        if got["ok"]:
            return f"aligned O_DIRECT writes and reads work on {self.reader}"
        if got["error"].startswith("open:"):
            # lustre:// then goes through the page cache (one INFO line per runner): slower,
            # not wrong.
            return (f"refused on {self.reader} ({got['error']}): lustre:// uses buffered I/O "
                    f"there")
        raise HamError(f"O_DIRECT on {self.reader} opens but {got['error']}: lustre:// would "
                       f"read back wrong data; set ham.lustre.write.direct.after=-1 and "
                       f"ham.lustre.read.direct.after=-1, or use filesystem = 'file'")

    def visible_after(self) -> str:
        f, size = self._path("watched"), 4 << 20
        seen = self.probe.start(self.reader, ["watch", f, "w", str(size), str(VISIBLE_WITHIN)])
        time.sleep(WATCHER_START)  # the watcher's step polls before the write begins
        try:
            closed = self._w("write", f, "w", str(size))["closed"]
        finally:
            at = seen()["seen"]  # the watcher ends on its own (found, or its time is up)
        if at is None:
            raise HamError(f"{self.reader} did not see a 4 MiB file {self.writer} wrote within "
                           f"{VISIBLE_WITHIN:.0f} s; {FIX_DATA}")
        # Two nodes' clocks: as good as their synchronisation (NTP: a few ms).
        return (f"{self.reader} saw a 4 MiB file {max(0.0, at - closed) * 1000:.0f} ms after "
                f"{self.writer} closed it")
