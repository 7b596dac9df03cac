"""Slurm backends behind one interface; callers never ask which one they have."""

from __future__ import annotations

from ham.settings import Settings
from ham.slurm.base import JobInfo, JobRequest, SlurmBackend
from ham.slurm.cli import CliBackend

__all__ = ["JobInfo", "JobRequest", "SlurmBackend", "backend"]


def backend(settings: Settings) -> SlurmBackend:
    """The backend chosen by the slurm_backend setting. Only the CLI backend exists so far:
    PyPI has no pyslurm for Slurm 22.05, so 'auto' always means the CLI here."""
    del settings  # one choice today; the setting is read here when a second backend lands
    return CliBackend()
