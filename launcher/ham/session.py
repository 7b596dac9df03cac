"""One HAM session inside a Slurm allocation: job directory, configuration, the user's command,
and teardown. Used by `ham run` (and `ham submit`, whose batch script calls `ham run`) and by
`ham env`."""

from __future__ import annotations

import logging
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from typing import Mapping

from ham import contract, fspaths, jobconf, jobdir as jobdirs, jobs, proc, reaper, settle
from ham.errors import EnvironmentProblem, UsageError
from ham.hadoop import find_hadoop, ham_jar
from ham.java import check_java, java_binary
from ham.jobdir import JobDir
from ham.settings import Settings
from ham.slurm import Slurm

log = logging.getLogger(__name__)

# Signals that end the user's command; forwarded so the `hadoop jar` client's shutdown hook
# stops the job's task runners. SIGUSR1 is the time-limit warning (sbatch --signal=B:USR1@T).
FORWARDED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGUSR1)


@dataclass(frozen=True)
class Prepared:
    jobdir: JobDir
    env: dict[str, str]


def slurm_job_id(env: Mapping[str, str]) -> str | None:
    return env.get("SLURM_JOB_ID") or env.get("SLURM_JOBID")


def driver_host(settings: Settings, slurm: Slurm, env: Mapping[str, str]) -> str:
    if settings["driver_address"]:
        return settings["driver_address"]
    nodelist = env.get("SLURM_JOB_NODELIST") or env.get("SLURM_NODELIST")
    if not nodelist:
        return "127.0.0.1"
    first = next(iter(slurm.node_addresses(nodelist).values()))
    return jobconf.local_address_towards(first)


def prepare(settings: Settings, slurm: Slurm, env: Mapping[str, str]) -> Prepared:
    """Create the job directory, render its configuration and the command's environment."""
    job_id = slurm_job_id(env)
    if not job_id:
        raise UsageError("not inside a Slurm allocation (SLURM_JOB_ID is unset): use `ham run`, "
                         "`ham submit`, or start `salloc` first")
    java = java_binary(settings["java_home"], env)
    check_java(java)
    hadoop = find_hadoop(settings, env)
    jar = str(ham_jar(settings))
    if fspaths.check_lustre_root(settings) and settings["filesystem"] == contract.LUSTRE_SCHEME:
        problem = fspaths.ensure_lustre_home(fspaths.Resolver.for_settings(settings, "."))
        if problem:
            log.warning("%s", problem)
    jd = jobdirs.create(settings["shared_root"], job_id, settings["stripe_count"],
                        settings["stripe_size"], preset=env.get(contract.ENV_JOB_DIR))
    mapred = jobconf.mapred_site(
        settings, jd, framework=settings["framework"], driver_host=driver_host(settings, slurm, env),
        java=java, runner_classpath=jobconf.runner_classpath(hadoop, jd, jar),
        srun=shutil.which("srun") or "srun")
    jobconf.write_conf(jd, jobconf.core_site(settings, jd), mapred, settings["hadoop_log_level"])
    child_env = jobconf.job_environment(env, jd, hadoop, jar, settings["java_home"])
    jd.write_record(slurm_job_id=job_id, hadoop=hadoop.kind, framework=settings["framework"],
                    created=time.time())
    return Prepared(jd, child_env)


def run_command(prepared: Prepared, command: list[str], retention: str) -> int:
    """Run the user's command in the prepared environment; always apply the retention policy."""
    prepared.jobdir.write_record(command=command, started=time.time())
    # If `ham run` is SIGKILLed the command gets SIGTERM (its shutdown hook aborts the job) and
    # the reaper applies the retention policy once it has exited.
    try:
        child = proc.spawn(command, env=prepared.env, preexec_fn=reaper.die_with_parent,
                           hint="check the command after `--`")
    except EnvironmentProblem:  # preflight.check normally catches this before Slurm is asked
        prepared.jobdir.clean("none" if retention != "all" else "all")
        raise
    sidecar = proc.spawn(
        [sys.executable, "-m", "ham.reaper", str(prepared.jobdir.path), retention, str(child.pid)],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        start_new_session=True)  # no terminal signals: it must outlive a Ctrl-C of ham
    received: list[int] = []

    def forward(signum: int, _frame: object) -> None:
        received.append(signum)
        # The JVM runs its shutdown hooks on SIGTERM (SIGUSR1 would kill it without them).
        child.send_signal(signal.SIGTERM if signum == signal.SIGUSR1 else signum)

    old = {s: signal.signal(s, forward) for s in FORWARDED}
    try:
        code = child.wait()
    finally:
        for s, handler in old.items():
            signal.signal(s, handler)
        if child.poll() is None:
            child.kill()
            child.wait()
        sidecar.terminate()
        sidecar.wait()
        prepared.jobdir.write_record(finished=time.time(), exit_code=child.returncode,
                                     signals=[signal.Signals(s).name for s in received])
        # A driver killed outright (SIGKILL, OOM) never ended its job: do it for it.
        settle.settle(prepared.jobdir, f"the command ended ({_how(child.returncode)}) while "
                                       f"the job was running")
        if child.returncode != 0:
            for line in jobs.failures(prepared.jobdir):
                log.error("%s", line)
        prepared.jobdir.clean(retention)
    if code < 0:  # killed by a signal: report it the way a shell does
        return 128 - code
    return code


def _how(returncode: int) -> str:
    if returncode < 0:
        return f"killed by {signal.Signals(-returncode).name}"
    return f"exit code {returncode}"


def within_allocation(env: Mapping[str, str]) -> bool:
    return slurm_job_id(env) is not None


__all__ = ["prepare", "run_command", "within_allocation", "slurm_job_id", "Prepared"]
