"""The driver's task channel refuses a runner without the job's token, and the token is never
on a command line."""

from __future__ import annotations

import base64
import json
import os
import re
import socket
import subprocess
import time
from pathlib import Path

from ham import jobconf
from tests.integration.conftest import wait_for
from tests.integration.test_runtime_faults import MAPPER, SLOW, ham_popen, runner_pids, setup_data, streaming_cmd


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


def secret_holders(needles: dict[str, bytes], tops: list[tuple[Path, float]]) -> dict[str, set[Path]]:
    """Which files under each (top, since) hold each needle, each such file checked private:
    under a directory closed to group and others, or closed itself (mode & 0o077 == 0). A
    top with since > 0 (a /tmp) is scanned only where something changed since the job started."""
    held: dict[str, set[Path]] = {name: set() for name in needles}
    for top, changed in tops:
        for path in files_under(top, changed):
            try:
                if not path.is_file() or path.is_symlink() or path.stat().st_size >= 1 << 20:
                    continue
                data = path.read_bytes()
            except (FileNotFoundError, PermissionError):
                continue
            for name, needle in needles.items():
                if needle in data:
                    held[name].add(path)
                    assert private(path, top), f"{path} holds the {name} and group or others can read it"
    return held


def tmp_dirs(pids: list[int]) -> list[Path]:
    """/tmp of this machine and as each process sees it (a node's mount namespace may give it
    its own), once each."""
    seen, dirs = set(), []
    for tmp in [Path("/tmp"), *(Path(f"/proc/{pid}/root/tmp") for pid in pids)]:
        key = (tmp.stat().st_dev, tmp.stat().st_ino)
        if key not in seen:
            seen.add(key)
            dirs.append(tmp)
    return dirs


def command_lines() -> dict[int, str]:
    """Every process's command line, as ps shows it (the nodes' processes are in this machine's
    process table: their namespaces are network, UTS and mount ones)."""
    lines = {}
    for proc in Path("/proc").glob("[0-9]*"):
        try:
            lines[int(proc.name)] = proc.joinpath("cmdline").read_bytes().decode(errors="replace")
        except (FileNotFoundError, ProcessLookupError, PermissionError):
            pass
    return lines


# Calls the driver's task channel as a task runner does (TaskRunner.run: the token from
# HAM_JOB_TOKEN, the job's id as the user), with a call that changes nothing (the protocol's
# version). Prints OK and the version, or REFUSED and the class of the error the driver sent back
# (a RemoteException: only an answer from the server makes one), or FAILED and what happened.
PROBE = """
import java.net.InetSocketAddress;
import java.security.PrivilegedExceptionAction;
import org.apache.hadoop.ipc.RPC;
import org.apache.hadoop.ipc.RemoteException;
import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapreduce.security.token.JobTokenIdentifier;
import org.apache.hadoop.net.NetUtils;
import org.apache.hadoop.security.SecurityUtil;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.security.token.Token;
import io.github.ham.mapreduce.common.protocol.RunnerUmbilical;

public class Probe {
  public static void main(String[] a) throws Exception {
    JobConf conf = new JobConf();
    conf.setInt("ipc.client.connect.max.retries", 1);
    UserGroupInformation.setConfiguration(conf);
    Token<JobTokenIdentifier> token = new Token<>();
    token.decodeFromUrlString(System.getenv("HAM_JOB_TOKEN"));
    InetSocketAddress address = NetUtils.createSocketAddrForHost(a[0], Integer.parseInt(a[1]));
    SecurityUtil.setTokenService(token, address);
    UserGroupInformation owner = UserGroupInformation.createRemoteUser(a[2]);
    owner.addToken(token);
    try {
      long version = owner.doAs((PrivilegedExceptionAction<Long>) () -> {
        RunnerUmbilical u = RPC.getProxy(RunnerUmbilical.class, RunnerUmbilical.versionID,
            address, conf);
        try {
          return u.getProtocolVersion(RunnerUmbilical.class.getName(), RunnerUmbilical.versionID);
        } finally {
          RPC.stopProxy(u);
        }
      });
      System.out.println("OK " + version);
    } catch (Exception e) {
      for (Throwable t = e; t != null; t = t.getCause()) {
        if (t instanceof RemoteException) {
          System.out.println("REFUSED " + ((RemoteException) t).getClassName() + ": " + t.getMessage());
          return;
        }
      }
      System.out.println("FAILED " + e);
    }
  }
}
"""


