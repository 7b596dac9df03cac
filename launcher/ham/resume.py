"""Resuming a Hadoop job that stopped before it finished (its time limit, scancel, Ctrl-C, its
driver's node lost): which job, whether it can be resumed, and the command of its next run.

A job can be resumed while `jobs/<id>/resumable` exists: its driver writes it when the job
starts and removes it when the job succeeds, fails or is killed with `mapred job -kill`. The
next run (`hadoop io.github.ham.mapreduce.client.ResumeJob jobs/<id>`, in the job's first
directory, with this allocation's configuration) keeps the job id and staged files, takes over
the maps whose output is intact and the reduces the committer recovers, and runs the rest.

What must not have changed is checked twice, before Slurm is asked and again when the run
starts: here, the files the command named (the job jar, -conf, -files, -libjars, -archives:
size and modification time, recorded when the job first ran); in the runtime (`ResumeJob
--check`), the staged job (its configuration, splits and jar) and every input file.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from ham import contract as c
from ham import jobs, proc, settle
from ham.errors import UsageError
from ham.jobdir import JobDir
from ham.slurm import Slurm

log = logging.getLogger(__name__)

# Generic options whose value names local files (comma-separated lists).
FILE_LIST_OPTIONS = ("-files", "-libjars", "-archives", "-conf")


@dataclass(frozen=True)
class Stopped:
    """A Hadoop job that stopped before it finished, in the job directory it first ran in."""

    jobdir: JobDir
    job: Path  # <jobdir>/jobs/<hadoop job id>

    @property
    def hadoop_id(self) -> str:
        return self.job.name

    def command(self) -> list[str]:
        """The command of the next run (`hadoop` is HAM's shim inside the job)."""
        return ["hadoop", c.RESUME_CLASS, str(self.job)]

    def check_command(self) -> list[str]:
        return ["hadoop", c.RESUME_CLASS, "--check", str(self.job)]


def find(shared_root: str, ref: str, slurm: Slurm, *, current: str | None = None) -> Stopped:
    """The stopped job ref names: a Slurm job id (of its first run or of a resume), a job
    directory name (123.1), or a Hadoop job id (job_..., application_...). One-line errors
    otherwise. current: this Slurm job, requeued, whose earlier run stopped the job (not "still
    running")."""
    hadoop_id = jobs.hadoop_job_id(ref)  # job_X_N, or YARN's application_X_N
    if hadoop_id:  # job_dirs finds the directories that ran it
        found = [(jd, jd.jobs / hadoop_id) for jd in jobs.job_dirs(shared_root, [ref])]
    else:
        found = [(jd, j) for jd in jobs.job_dirs(shared_root, [ref])
                 for j in sorted(jd.jobs.glob("job_*")) if j.is_dir()]
    if not found:
        raise UsageError(f"no HAM job {ref} under {shared_root} (`ham status` lists your jobs)")
    for jd in {jd.path: jd for jd, _ in found}.values():
        latest = jd.slurm_ids()[-1]
        info = None if latest == current else slurm.job(latest)
        if info is not None and not info.finished:
            raise UsageError(f"{ref} is still running as Slurm job {latest}: wait for it to end, "
                             f"or stop it with `ham cancel {latest}` and then resume it")
        # Over (or forgotten by Slurm): a job still recorded RUNNING lost its driver.
        settle.settle(jd, f"Slurm job {latest} ended while the job was running", here=False)
    stopped = [(jd, j) for jd, j in found if (j / c.RESUMABLE).exists()]
    if not stopped:
        states = ", ".join(f"{j.name} {_state(j)}" for _, j in found)
        raise UsageError(f"nothing to resume in {ref} ({states}): only a job stopped before it "
                         f"finished (time limit, scancel, Ctrl-C, its driver lost) can be resumed")
    if len(stopped) > 1:
        ids = ", ".join(j.name for _, j in stopped)
        raise UsageError(f"{ref} has {len(stopped)} stopped jobs ({ids}): resume them one at a "
                         f"time with --resume <hadoop job id>")
    return Stopped(*stopped[0])


def requeued(shared_root: str, env: Mapping[str, str], slurm: Slurm) -> Stopped | None:
    """In a batch job Slurm requeued (preemption, a node failure, `scontrol requeue`: the
    script starts again under the same job id), the Hadoop job its earlier run stopped; None
    on a first run, or when the earlier run stopped none (it had finished, or not started one)."""
    job_id = env.get("SLURM_JOB_ID")
    if not job_id or int(env.get("SLURM_RESTART_COUNT") or 0) < 1:
        return None
    try:
        return find(shared_root, job_id, slurm, current=job_id)
    except UsageError as exc:
        log.info("requeued Slurm job %s: nothing to resume (%s)", job_id, exc)
        return None


def _state(job: Path) -> str:
    record = jobs.read_status(job / c.STATUS) or {}
    return record.get("state", "without a status record")


def file_fingerprints(command: list[str], cwd: str) -> dict[str, list[int]]:
    """The local files a `hadoop jar` command names (its jar, -conf, -files, -libjars,
    -archives, and any other argument that is a file): path -> [size, mtime in ns]."""
    if command[:2] != ["hadoop", "jar"]:
        return {}
    names: list[str] = []
    for i, arg in enumerate(command[2:], start=2):
        if command[i - 1] in FILE_LIST_OPTIONS:
            names += arg.split(",")
        else:
            names.append(arg)
    out: dict[str, list[int]] = {}
    for name in names:
        path = os.path.join(cwd, name.removeprefix("file://"))
        if os.path.isfile(path):
            st = os.stat(path)
            out[os.path.abspath(path)] = [st.st_size, st.st_mtime_ns]
    return out


def changed_files(recorded: Mapping[str, Any]) -> list[str]:
    changes = []
    for path, (size, mtime) in recorded.items():
        try:
            st = os.stat(path)
        except OSError:
            changes.append(f"{path} is gone")
            continue
        if [st.st_size, st.st_mtime_ns] != [size, mtime]:
            changes.append(f"{path} changed")
    return changes


def check(stopped: Stopped, env: Mapping[str, str], *, runtime: bool) -> None:
    """Refuse (one line) a resume of a job whose files changed. runtime: also run the
    runtime's check of the staged job and the inputs (a JVM; `ham run` inside an allocation
    leaves it to the run itself)."""
    record = stopped.jobdir.read_record()
    if record.get("framework", "ham") != c.FRAMEWORK_NAME:
        raise UsageError(f"{stopped.hadoop_id} ran on Hadoop's local runner: only jobs run on "
                         f"HAM can be resumed")
    changes = changed_files(record.get("command_files", {}))
    if changes:
        raise UsageError(f"cannot resume {stopped.hadoop_id}: {'; '.join(changes)} since the "
                         f"job started (a resume would mix the old run's results with new code "
                         f"or data: submit the job again)")
    if runtime:
        result = proc.run(stopped.check_command(), env=dict(env), check=False)
        if result.returncode == c.RESUME_CHANGED:
            lines = result.stderr.strip().splitlines()
            raise UsageError(lines[-1].removeprefix("ham: ") if lines else
                             f"cannot resume {stopped.hadoop_id}")
        if result.returncode != 0:
            raise UsageError(f"cannot check {stopped.hadoop_id} for a resume: "
                             f"{(result.stderr.strip().splitlines() or ['no output'])[-1]}")
