"""How HAM talks to Slurm: its commands (sbatch, salloc, squeue, sacct, scontrol, scancel, sinfo).

There is one way, on purpose. The other candidate, pyslurm, must match Slurm's major.minor
release and PyPI has no build for Slurm 22.05 (Debian 12's), while the commands exist wherever
Slurm does. Output is parsed from --parsable/-P formats with named fields; on a mismatch the
error shows the raw output."""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field

from ham import proc
from ham.errors import CommandError, EnvironmentProblem, SlurmError

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class JobRequest:
    """What to ask Slurm for; empty fields are left to Slurm's (or the site's) defaults."""

    nodes: str = ""
    ntasks_per_node: int | None = None
    cpus_per_task: int | None = None
    time: str = ""
    partition: str = ""
    account: str = ""
    qos: str = ""
    mem: str = ""
    constraint: str = ""
    job_name: str = ""
    output: str = ""
    error: str = ""
    mail_type: str = ""
    mail_user: str = ""
    array: str = ""  # sbatch only
    extra: tuple[str, ...] = field(default_factory=tuple)  # passed through verbatim

    def starts_later(self) -> bool:
        """Whether the job waits for another job or a time (--dependency, --begin in the
        pass-through options): its input may be written before it starts."""
        return any(a.startswith(("--dependency", "--begin", "-d", "-b")) for a in self.extra)

    def options(self) -> list[str]:
        """As sbatch/salloc long options (`--nodes=4`), in a stable order."""
        opts = []
        for name, value in (
            ("nodes", self.nodes), ("ntasks-per-node", self.ntasks_per_node),
            ("cpus-per-task", self.cpus_per_task), ("time", self.time),
            ("partition", self.partition), ("account", self.account), ("qos", self.qos),
            ("mem", self.mem), ("constraint", self.constraint), ("job-name", self.job_name),
            ("output", self.output), ("error", self.error), ("mail-type", self.mail_type),
            ("mail-user", self.mail_user), ("array", self.array),
        ):
            if value not in ("", None):
                opts.append(f"--{name}={value}")
        return opts + list(self.extra)


_TIME = re.compile(r"(?:(\d+)-)?(\d+)(?::(\d+))?(?::(\d+))?")


def time_limit_seconds(time: str) -> int | None:
    """A time limit in Slurm's syntax (minutes, minutes:seconds, hours:minutes:seconds,
    days-hours[:minutes[:seconds]]) in seconds; None for none given, UNLIMITED or INFINITE.
    ValueError for anything else, and for a field out of its clock's range (Slurm reads
    1:99:00 as 2:39:00; here it is taken for the typo it likely is)."""
    if not time or time.upper() in ("UNLIMITED", "INFINITE"):
        return None
    m = _TIME.fullmatch(time)
    if not m:
        raise ValueError(f"{time!r} is not a Slurm time such as 30, 1:00:00 or 1-0")
    days, *clock = m.groups()
    parts = [int(p) for p in clock if p is not None]
    if days is not None:  # days-hours[:minutes[:seconds]]
        hours, minutes, seconds = (parts + [0, 0])[:3]
    elif len(parts) == 3:  # hours:minutes:seconds
        hours, minutes, seconds = parts
    else:  # minutes[:seconds]: the minutes are the leading field, unbounded
        hours, minutes, seconds = 0, *(parts + [0])[:2]
    if days is not None and hours > 23:
        raise ValueError(f"{time!r}: hours after a day count go up to 23")
    if seconds > 59 or (minutes > 59 and (days is not None or len(parts) == 3)):
        raise ValueError(f"{time!r}: minutes and seconds go up to 59")
    return ((int(days or 0) * 24 + hours) * 60 + minutes) * 60 + seconds


@dataclass(frozen=True)
class JobInfo:
    job_id: str
    state: str  # Slurm's state name: PENDING, RUNNING, COMPLETED, FAILED, CANCELLED, TIMEOUT...
    exit_code: int | None = None  # the batch script's exit code once the job is over
    nodes: str = ""
    elapsed: str = ""
    name: str = ""

    @property
    def finished(self) -> bool:
        return self.state not in ("PENDING", "RUNNING", "CONFIGURING", "COMPLETING", "SUSPENDED",
                                  "REQUEUED", "RESIZING", "")


HINT = "is Slurm installed and SLURM_CONF set? (`ham doctor` checks)"
# What Slurm's commands say when they cannot reach the controller or read slurm.conf: the hint
# is for those, not for a request Slurm understood and refused.
UNREACHABLE = ("contact slurm controller", "slurm.conf", "configuration source",
               "timed out", "munge")


def _run(argv: list[str], **kw) -> str:
    return _completed(argv, **kw).stdout


def _completed(argv: list[str], **kw) -> proc.CompletedProcess[str]:
    try:
        return proc.run(argv, hint=HINT, **kw)
    except CommandError as exc:
        unreachable = any(s in (exc.stderr + exc.stdout).lower() for s in UNREACHABLE)
        raise SlurmError(str(exc) if unreachable else exc.detail) from None
    except EnvironmentProblem as exc:
        raise SlurmError(str(exc)) from None


def _fields(line: str, names: list[str], raw: str) -> dict[str, str]:
    values = line.split("|")
    if len(values) < len(names):
        raise SlurmError(f"cannot parse Slurm output (expected {'|'.join(names)}): {raw!r}")
    return dict(zip(names, values))


