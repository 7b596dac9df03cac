"""The driver's task channel refuses a runner without the job's token, and the token is never
on a command line."""

from __future__ import annotations

import base64
import os
import socket
import subprocess
import time
from pathlib import Path

from tests.integration.conftest import wait_for
from tests.integration.test_runtime_faults import SLOW, ham_popen, runner_pids, setup_data, streaming_cmd


def cmdline(pid: int) -> list[str]:
    return Path(f"/proc/{pid}/cmdline").read_bytes().decode().split("\0")[:-1]


def environ(pid: int) -> dict[str, str]:
    raw = Path(f"/proc/{pid}/environ").read_bytes().decode(errors="replace")
    return dict(kv.split("=", 1) for kv in raw.split("\0") if "=" in kv)


def password_span(raw: bytes) -> slice:
    """Where the password is in a token (Writable: vint len, identifier, vint len, password)."""
    id_len = raw[0]
    assert id_len < 128 and raw[1 + id_len] < 128, "single-byte vint lengths expected"
    return slice(2 + id_len, 2 + id_len + raw[1 + id_len])


def decode(encoded: str) -> bytearray:
    return bytearray(base64.urlsafe_b64decode(encoded + "=" * (-len(encoded) % 4)))


def corrupt_password(encoded: str) -> str:
    """Flip one byte of the token's password."""
    raw = decode(encoded)
    raw[password_span(raw).start] ^= 0xFF
    return base64.urlsafe_b64encode(bytes(raw)).decode().rstrip("=")


def password_of(encoded: str) -> bytes:
    raw = decode(encoded)
    return bytes(raw[password_span(raw)])


def private(path: Path, top: Path) -> bool:
    """Nobody but the owner can reach path: it or a directory above it (up to top) is closed."""
    for p in [path, *path.parents]:
        mode = p.stat().st_mode
        if (p.is_dir() and mode & 0o077 == 0) or (p == path and mode & 0o077 == 0):
            return True
        if p == top:
            return False
    return False


def files_under(top: Path, since: float = 0.0):
    """Every path under top (of /tmp, only what changed since `since`: the job cannot have
    written the rest), skipping directories that vanish while they are walked (other
    programs' temporary directories)."""
    for parent, dirs, files in os.walk(top, onerror=lambda e: None):
        if Path(parent) == top and since:
            dirs[:] = [n for n in dirs if _mtime(top / n) >= since]
        for name in dirs + files:
            yield Path(parent) / name


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


def assert_token_files_private(token: str, shared: Path, since: float) -> None:
    """Any file holding the token (encoded, or its password in binary credentials) is private:
    under the job's 0700 directory or 0600 itself. Scans the shared root and what the job
    may have written to /tmp (what changed since it started)."""
    needles = (token.encode(), password_of(token))
    for top, changed in ((shared, 0.0), (Path("/tmp"), since)):
        for path in files_under(top, changed):
            try:
                if path.is_file() and not path.is_symlink() and path.stat().st_size < 1 << 20 and \
                        any(n in path.read_bytes() for n in needles):
                    assert private(path, top), f"{path} holds the job token and is readable by others"
            except (FileNotFoundError, PermissionError):
                continue


def test_runner_with_wrong_token_is_refused(cluster, tmp_path):
    d = setup_data(tmp_path, SLOW)
    (d / "shared").mkdir()
    started = time.time() - 2
    job = ham_popen(d, cluster, streaming_cmd(d, "out"))
    try:
        pid = wait_for(lambda: runner_pids(d), 60, "task runners")[0]
        argv, env = cmdline(pid), environ(pid)
        token = env["HAM_JOB_TOKEN"]
        # The token is in the runners' private environment, never on any command line.
        for proc in Path("/proc").glob("[0-9]*"):
            try:
                assert token not in proc.joinpath("cmdline").read_bytes().decode(errors="replace")
            except (FileNotFoundError, ProcessLookupError, PermissionError):
                pass
        main = argv.index("io.github.ham.mapreduce.runner.TaskRunner")
        intruder_env = {"PATH": os.environ["PATH"], "HAM_JOB_RUNTIME_DIR": str(tmp_path / "intruder"),
                        "HAM_JOB_TOKEN": corrupt_password(token)}
        (tmp_path / "intruder").mkdir()
        r = subprocess.run(argv[:main + 4], env=intruder_env, capture_output=True, text=True,
                           timeout=120)
        assert r.returncode != 0
        assert any(s in r.stderr for s in ("SaslException", "DIGEST-MD5", "token", "Token")), r.stderr[-2000:]
        assert_token_files_private(token, d / "shared", started)
    finally:
        out, err = job.communicate(timeout=600)
    assert job.returncode == 0, err[-3000:]
    # Nothing ran on the intruder's host (this machine, outside the node namespaces).
    logs = list((d / "shared").glob("*/*/jobs/*/logs/attempt_*"))
    assert logs and all(p.name.split(".")[1].startswith("node") for p in logs)


def refused(host: str, port: int, first_bytes: bytes) -> bytes:
    """Send first_bytes on a fresh connection to the driver and return all it answers before it
    closes the connection (a socket.timeout means the driver kept the connection open)."""
    with socket.create_connection((host, port), timeout=10) as s:
        s.sendall(first_bytes)
        answer = b""
        while chunk := s.recv(4096):
            answer += chunk
        return answer


def test_raw_connections_without_the_token_are_refused(cluster, tmp_path):
    d = setup_data(tmp_path, SLOW)
    (d / "shared").mkdir()
    job = ham_popen(d, cluster, streaming_cmd(d, "out"))
    try:
        argv = cmdline(wait_for(lambda: runner_pids(d), 60, "task runners")[0])
        main = argv.index("io.github.ham.mapreduce.runner.TaskRunner")
        host, port = argv[main + 1], int(argv[main + 2])
        # Hadoop IPC header asking for no authentication at all (auth protocol NONE): refused at
        # once, before any call can be made.
        answer = refused(host, port, b"hrpc\x09\x00\x00")
        assert b"not enabled" in answer and b"TOKEN" in answer, answer
        # Something that is not Hadoop IPC at all: the connection is closed.
        refused(host, port, b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
    finally:
        out, err = job.communicate(timeout=600)
    assert job.returncode == 0, err[-3000:]
    assert (d / "out" / "_SUCCESS").exists()
