"""One HAM session inside a Slurm allocation: job directory, configuration, the user's command,
and teardown. Used by `ham run` (and `ham submit`, whose batch script calls `ham run`) and by
`ham env`."""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import signal
import socket
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

from ham import (cds, contract, fspaths, jobconf, jobdir as jobdirs, jobs, network, proc, reaper,
                 resume, settle, warm)
from ham.errors import EnvironmentProblem, UsageError
from ham.hadoop import bundle_dir, find_hadoop, ham_jar
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


# The client JVM's JIT (setting client_jit): C1 alone compiles at once and never again.
CLIENT_JIT_OPTS = {"c1": "-XX:TieredStopAtLevel=1", "tiered": ""}
# Whether `hadoop jar` unpacks a job jar with nothing to unpack (setting client_unjar; read by
# the bundle's org.apache.hadoop.util.HamRunJar).
CLIENT_UNJAR_OPTS = {"auto": "", "always": f"-D{contract.CLIENT_UNJAR_PROPERTY}=always"}


def slurm_job_id(env: Mapping[str, str]) -> str | None:
    return env.get("SLURM_JOB_ID") or env.get("SLURM_JOBID")


def slurm_nodelist(env: Mapping[str, str]) -> str | None:
    return env.get("SLURM_JOB_NODELIST") or env.get("SLURM_NODELIST")


def driver_host(settings: Settings, slurm: Slurm, env: Mapping[str, str],
                on_network: str | None = None) -> str:
    """The address the runners are told: driver_address, else the driver's on_network
    (network_address), else this node's on the route to the allocation's first node."""
    if settings["driver_address"]:
        return settings["driver_address"]
    if on_network:
        return on_network
    nodelist = slurm_nodelist(env)
    if not nodelist:
        return "127.0.0.1"
    first = next(iter(slurm.node_addresses(nodelist).values()))
    return jobconf.local_address_towards(first)


def network_address(settings: Settings, env: Mapping[str, str]) -> str | None:
    """With setting network, this node's address on it, where the driver listens (None without
    the setting). A node without one is refused in one line before anything is made: the job
    would otherwise go over another network, which the setting is there to prevent."""
    spec = settings["network"]
    if not spec:
        return None
    try:
        addresses = network.local_addresses()
    except OSError as exc:
        raise EnvironmentProblem(f"cannot list this node's addresses for setting 'network' "
                                 f"({exc.strerror})") from None
    address = network.choose(spec, addresses)
    if address is None:
        node = env.get("SLURMD_NODENAME") or socket.gethostname().split(".")[0]
        raise EnvironmentProblem(
            f"{node} (the driver's node) has no address on network '{spec}' (setting network, "
            f"from {settings.source('network')}); its addresses: {network.describe(addresses)}")
    return address


def _allocation_id(env: Mapping[str, str], slurm: Slurm) -> str:
    job_id = slurm_job_id(env)
    if not job_id:
        raise UsageError("not inside a Slurm allocation (SLURM_JOB_ID is unset): use `ham run`, "
                         "`ham submit`, or start `salloc` first")
    # A shell left from an allocation that ended (or a SLURM_JOB_ID set by hand) would get a
    # job directory and runners that never start: the job would hang at map 0%.
    info = slurm.job(job_id)
    if info is None or info.state not in ("RUNNING", "CONFIGURING"):
        raise UsageError(f"SLURM_JOB_ID={job_id} is not a running Slurm allocation "
                         f"({info.state if info else 'Slurm does not know it'}): this shell "
                         "outlived its allocation? Start `salloc` again, or use `ham run -N ...`")
    return job_id


def _lustre_home(settings: Settings) -> None:
    """With filesystem = lustre: lustre_root must be a directory (one line if not, before any
    job directory is made), and relative paths go to <lustre_root>/user/<name>, made here."""
    if fspaths.check_lustre_root(settings) and settings["filesystem"] == contract.LUSTRE_SCHEME:
        problem = fspaths.ensure_lustre_home(fspaths.Resolver.for_settings(settings, "."))
        if problem:
            log.warning("%s", problem)


