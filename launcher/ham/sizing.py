"""How many task runners a job gets on each node, said out loud when it is fewer than the node
has cores: the runtime starts, per node, as many runners as the allocation's CPUs there hold
tasks of the job's size (mapreduce.{map,reduce}.cpu.vcores, and memory: docs/user-guide.md,
"How many runners"). On a cluster that shares nodes, `-N 4` alone gets one CPU, so one runner,
per node; nothing else would tell the user why the job is slow."""

from __future__ import annotations

from typing import Mapping

from ham.slurm import Slurm


def allocated_cpus(env: Mapping[str, str]) -> int | None:
    """This node's CPUs in the allocation (SLURM_CPUS_ON_NODE), as the runtime reads them."""
    for name in ("SLURM_CPUS_ON_NODE", "SLURM_JOB_CPUS_PER_NODE"):
        digits = (env.get(name) or "").split("(")[0].split(",")[0]
        if digits.isdigit():
            return int(digits)
    return None


def warning(allocated: int | None, node_cpus: int | None, node: str) -> str | None:
    """The WARNING line when the allocation has fewer of the node's CPUs than it has."""
    if allocated is None or node_cpus is None or allocated >= node_cpus:
        return None
    return (f"the allocation has {allocated} of {node}'s {node_cpus} CPUs, so at most {allocated} "
            f"task runner(s) per node; for more ask for the whole nodes (--slurm-arg=--exclusive) "
            f"or for CPUs (-c {node_cpus}, or --ntasks-per-node {node_cpus}); HAM sizes runners "
            f"from the allocation, not the node")


def check(env: Mapping[str, str], slurm: Slurm, runners_per_node: int) -> str | None:
    """The warning for this allocation (None when the setting runners_per_node fixes the count,
    or outside one)."""
    nodelist = env.get("SLURM_JOB_NODELIST") or env.get("SLURM_NODELIST")
    if runners_per_node > 0 or not nodelist:
        return None
    # The batch script's node, or in an salloc shell (on the login node) the first one.
    node = env.get("SLURMD_NODENAME") or next(iter(slurm.hostnames(nodelist)), None)
    return warning(allocated_cpus(env), slurm.node_cpus(node), node) if node else None
