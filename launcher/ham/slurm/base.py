"""The Slurm backend interface and the plain data it speaks."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field


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
            ("output", self.output), ("error", self.error),
        ):
            if value not in ("", None):
                opts.append(f"--{name}={value}")
        return opts + list(self.extra)


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


class SlurmBackend(ABC):
    @abstractmethod
    def ping(self) -> str:
        """A one-line description of the controller; raises SlurmError when it does not answer."""

    @abstractmethod
    def submit(self, script: str) -> str:
        """Submit a batch script; return the job id."""

    @abstractmethod
    def allocate_argv(self, request: JobRequest, command: list[str]) -> list[str]:
        """argv that runs command inside a new allocation released when it exits (salloc)."""

    @abstractmethod
    def job(self, job_id: str) -> JobInfo | None:
        """The job's state, or None when Slurm no longer knows it."""

    @abstractmethod
    def cancel(self, job_id: str, signal: str = "") -> None:
        """Cancel the job, or send it a signal."""

    @abstractmethod
    def node_addresses(self, nodelist: str) -> dict[str, str]:
        """{node name: NodeAddr} for a Slurm node list expression such as node[1-3]."""

    @abstractmethod
    def partitions(self) -> list[str]:
        """Names of the cluster's partitions."""

    @abstractmethod
    def known_jobs(self, job_ids: list[str]) -> set[str]:
        """The subset of job_ids Slurm still knows as pending or running."""
