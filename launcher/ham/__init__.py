"""HAM: run Hadoop MapReduce jobs on Slurm allocations with a shared file system, no YARN.

The Python API is `ham.Job` (see ham.api); the `ham` command is a thin layer over it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"
__all__ = ["Job", "JobRequest", "__version__"]

if TYPE_CHECKING:
    from ham.api import Job
    from ham.slurm import JobRequest


def __getattr__(name: str) -> Any:
    # Lazy, so `python -m ham` and `ham --version` do not import everything.
    if name == "Job":
        from ham.api import Job

        return Job
    if name == "JobRequest":
        from ham.slurm import JobRequest

        return JobRequest
    raise AttributeError(name)