def probe(argv: list[str], token: str, tmp_path: Path) -> str:
    """Run PROBE with a runner's java and class path (argv) against its driver, with token in
    HAM_JOB_TOKEN, where a runner has it: its one line of output."""
    main = argv.index("io.github.ham.mapreduce.runner.TaskRunner")
    host, port, job = argv[main + 1:main + 4]
    source = tmp_path / "Probe.java"
    source.write_text(PROBE)
    r = subprocess.run([argv[0], "-cp", argv[argv.index("-cp") + 1], str(source), host, port, job], capture_output=True,
                       text=True, timeout=120, env={"PATH": os.environ["PATH"], "HAM_JOB_TOKEN": token})
    lines = [line for line in r.stdout.splitlines() if line.split(" ")[0] in ("OK", "REFUSED", "FAILED")]
    assert len(lines) == 1, r.stdout[-2000:] + r.stderr[-2000:]
    return lines[0]


def auth_lines(shared: Path, source: str) -> dict[str, int]:
    """How many connections from address source the driver's log says it authenticated
    ("successful") and refused ("failed") (Hadoop's IPC server logs both, as SecurityLogger)."""
    logs = list(shared.rglob("driver.log"))
    assert len(logs) == 1, logs
    text = logs[0].read_text()
    return {"successful": len(re.findall(rf"Auth successful for .* from {re.escape(source)}:", text)),
            "failed": len(re.findall(rf"Auth failed for {re.escape(source)}:", text))}


def test_runner_with_wrong_token_is_refused(cluster, tmp_path):
    """The driver answers a call made with the job's token as a runner has it, refuses the same
    call with a wrong one (its answer and its log say so) and a task runner with it; while the
    job runs, neither the token nor a secret of the job's credentials is on any command line or
    in a file group or others can read (shared root, /tmp here and in the nodes)."""
    # The maps wait for the test to say go: the driver is there for everything below.
    go = tmp_path / "go"
    d = setup_data(tmp_path, MAPPER.replace(
        "import sys\n", f"import os, sys, time\nwhile not os.path.exists({str(go)!r}): time.sleep(0.2)\n", 1))
    (d / "shared").mkdir()
    secret = os.urandom(12).hex()
    # A secret added to the job's credentials (Hadoop's JobSubmitter reads this file).
    (d / "secrets.json").write_text(json.dumps({"hamtest.secret": secret}))
    (d / "secrets.json").chmod(0o600)
    started = time.time() - 2
    job = ham_popen(d, cluster, streaming_cmd(d, "out", "-D",
                                              f"mapreduce.job.credentials.json={d / 'secrets.json'}"))
    try:
        pids = wait_for(lambda: runner_pids(d), 60, "task runners")
        pid = pids[0]
        argv, env = cmdline(pid), environ(pid)
        token = env["HAM_JOB_TOKEN"]
        # Neither is on any command line: the driver's (the job's client JVM) and every
        # runner's (on every node) among them.
        lines = command_lines()
        driver = [p for p, line in lines.items() if "java" in line and "-input" in line
                  and str(d / "in") in line and "TaskRunner" not in line]
        assert driver and set(pids) <= set(lines), (driver, pids)
        assert not [p for p, line in lines.items() if token in line or secret in line]
        needles = {"job token": token.encode(), "token password": password_of(token),
                   "secret": secret.encode()}
        # (HAM keeps neither on disk today: the token is in the runners' environment, the
        # credentials travel sealed with it, CredentialsSeal; a file that holds one must be private.)
        secret_holders(needles, [(d / "shared", 0.0)] + [(t, started) for t in tmp_dirs(pids)])
        wrong = corrupt_password(token)
        main = argv.index("io.github.ham.mapreduce.runner.TaskRunner")
        me = jobconf.local_address_towards(argv[main + 1])  # this machine, as the driver sees it
        assert auth_lines(d / "shared", me) == {"successful": 0, "failed": 0}
        # Positive control: the runner's own token, where a runner takes it, makes a call, and
        # the driver logs that it let this machine in.
        assert probe(argv, token, tmp_path) == "OK 1"
        assert auth_lines(d / "shared", me) == {"successful": 1, "failed": 0}
        # The same with one byte of its password changed: the driver refuses it at
        # authentication (its answer is the error, and its log says so), never runs the call.
        answer = probe(argv, wrong, tmp_path)
        assert answer.startswith("REFUSED javax.security.sasl.SaslException: DIGEST-MD5"), answer
        assert auth_lines(d / "shared", me) == {"successful": 1, "failed": 1}
        # A whole task runner with the wrong token, as Slurm starts one: it exits, refused.
        intruder_env = {"PATH": os.environ["PATH"], "HAM_JOB_RUNTIME_DIR": str(tmp_path / "intruder"),
                        "HAM_JOB_TOKEN": wrong}
        (tmp_path / "intruder").mkdir()
        r = subprocess.run(argv[:main + 4], env=intruder_env, capture_output=True, text=True,
                           timeout=120)
        assert r.returncode != 0
        assert "SaslException" in r.stderr and "DIGEST-MD5" in r.stderr, r.stderr[-2000:]
        after = auth_lines(d / "shared", me)  # (its IPC client tries again: several refusals)
        assert after["successful"] == 1 and after["failed"] > 1, after
    finally:
        go.touch()
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