def prepare(settings: Settings, slurm: Slurm, env: Mapping[str, str]) -> Prepared:
    """Create the job directory, render its configuration and the command's environment."""
    job_id = _allocation_id(env, slurm)
    bind = network_address(settings, env)
    _lustre_home(settings)
    jd = jobdirs.create(settings["shared_root"], job_id, settings["stripe_count"],
                        settings["stripe_size"], preset=env.get(contract.ENV_JOB_DIR))
    prepared = _render(settings, slurm, env, jd, bind)
    jd.write_record(slurm_job_id=job_id, framework=settings["framework"], created=time.time())
    return prepared


def prepare_resume(settings: Settings, slurm: Slurm, env: Mapping[str, str],
                   stopped: resume.Stopped) -> Prepared:
    """The next run of a stopped job happens in its first job directory (its staging, map
    outputs and history are there), with configuration rendered for this allocation."""
    job_id = _allocation_id(env, slurm)
    bind = network_address(settings, env)
    _lustre_home(settings)
    preset = env.get(contract.ENV_JOB_DIR)
    if preset and Path(preset) != stopped.jobdir.path:
        # The SPANK prolog made this allocation a directory; the run uses the job's own.
        with contextlib.suppress(OSError):
            Path(preset).rmdir()
    jd = stopped.jobdir
    prepared = _render(settings, slurm, env, jd, bind)
    jd.write_record(resumed_in=[*jd.read_record().get("resumed_in", []), job_id],
                    resumed=time.time())
    log.info("resuming %s (Slurm job %s) in %s", stopped.hadoop_id, jd.slurm_ids()[0], jd.path)
    return prepared


def _render(settings: Settings, slurm: Slurm, env: Mapping[str, str], jd: JobDir,
            bind: str | None = None) -> Prepared:
    """Render jd's configuration for this allocation, and the command's environment; bind: the
    driver's address on the job's network (network_address), if it has one."""
    java, java_home = _java(settings, env)
    hadoop = find_hadoop(settings, env)
    jar = str(ham_jar(settings))
    site_env = jobconf.site_env_file(hadoop, env)
    runners_cp = jobconf.runner_classpath(hadoop, jd, jar, {**env, "JAVA_HOME": java_home},
                                          site_env)
    runner_opts = settings["runner_java_opts"]
    if hadoop.kind == "bundled" and settings["runner_cds"] == "on":
        jars, dirs = cds.split_classpath(runners_cp)
        shared = cds.archive("runner", bundle_dir(settings), java, jars, settings["shared_root"])
        if shared:
            # The archive's class path first, as the JVM requires; the job's conf/ after it.
            runners_cp = ":".join(jars + dirs)
            runner_opts = f"{runner_opts} {cds.java_opts(shared)}"
    host = driver_host(settings, slurm, env, bind)
    mapred = jobconf.mapred_site(
        settings, jd, framework=settings["framework"], driver_host=host,
        # Only the address the runners are told: a driver_address elsewhere needs the others.
        bind_host=bind if bind and host == bind else "",
        java=java, runner_classpath=runners_cp, srun=shutil.which("srun") or "srun",
        runner_java_opts=runner_opts)
    jobconf.write_conf(jd, jobconf.core_site(settings, jd), mapred, settings["hadoop_log_level"],
                       hadoop, bundle_dir(settings), site_env)
    jd.write_record(hadoop=hadoop.kind)
    command_env = jobconf.job_environment(env, jd, hadoop, jar, java_home)
    client_opts = [CLIENT_JIT_OPTS[settings["client_jit"]],
                   CLIENT_UNJAR_OPTS[settings["client_unjar"]]]
    if hadoop.kind == "bundled" and settings["client_cds"] == "on":
        # The archive holds the jars the client's class path starts with (the bundle's script
        # lists its directories after them).
        jars = cds.leading_jars(jobconf.client_classpath(hadoop, command_env))
        shared = cds.archive("client", bundle_dir(settings), java, jars, settings["shared_root"])
        if shared:
            client_opts.append(cds.java_opts(shared))
    # Ahead of the user's own options, which win.
    client_opts.append(env.get("HADOOP_CLIENT_OPTS", ""))
    if any(client_opts):
        command_env["HADOOP_CLIENT_OPTS"] = " ".join(o for o in client_opts if o)
    return Prepared(jd, command_env)


