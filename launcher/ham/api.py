"""HAM's Python API: the same jobs, settings and checks as the CLI, without click.

    from ham import Job

    job = Job.hadoop_jar("/opt/hadoop/examples.jar", "wordcount", "/lustre/in", "/lustre/out",
                         nodes="3", time="30", settings={"shared_root": "/lustre/ham"})
    print(job.script())          # the sbatch script, as `ham submit --dry-run` prints it
    job.submit()                 # -> Slurm job id
    code = job.wait()            # stream the output to stdout, return the job's exit code
    job.counters()               # {"org.apache.hadoop.mapreduce.TaskCounter": {...}, ...}
    job.logs()                   # [Path(...attempt_..._m_000000_0.node1.syslog), ...]

`Job(...).run()` runs the command with HAM in the current allocation (or in a new one, via
salloc) and returns its exit status, as `ham run` does. `Job(resume="1234")` continues a job
that stopped before it finished (`ham submit --resume 1234`).
"""

from __future__ import annotations

import dataclasses
import logging
import os
import re
import sys
import time
from pathlib import Path
from typing import IO, Any, Callable, Mapping, Sequence

from ham import (arrays, follow, fspaths, jobpaths, jobs, preflight, proc, render, session,
                 sizing)
from ham import java as java_mod
from ham import resume as resume_mod
from ham import settings as settings_mod
from ham.errors import EnvironmentProblem, UsageError
from ham.settings import BY_KEY, Settings
from ham.slurm import JobInfo, JobRequest, Slurm, time_limit_seconds

log = logging.getLogger(__name__)

# Slurm sends SIGUSR1 to the batch shell this long before the time limit; `ham run` then stops
# the job gracefully (runners stopped, nothing half-committed, finished map outputs kept for
# `--resume`).
WARNING_SIGNAL = "--signal=B:USR1@60"
# Slurm may send that warning up to 60 s early (its time-limit check runs about that seldom), so
# under 3 minutes it could stop a job in its first seconds: such a job asks for none, and at
# its limit Slurm's SIGTERM stops it the way `scancel` does.
SHORTEST_WARNED_MINUTES = 3
# A failed node must not end the allocation: HAM's runtime re-runs the node's tasks on the
# others (and does not replace runners there), so the job finishes without it.
KEEP_ON_NODE_FAILURE = "--no-kill"
# The option of HAM's SPANK plugin (slurm-plugins/ham_spank.c), asked for by setting spank.
SPANK_OPTION = "--ham"