class Slurm:
    """The Slurm commands HAM uses, parsed from their --parsable/-P output."""

    def ping(self) -> str:
        out = _run(["scontrol", "ping"], timeout=20).strip()
        if "UP" not in out:
            raise SlurmError(f"the Slurm controller does not answer: {out}")
        return out.splitlines()[0]

    def submit(self, script: str) -> str:
        out = _run(["sbatch", "--parsable"], input=script, timeout=60).strip()
        job_id = out.split(";")[0]  # --parsable prints "id" or "id;cluster"
        if not job_id.isdigit():
            raise SlurmError(f"sbatch printed no job id: {out!r}")
        return job_id

    def allocate_argv(self, request: JobRequest, command: list[str]) -> list[str]:
        return ["salloc", *request.options(), *command]

    def job(self, job_id: str) -> JobInfo | None:
        # An array task is <array id>_<index> to squeue's %i and sacct's JobID; its own id
        # (SLURM_JOB_ID in the task) is %A and JobIDRaw: either names it.
        names = ["JobIDRaw", "JobID", "State", "NodeList", "Name", "TimeUsed"]
        out = _run(["squeue", "-h", "-j", job_id, "-o", "%A|%i|%T|%N|%j|%M"], check=False,
                   timeout=30)
        for line in out.splitlines():
            f = _fields(line, names, out)
            if job_id in (f["JobID"], f["JobIDRaw"]):
                return JobInfo(job_id, f["State"], None, f["NodeList"], f["TimeUsed"], f["Name"])
        return self._accounted(job_id)

    def _accounted(self, job_id: str) -> JobInfo | None:
        # Not `sacct --json`: Slurm 22.05 reports exit code 0 there for a job that exited 3.
        names = ["JobIDRaw", "JobID", "State", "ExitCode", "NodeList", "Elapsed", "JobName"]
        out = _run(["sacct", "-X", "-P", "-n", "-j", job_id, "-o", ",".join(names)],
                   check=False, timeout=30)
        found = None
        for line in out.splitlines():  # the last row is the newest job with this id
            f = _fields(line, names, out)
            if job_id in (f["JobID"], f["JobIDRaw"]):
                code = int(f["ExitCode"].split(":")[0]) if f["ExitCode"] else None
                state = f["State"].split()[0]  # "CANCELLED by 0" -> "CANCELLED"
                found = JobInfo(job_id, state, code, f["NodeList"], f["Elapsed"], f["JobName"])
        return found

    def cancel(self, job_id: str, signal: str = "") -> None:
        done = _completed(["scancel", "-v", *([f"--signal={signal}"] if signal else []),
                           job_id], timeout=30)
        # scancel exits 0 for a job id Slurm does not know, saying so (with -v) on stderr only.
        if "error" in done.stderr.lower():
            said = done.stderr.strip().splitlines()[-1].removeprefix("scancel: ")
            if "already completing or completed" in said:
                log.warning("job %s had already ended: nothing to cancel", job_id)
                return
            raise SlurmError(f"scancel {job_id}: {said}")

    def hostnames(self, nodelist: str) -> list[str]:
        return _run(["scontrol", "show", "hostnames", nodelist], timeout=30).split()

    def _nodes(self, names: list[str], **kw) -> tuple[dict[str, dict[str, str]], str]:
        """`scontrol show node -o` of names: each node's KEY=VALUE fields, and the raw output."""
        out = _run(["scontrol", "show", "node", "-o", ",".join(names)], timeout=30, **kw)
        nodes = {}
        for line in out.splitlines():
            kv = dict(tok.split("=", 1) for tok in line.split() if "=" in tok)
            if "NodeName" in kv:
                nodes[kv["NodeName"]] = kv
        return nodes, out

    def node_addresses(self, nodelist: str) -> dict[str, str]:
        names = self.hostnames(nodelist)
        nodes, out = self._nodes(names)
        missing = [n for n in names if n not in nodes]
        if missing:
            raise SlurmError(f"scontrol does not know node {missing[0]}: {out[:200]!r}")
        return {n: nodes[n].get("NodeAddr", n) for n in names}

    def node_cpus(self, node: str) -> int | None:
        """The node's CPUs as Slurm counts them (CPUTot), or None if scontrol does not say."""
        cpus = self._nodes([node], check=False)[0].get(node, {}).get("CPUTot", "")
        return int(cpus) if cpus.isdigit() else None

    def partitions(self) -> list[str]:
        out = _run(["sinfo", "-h", "-o", "%R"], timeout=30)
        return sorted({line.strip() for line in out.splitlines() if line.strip()})

    def known_jobs(self, job_ids: list[str]) -> set[str]:
        if not job_ids:
            return set()
        out = _run(["squeue", "-h", "-o", "%i", "-j", ",".join(job_ids)], check=False, timeout=30)
        return {line.strip() for line in out.splitlines() if line.strip()}

    def knows_option(self, command: str, option: str) -> bool:
        """Whether sbatch or salloc takes option, as its --help lists it: a SPANK plugin's
        options are listed only where plugstack.conf loads the plugin."""
        out = _run([command, "--help"], timeout=30)
        return re.search(rf"(?<![\w-]){re.escape(option)}(?![\w-])", out) is not None