def _java(settings: Settings, env: Mapping[str, str]) -> tuple[str, str]:
    """The java binary, and JAVA_HOME: Apache's scripts (a site's Hadoop) need it, and a Hadoop
    installation's environment has it."""
    java = java_binary(settings["java_home"], env)
    check_java(java, env)
    return java, settings["java_home"] or env.get("JAVA_HOME") or str(Path(java).resolve().parents[1])


def environment(settings: Settings, jd: JobDir, env: Mapping[str, str]) -> dict[str, str]:
    """The environment of a command run with jd's configuration."""
    return jobconf.job_environment(env, jd, find_hadoop(settings, env), str(ham_jar(settings)),
                                   _java(settings, env)[1])


def run_command(prepared: Prepared, command: list[str], retention: str, *,
                resuming: bool = False) -> int:
    """Run the user's command (or a stopped job's next run) in the prepared environment;
    always apply the retention policy (which keeps what a stopped job needs to resume)."""
    if not resuming:
        # What a resume checks is unchanged: the files the command names.
        prepared.jobdir.write_record(command=command, started=time.time(),
                                     command_files=resume.file_fingerprints(command, os.getcwd()))
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
        stdin=proc.DEVNULL, stdout=proc.DEVNULL, stderr=proc.DEVNULL,
        start_new_session=True)  # no terminal signals: it must outlive a Ctrl-C of ham
    received: list[int] = []

    def forward(signum: int, _frame: object) -> None:
        received.append(signum)
        if signum == signal.SIGUSR1:
            log.warning("the allocation's time limit is near (Slurm's warning, SIGUSR1): "
                        "stopping the job")
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
        _teardown(prepared.jobdir, child.returncode, received, retention)
    if code < 0:  # killed by a signal: report it the way a shell does
        return 128 - code
    return code


def _teardown(jd: JobDir, returncode: int, received: list[int], retention: str) -> None:
    """After the command: the record, the job's end if its driver could not, what failed, and
    the retention policy. Each step is on the shared file system: one it cannot reach (a server
    restarting) is one ERROR line, and the steps after it still run."""
    steps = [
        # Before the retention policy: runners parked for a next job end with the session.
        ("stop parked task runners", lambda: warm.stop_parked(jd.path)),
        ("record the command's end", lambda: jd.write_record(
            finished=time.time(), exit_code=returncode,
            signals=[signal.Signals(s).name for s in received])),
        # A driver killed outright (SIGKILL, OOM) never ended its job: do it for it.
        ("end the job", lambda: settle.settle(jd, f"the command ended ({_how(returncode)}) "
                                                  f"while the job was running")),
        ("report what failed", lambda: returncode == 0 or [
            log.error("%s", line) for line in jobs.failures(jd)]),
        ("list stopped jobs", lambda: [
            log.warning("%s stopped before it finished; its map outputs are kept: "
                        "`ham submit --resume %s` continues it, `ham cleanup --resumable` "
                        "removes them", job.name, job.name) for job in jd.resumable_jobs()]),
        ("apply the retention policy", lambda: jd.clean(retention)),
    ]
    for what, step in steps:
        try:
            step()
        except OSError as exc:
            log.error("cannot %s in %s: %s (the shared file system); `ham cleanup` tidies up "
                      "once it answers", what, jd.path, exc.strerror or exc)


def _how(returncode: int) -> str:
    if returncode < 0:
        return f"killed by {signal.Signals(-returncode).name}"
    return f"exit code {returncode}"


def within_allocation(env: Mapping[str, str]) -> bool:
    return slurm_job_id(env) is not None


__all__ = ["prepare", "prepare_resume", "environment", "run_command", "within_allocation", "slurm_job_id", "slurm_nodelist", "Prepared"]