class Job:
    """One HAM job: a command (usually `hadoop jar ...`) plus its Slurm request and settings."""

    def __init__(self, command: Sequence[str] = (), *, resume: str | None = None,
                 request: JobRequest | None = None,
                 settings: Mapping[str, Any] | None = None, output: str = "ham-%j.out",
                 env: Mapping[str, str] | None = None, **slurm: Any) -> None:
        """command: argv after `--`; or resume: a stopped job to continue (its Slurm or Hadoop
        job id). request or keyword Slurm fields (nodes="3", time="30", partition=..., see
        JobRequest). settings: overrides of HAM settings (as flags)."""
        if request is not None and slurm:
            raise UsageError("give either request= or Slurm keyword arguments, not both")
        if resume and command:
            raise UsageError("give either a command after `--` or --resume JOBID, not both")
        self.command = list(command)
        self.resume = resume
        self._stopped: resume_mod.Stopped | None = None
        self.env = dict(os.environ if env is None else env)
        self.overrides = {k: v for k, v in (settings or {}).items() if v is not None}
        self.settings: Settings = settings_mod.load(self.env, flags=self.overrides)
        base = request or JobRequest(**slurm)
        self.request = dataclasses.replace(
            base,
            time=base.time or self.settings["time_limit"],
            partition=base.partition or self.settings["partition"],
            account=base.account or self.settings["account"],
            qos=base.qos or self.settings["qos"],
            output=os.path.abspath(base.output or output),
            # Recognisable in squeue and sacct (sbatch would call it "sbatch").
            job_name=base.job_name or default_job_name(self.command, resume),
        )
        self.job_id: str | None = None
        self._slurm = Slurm()

    @classmethod
    def hadoop_jar(cls, jar: str, *args: str, **kw: Any) -> "Job":
        return cls(["hadoop", "jar", jar, *args], **kw)

    # -- before submission ----------------------------------------------------------------
    def check(self) -> None:
        """The checks made before anything is asked of Slurm (raise HamError subclasses)."""
        if self.resume:
            self._check_resume()
            return
        preflight.check(self.settings, self.command, self.env)
        resolver = fspaths.Resolver.for_settings(self.settings, os.getcwd())
        for command in self._task_commands():
            jobpaths.check(command, os.getcwd(), inputs_may_appear=self.request.starts_later(),
                           resolver=resolver)
        if self.request.partition and not session.within_allocation(self.env):
            preflight.check_partition(self.request.partition, self._slurm.partitions())

    def _task_commands(self) -> list[list[str]]:
        """The command as each array task runs it (its variables expanded), or as it is."""
        if not self.request.array:
            return [self.command]
        ids = arrays.task_ids(self.request.array)
        output = jobpaths.paths_of(self.command).output
        if output is not None and len(ids) > 1 and not arrays.uses_variables(output):
            raise UsageError(f"--array {self.request.array}: every task would write {output}; "
                             f"put $SLURM_ARRAY_TASK_ID in the output path (quoted: "
                             f"'$SLURM_ARRAY_TASK_ID', so that your shell leaves it to the task)")
        return [[arrays.expand(w, i) for w in self.command] for i in ids]

    def _check_resume(self, stopped: resume_mod.Stopped | None = None) -> None:
        """Which stopped job, and that it can be resumed as it is: the runtime's check of its
        staged files and inputs runs here too unless this is its allocation (then the run
        itself checks them, just before it starts)."""
        stopped = stopped or resume_mod.find(self.settings["shared_root"], self.resume or "",
                                             self._slurm)
        preflight.check(self.settings, stopped.command(), self.env)
        resume_mod.check(stopped, session.environment(self.settings, stopped.jobdir, self.env),
                         runtime=not session.within_allocation(self.env))
        self._stopped = stopped

    def _ham_run(self) -> list[str]:
        """`ham run` with this job's command, or resuming its stopped job."""
        run = [sys.executable, "-m", "ham", "run"]
        if self._stopped is not None:
            return [*run, "--resume", self._stopped.hadoop_id]
        return [*run, "--", *self.command]

    def script(self) -> str:
        """The sbatch script that `submit()` would send (submits nothing; says in a WARNING
        when the time limit is too short for Slurm's warning)."""
        if self.resume and self._stopped is None:
            self.check()
        warning = self._warning()
        if not warning:
            log.warning("a time limit of %d min is too short for Slurm's time-limit warning "
                        "(asked 60 s ahead, sent up to 60 s early): none is asked for; at the "
                        "limit Slurm's SIGTERM stops the job as `ham cancel` does. Ask for -t %d "
                        "or more for a graceful stop before the limit",
                        self._limit_minutes(), SHORTEST_WARNED_MINUTES)
        return render.render(
            "sbatch.sh.j2",
            sbatch_options=[*self.request.options(), *warning, KEEP_ON_NODE_FAILURE,
                            *self._spank()],
            environment={BY_KEY[k].env_var: str(v) for k, v in self.overrides.items()},
            ham_run=self._ham_run(),
            array_variables=bool(self.request.array),
        )

    def _spank(self) -> list[str]:
        """The SPANK plugin's option, with setting spank: its prolog makes the job directory
        under the shared root and its epilog removes the job's intermediate data even if every
        HAM process was killed. Not with retention = all, which keeps that data."""
        if not self.settings["spank"] or self.settings["retention"] == "all":
            return []
        return [f"{SPANK_OPTION}={os.path.abspath(self.settings['shared_root'])}"]

    def _check_spank(self, command: str) -> None:
        """sbatch and salloc refuse an option no plugin gave them: say why, before asking."""
        if self._spank() and not self._slurm.knows_option(command, SPANK_OPTION):
            raise EnvironmentProblem(
                f"setting spank is true ({self.settings.source('spank')}) but {command} has no "
                f"{SPANK_OPTION} option: HAM's SPANK plugin is not loaded on this cluster; ask "
                f"your admin (docs/admin.md, SPANK plugin) or set spank = false")

    def _limit_minutes(self) -> int | None:
        """The time limit as Slurm imposes it: whole minutes, seconds rounded up; None for
        none (not given, UNLIMITED, or zero, which asks for none)."""
        seconds = time_limit_seconds(self.request.time)
        return -(-seconds // 60) if seconds else None

    def _warning(self) -> list[str]:
        """The time-limit warning's sbatch option, unless the time limit is too short for it."""
        minutes = self._limit_minutes()
        return [] if minutes is not None and minutes < SHORTEST_WARNED_MINUTES else [WARNING_SIGNAL]

    # -- batch ----------------------------------------------------------------------------
    def submit(self) -> str:
        self.check()
        self._check_spank("sbatch")
        self.job_id = self._slurm.submit(self.script())
        return self.job_id

    @property
    def output_file(self) -> Path:
        return Path(self.request.output.replace("%j", self._require_id()))

    def wait(self, stream: IO[bytes] | None = None,
             progress: Callable[[str], None] | None = None) -> int:
        """Follow the job until it ends and return its exit code. Its output is copied to
        stream (default: stdout) unless progress is given: then progress receives a one-line
        summary (Slurm state, map/reduce %, tasks done/failed, elapsed) at every poll."""
        def tick(info: JobInfo | None) -> None:
            summaries = self.status()
            state = info.state if info else "PENDING"
            line = f"job {self.job_id} {state}"
            if summaries:
                s = summaries[0]
                line += f" {jobs.elapsed_text(s.elapsed_s)}  {jobs.progress_text(s)}"
            progress(line)  # type: ignore[misc]

        info = follow.follow(self._slurm, self._require_id(), self.output_file,
                             None if progress else (stream or sys.stdout.buffer),
                             tick if progress else None)
        # A job that did not complete (cancelled, failed to start, timed out, its node lost)
        # may have a batch exit code of 0: it still failed.
        if info.state != "COMPLETED" and not info.exit_code:
            return 1
        return info.exit_code if info.exit_code is not None else 1

    def state(self) -> JobInfo | None:
        return self._slurm.job(self._require_id())

    def cancel(self) -> None:
        self._slurm.cancel(self._require_id())

    # -- results --------------------------------------------------------------------------
    def status(self) -> list[jobs.JobSummary]:
        """One summary per job directory of this Slurm job (usually one)."""
        return [jobs.summarize(d, self._slurm, time.time())
                for d in jobs.job_dirs(self.settings["shared_root"], [self._require_id()])]

    def counters(self) -> dict[str, dict[str, int]]:
        """Counters of the last Hadoop job this Slurm job ran."""
        hadoop_jobs = [h for s in self.status() for h in s.hadoop_jobs]
        if not hadoop_jobs:
            return {}
        return max(hadoop_jobs, key=lambda h: h.get("start_time") or 0).get("counters", {})

    def logs(self) -> list[Path]:
        return [f for d in jobs.job_dirs(self.settings["shared_root"], [self._require_id()])
                for f in d.log_files()]

    # -- interactive ----------------------------------------------------------------------
    def run(self) -> int:
        """Run the command with HAM and return its exit status: in the current allocation, or
        in a new one (salloc) released when the command ends."""
        requeued = None
        if session.within_allocation(self.env) and not self.resume:
            requeued = resume_mod.requeued(self.settings["shared_root"], self.env, self._slurm)
        if requeued is not None:
            # Slurm started this batch job again (requeue, preemption): its earlier run stopped
            # the job, which goes on from there rather than from the start.
            log.warning("Slurm job %s was requeued (restart %s): resuming %s, which its last "
                        "run stopped, instead of running the command again",
                        session.slurm_job_id(self.env), self.env.get("SLURM_RESTART_COUNT"),
                        requeued.hadoop_id)
            self._check_resume(requeued)
        else:
            self.check()
        if session.within_allocation(self.env):
            said = sizing.check(self.env, self._slurm, self.settings["runners_per_node"])
            if said:
                log.warning(said)
            if self._stopped is not None:
                prepared = session.prepare_resume(self.settings, self._slurm, self.env,
                                                  self._stopped)
                return session.run_command(prepared, self._stopped.command(),
                                           self.settings["retention"], resuming=True)
            prepared = session.prepare(self.settings, self._slurm, self.env)
            return session.run_command(prepared, self.command, self.settings["retention"])
        argv, env = self.allocation_argv()
        return proc.call(argv, env=env, hint="is Slurm installed? (`ham doctor` checks)")

    def allocation_argv(self) -> tuple[list[str], dict[str, str]]:
        """salloc argv and environment that run this job's `ham run` in a new allocation."""
        env = dict(self.env)
        # Settings travel into the allocation as HAM_* variables (the inner `ham run` reads them).
        env.update({BY_KEY[k].env_var: str(v) for k, v in self.overrides.items()})
        # The Java check() made, for the same check in the allocation's `ham run` (this host).
        env[java_mod.CHECKED_ENV] = java_mod.checked(
            java_mod.java_binary(self.settings["java_home"], env), env)
        self._check_spank("salloc")
        request = dataclasses.replace(self.request, output="", error="",
                                      extra=(*self.request.extra, KEEP_ON_NODE_FAILURE,
                                             *self._spank()))
        argv = self._slurm.allocate_argv(request, self._ham_run())
        return argv, env

    def _require_id(self) -> str:
        if self.job_id is None:
            raise UsageError("the job has not been submitted yet (call submit() first)")
        return self.job_id


def default_job_name(command: Sequence[str], resume: str | None = None) -> str:
    """ham-<what runs>: the program of `hadoop jar JAR PROGRAM` (an example's name, a main
    class's simple name), else the jar's name without its version, else the command's name."""
    if resume:
        return f"ham-resume-{resume}"
    words = list(command)
    if len(words) >= 3 and Path(words[0]).name in ("hadoop", "yarn") and words[1] == "jar":
        program = words[3] if len(words) > 3 else ""
        if program and not program.startswith("-") and "/" not in program:
            return f"ham-{program.rsplit('.', 1)[-1]}"
        return "ham-" + re.sub(r"-\d[\w.]*$", "", Path(words[2]).name.removesuffix(".jar"))
    return f"ham-{Path(words[0]).name}" if words else "ham"
