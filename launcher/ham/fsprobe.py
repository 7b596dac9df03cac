"""One file-system action on one node, for `ham doctor`'s cross-node checks (ham.fscheck runs
it under srun): `python -m ham.fsprobe ACTION PATH [ARG...]` prints one JSON line. Standard
library only, and nothing cached between actions but what the node's own file-system client
keeps: that cache is what the checks are about."""

from __future__ import annotations

import hashlib
import json
import mmap
import os
import sys
import time
from typing import Any, Callable

ALIGN = 4096  # O_DIRECT wants buffers, offsets and sizes aligned to the device's block


def content(tag: str, size: int) -> bytes:
    """The bytes a check writes for tag: the same on every node, different for every tag."""
    unit = (tag + "\n").encode()
    return (unit * (size // len(unit) + 1))[:size]


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:16]


def write(path: str, tag: str, size: str) -> dict[str, Any]:
    """Write and close, as a map writes its output (no fsync): what another node may then read."""
    with open(path, "wb") as f:
        f.write(content(tag, int(size)))
    return {"closed": time.time()}


def read(path: str) -> dict[str, Any]:
    try:
        with open(path, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        return {"exists": False}
    return {"exists": True, "size": len(data), "sha": digest(data)}


def rename(src: str, dst: str) -> dict[str, Any]:
    os.replace(src, dst)
    return {}


def delete(path: str) -> dict[str, Any]:
    os.unlink(path)
    return {}


def listing(path: str) -> dict[str, Any]:
    return {"names": sorted(os.listdir(path))}


def direct(path: str) -> dict[str, Any]:
    """Write and read back 1 MiB with O_DIRECT, from page-aligned buffers (as lustre:// does)."""
    size = 256 * ALIGN
    data = content("direct", size)
    buf = mmap.mmap(-1, size)  # anonymous maps are page aligned
    buf[:] = data
    try:
        fd = os.open(path, os.O_CREAT | os.O_TRUNC | os.O_RDWR | os.O_DIRECT, 0o600)
    except OSError as exc:
        return {"ok": False, "error": f"open: {exc.strerror}"}
    try:
        os.write(fd, buf)
        back = mmap.mmap(-1, size)
        got = os.preadv(fd, [back], 0)
        ok = got == size and back[:] == data
        return {"ok": ok, "error": "" if ok else f"read back {got} bytes, not what was written"}
    except OSError as exc:
        return {"ok": False, "error": exc.strerror}
    finally:
        os.close(fd)
        os.unlink(path)


def watch(path: str, tag: str, size: str, timeout: str) -> dict[str, Any]:
    """Poll until path holds tag's content; when it did (or that it did not within timeout)."""
    want = digest(content(tag, int(size)))
    deadline = time.time() + float(timeout)
    while time.time() < deadline:
        if read(path).get("sha") == want:
            return {"seen": time.time()}
        time.sleep(0.005)
    return {"seen": None}


ACTIONS: dict[str, Callable[..., dict[str, Any]]] = {
    "write": write, "read": read, "rename": rename, "delete": delete, "list": listing,
    "direct": direct, "watch": watch,
}


def main(argv: list[str]) -> int:
    action, *args = argv
    print(json.dumps(ACTIONS[action](*args)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
