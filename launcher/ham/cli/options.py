"""Options shared by `ham submit` and `ham run`: the Slurm request and settings overrides."""

from __future__ import annotations

import os
import re
from typing import Any, Callable

import click

from ham.slurm import JobRequest, time_limit_seconds

_MEM = re.compile(r"^\d+[KMGT]?$", re.I)
_NODES = re.compile(r"^[1-9]\d*(-[1-9]\d*)?$")


def _check(pattern: re.Pattern[str], what: str) -> Callable[[click.Context, click.Parameter, Any], Any]:
    def callback(ctx: click.Context, param: click.Parameter, value: Any) -> Any:
        if value and not pattern.match(value):
            raise click.BadParameter(f"{value!r} is not {what}")
        return value

    return callback


_check_node_shape = _check(_NODES, "a node count such as 4 or 2-4")


def _check_nodes(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    _check_node_shape(ctx, param, value)
    low, _, high = (value or "").partition("-")
    if high and int(high) < int(low):
        raise click.BadParameter(f"{value!r}: the minimum node count is above the maximum")
    return value


def _check_time(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    try:
        time_limit_seconds(value or "")
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from None
    return value


SLURM_OPTIONS = [
    click.option("-N", "--nodes", callback=_check_nodes,
                 help="Number of nodes (sbatch -N)."),
    click.option("--ntasks-per-node", type=click.IntRange(min=1), help="Tasks per node."),
    click.option("-c", "--cpus-per-task", type=click.IntRange(min=1), help="CPUs per task."),
    click.option("-t", "--time", callback=_check_time,
                 help="Time limit (default: setting time_limit, else the partition's)."),
    click.option("-p", "--partition", help="Partition (default: setting partition)."),
    click.option("-A", "--account", help="Account to charge (default: setting account)."),
    click.option("-q", "--qos", help="Quality of service (default: setting qos)."),
    click.option("--mem", callback=_check(_MEM, "a memory size such as 4000 or 8G"),
                 help="Memory per node, e.g. 8G."),
    click.option("-C", "--constraint", help="Node features required."),
    click.option("-J", "--job-name", help="Job name (default: ham-<program>, e.g. "
                                          "ham-wordcount, as squeue and sacct show it)."),
    click.option("--mail-type", help="Mail events (sbatch --mail-type), e.g. END,FAIL."),
    click.option("--mail-user", help="Who gets the mail (default: you, as Slurm decides)."),
    click.option("--slurm-arg", "slurm_args", multiple=True, metavar="OPT",
                 help="Any other sbatch/salloc option, passed through verbatim "
                      "(repeatable), e.g. --slurm-arg=--exclusive."),
]

SETTING_OPTIONS = [
    click.option("--shared-root", help="Override setting shared_root for this job."),
    click.option("--hadoop", type=click.Choice(["auto", "bundled", "site"]),
                 help="Override setting hadoop for this job."),
    click.option("--framework", type=click.Choice(["ham", "local"]),
                 help="Override setting framework: 'local' runs Hadoop's local runner."),
    click.option("--retention", type=click.Choice(["all", "logs", "none"]),
                 help="Override setting retention for this job."),
]


def apply(options: list[Callable[[Callable[..., Any]], Callable[..., Any]]]):
    def decorate(fn: Callable[..., Any]) -> Callable[..., Any]:
        for option in reversed(options):
            fn = option(fn)
        return fn

    return decorate


def setting_flags(kw: dict[str, Any]) -> dict[str, Any]:
    """The settings overridden by flags (None = not given)."""
    return {key: kw.pop(key) for key in ("shared_root", "hadoop", "framework", "retention")}


def job_request(kw: dict[str, Any], output: str = "", error: str = "") -> JobRequest:
    """The Slurm request from the flags; settings fill the gaps in ham.api.Job."""
    return JobRequest(
        nodes=kw.pop("nodes") or "",
        ntasks_per_node=kw.pop("ntasks_per_node"),
        cpus_per_task=kw.pop("cpus_per_task"),
        time=kw.pop("time") or "",
        partition=kw.pop("partition") or "",
        account=kw.pop("account") or "",
        qos=kw.pop("qos") or "",
        mem=kw.pop("mem") or "",
        constraint=kw.pop("constraint") or "",
        job_name=kw.pop("job_name") or "",
        mail_type=kw.pop("mail_type") or "",
        mail_user=kw.pop("mail_user") or "",
        array=kw.pop("array", None) or "",
        output=os.path.abspath(output) if output else "",
        error=os.path.abspath(error) if error else "",
        extra=(*kw.pop("slurm_args"), *(["--requeue"] if kw.pop("requeue", False) else [])),
    )
