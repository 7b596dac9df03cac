"""The physical limit of the I/O case: the best raw tool on the same files, never beaten.

Each raw tool writes and reads what TestDFSIO does (the same number of files of the same size,
1 MiB blocks, as many at once as there are task slots) on the same file system, with the same
cache conditions: writes count until they are on disk (fdatasync / end_fsync), reads start
from a page cache dropped as long ago as before the job's (chain.cold_cache). The tools:
`dd` buffered, `dd` with O_DIRECT, `fio` buffered and `fio` with O_DIRECT. The limit of an
operation is the fastest of them: a program that beats the best raw tool has been measured
wrong (other bytes, another cache state, another clock), so a ratio above 1.0 is reported
as a measurement bug, loudly, never as a result.

Why TestDFSIO on lustre:// was 2.7x (write) and 2.4x (read) of the old limit: lustre:// writes
and reads a large file with O_DIRECT past its first 16 MiB, while the old limit was `dd`
through the page cache right after a drop; on this virtual machine a page the drop freed is
handed back to the host and costs a host fault when the page cache takes it again, so buffered
I/O after a drop ran at 0.7 GB/s where O_DIRECT ran at 1.3-1.8 GB/s. The same bytes with the
same kind of I/O (the O_DIRECT tools) are the like-for-like baseline.
"""

from __future__ import annotations

import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Sequence

from hambench.chain import cold_cache
from hambench.util import BenchError, log

TOOLS = ("dd", "dd-direct", "fio", "fio-direct")
OPS = ("write", "read")
LIMIT = "limit"  # the variant that holds the best tool's figures
BLOCK = "1M"


@dataclass(frozen=True)
class RawSpec:
    """What the raw tools do: as many files as TestDFSIO, each mb MiB, `parallel` at once."""

    files: int
    mb: int
    parallel: int


def dd_argvs(spec: RawSpec, d: Path, op: str, direct: bool) -> list[list[str]]:
    """One dd per file; writes end with fdatasync, direct ones use O_DIRECT on the file."""
    out = []
    for i in range(spec.files):
        f = d / f"f{i}"
        if op == "write":
            flags = ["oflag=direct"] if direct else []
            out.append(["dd", "if=/dev/zero", f"of={f}", f"bs={BLOCK}", f"count={spec.mb}",
                        "conv=fdatasync", *flags])
        else:
            flags = ["iflag=direct"] if direct else []
            out.append(["dd", f"if={f}", "of=/dev/null", f"bs={BLOCK}", *flags])
    return out


def fio_argv(spec: RawSpec, d: Path, op: str, direct: bool) -> list[str]:
    """One fio with a job per file, `parallel` of them running at once (fio runs its jobs
    together, so files beyond `parallel` go in further fio runs: see fio_batches)."""
    return ["fio", "--name=f", f"--directory={d}", f"--rw={op}", f"--bs={BLOCK}",
            f"--size={spec.mb}M", f"--direct={int(direct)}", "--ioengine=psync",
            "--end_fsync=1" if op == "write" else "--invalidate=1",
            "--group_reporting", "--minimal"]


def fio_batches(spec: RawSpec, d: Path, op: str, direct: bool) -> list[list[str]]:
    """fio runs of at most `parallel` jobs each; each batch's files have their own names
    (b<k>.<job>.0), the same for the write and the read."""
    runs = []
    for k, first in enumerate(range(0, spec.files, spec.parallel)):
        n = min(spec.parallel, spec.files - first)
        argv = fio_argv(spec, d, op, direct)
        argv[1] = f"--name=b{k}"
        runs.append([*argv, f"--numjobs={n}"])
    return runs


def limit_of(rates: Mapping[str, float]) -> tuple[str, float]:
    """(tool, MB/s) of the fastest raw tool."""
    if not rates:
        raise ValueError("no raw tool measured")
    tool = max(rates, key=lambda t: rates[t])
    return tool, rates[tool]


def check_ratio(ratio: float) -> str | None:
    """None for a ratio against the limit that can be true; else the loud line the bench
    prints: a ratio above 1.0 is a measurement bug to find, not a result."""
    if ratio > 1.0:
        return (f"MEASUREMENT BUG: {ratio:.2f}x of the physical limit; nothing beats the best "
                f"raw tool on the same files: compare the bytes, the cache state and the clocks")
    return None


def _batches(argvs: Sequence[list[str]], parallel: int) -> float:
    """Wall time of running argvs, `parallel` at a time (dd: one process per file)."""
    t0 = time.time()
    for i in range(0, len(argvs), parallel):
        procs = [subprocess.Popen(a, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
                 for a in argvs[i:i + parallel]]
        for p in procs:
            _, err = p.communicate()
            if p.returncode != 0:
                raise BenchError(f"{p.args[0]} failed (rc={p.returncode}): "
                                 f"{err.decode(errors='replace').strip()[:300]}")
    return time.time() - t0


def measure(spec: RawSpec, d: Path, settle_s: float, tools: Sequence[str] = TOOLS
            ) -> dict[str, dict[str, float]]:
    """tool -> {write_MBps, read_MBps}: each tool writes its files durably, then reads them
    cold, every timed step from a page cache dropped settle_s seconds before."""
    if any(t.startswith("fio") for t in tools) and not shutil.which("fio"):
        raise BenchError("fio is not installed: bench/run.sh installs it (apt-get install fio)")
    total = spec.files * spec.mb
    out: dict[str, dict[str, float]] = {}
    for tool in tools:
        shutil.rmtree(d, ignore_errors=True)
        d.mkdir(parents=True)
        direct = tool.endswith("-direct")
        rates: dict[str, float] = {}
        for op in OPS:
            if tool.startswith("fio"):
                argvs, par = fio_batches(spec, d, op, direct), 1
            else:
                argvs, par = dd_argvs(spec, d, op, direct), spec.parallel
            cold_cache(settle_s)
            rates[f"{op}_MBps"] = total / max(_batches(argvs, par), 1e-6)
        out[tool] = rates
        log(f"  raw {tool}: write {rates['write_MBps']:.0f} MB/s, read {rates['read_MBps']:.0f}")
    shutil.rmtree(d, ignore_errors=True)
    return out


def limit_metrics(by_tool: Mapping[str, Mapping[str, float]]) -> dict[str, float]:
    """The limit variant's metrics: each operation's fastest tool (its index in TOOLS as
    `<op>_tool`, so that results.json says which tool it was)."""
    m: dict[str, float] = {}
    for op in OPS:
        key = f"{op}_MBps"
        tool, v = limit_of({t: r[key] for t, r in by_tool.items() if key in r})
        m[key] = v
        m[f"{op}_tool"] = float(TOOLS.index(tool))
    return m


def bugs(samples: Sequence[Mapping[str, Any]]) -> list[str]:
    """The loud lines for every TestDFSIO round above the same round's limit."""
    lim = {s["round"]: s["metrics"] for s in samples
           if s["case"] == "dfsio" and s["variant"] == LIMIT and not s.get("error")}
    out = []
    for s in samples:
        if s["case"] != "dfsio" or s["variant"] not in ("ham", "lustre") or s.get("error") \
                or s["round"] not in lim:
            continue
        for op in OPS:
            key = f"{op}_MBps"
            if key in s["metrics"] and lim[s["round"]].get(key):
                bug = check_ratio(s["metrics"][key] / lim[s["round"]][key])
                if bug:
                    out.append(f"!!! round {s['round'] + 1} dfsio/{s['variant']} {op}: {bug}")
    return out
