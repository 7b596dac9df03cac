"""The per-job directory on the shared file system, and the only place its paths are built.

    <shared_root>/<user>/<slurm job id>[.<n>]/
        conf/            Hadoop configuration rendered for this job (HADOOP_CONF_DIR)
        bin/hadoop       shim so a plain `hadoop` runs HAM's chosen Hadoop
        staging/         MapReduce staging area (job.xml, job.jar, splits)
        tmp/             hadoop.tmp.dir
        driver.log       the driver's log (what the client console leaves out)
        jobs/<id>/       one per Hadoop job: status.json, logs/, history/, intermediate/, work/
                         (runtime); resumable, held-output/, resume.json for a stopped job
        ham.json         the launcher's record (command, times, exit code)
"""

from __future__ import annotations

import getpass
import json
import logging
import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ham import contract as c
from ham import lustre
from ham.errors import EnvironmentProblem, UsageError

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class JobDir:
    path: Path

    @property
    def conf(self) -> Path:
        return self.path / c.CONF

    @property
    def bin(self) -> Path:
        return self.path / c.BIN

    @property
    def staging(self) -> Path:
        return self.path / c.STAGING

    @property
    def tmp(self) -> Path:
        return self.path / c.TMP

    @property
    def local(self) -> Path:
        return self.path / c.LOCAL

    @property
    def driver_log(self) -> Path:
        return self.path / c.DRIVER_LOG

    @property
    def app_logs(self) -> Path:
        return self.path / c.APP_LOGS

    @property
    def jobs(self) -> Path:
        return self.path / c.JOBS

    @property
    def record(self) -> Path:
        return self.path / c.RECORD

    def hadoop_job(self, job_id: str) -> Path:
        return self.jobs / job_id

    def status_files(self) -> list[Path]:
        return sorted(self.jobs.glob(f"*/{c.STATUS}"))

    def log_files(self) -> list[Path]:
        return sorted(self.jobs.glob(f"*/{c.LOGS}/*"))

    def read_record(self) -> dict[str, Any]:
        """ham.json, or {} before it is written. It is only ever replaced whole, so a file that
        is not a JSON object was damaged or is not HAM's: refused, not overwritten."""
        try:
            text = self.record.read_text()
        except FileNotFoundError:
            return {}
        try:
            data = json.loads(text)
        except ValueError:
            data = None
        if not isinstance(data, dict):
            raise UsageError(f"{self.record} is not a HAM job record (not a JSON object): move "
                             f"it aside, or remove {self.path} if you no longer need the job")
        return data

    def write_record(self, **fields: Any) -> None:
        """Merge fields into ham.json, atomically (readers never see half a file)."""
        data = self.read_record()
        data.update(fields)
        tmp = self.record.with_suffix(".json.tmp")
        tmp.write_text(json.dumps(data, indent=1, sort_keys=True))
        os.chmod(tmp, 0o600)
        tmp.replace(self.record)

    def resumable_jobs(self) -> list[Path]:
        """The Hadoop jobs here that have not reached a final state (jobs/<id>/resumable): if
        their driver is gone, they stopped on the way and can be resumed."""
        return sorted(p.parent for p in self.jobs.glob(f"*/{c.RESUMABLE}"))

    def slurm_ids(self) -> list[str]:
        """The Slurm jobs that ran here: the first, then those that resumed its jobs."""
        try:
            resumed = self.read_record().get("resumed_in", [])
        except UsageError:
            resumed = []  # a listing of every job goes on; this job's own commands say why
        return [self.path.name.split(".")[0], *resumed]

    def clean(self, retention: str, *, resumable_too: bool = False) -> None:
        """Apply the retention policy once the job is over. A directory with a resumable job is
        left whole (what a resume needs) unless resumable_too (`ham cleanup --resumable`)."""
        if retention == "all":
            return
        if self.resumable_jobs() and not resumable_too:
            log.info("kept %s: a job there stopped before it finished and can be resumed",
                     self.path)
            return
        if retention == "none":
            shutil.rmtree(self.path, ignore_errors=True)
            return
        for name in c.SESSION_INTERMEDIATE:
            shutil.rmtree(self.path / name, ignore_errors=True)
        # A stopped job's held-aside output goes only with its resumable marker, when the user
        # gives the job up (resumable_too); without a marker it is output, not intermediate
        # data, and stays (as the SPANK epilog and the driver keep it).
        held = (c.HELD_OUTPUT, c.RESUMABLE) if resumable_too else ()
        for job in self.jobs.glob("*"):
            for name in (*c.JOB_INTERMEDIATE, *held):
                path = job / name
                if path.is_dir():
                    shutil.rmtree(path, ignore_errors=True)
                else:
                    path.unlink(missing_ok=True)


def user_root(shared_root: str, user: str | None = None) -> Path:
    return Path(shared_root) / (user or getpass.getuser())


def check_shared_root(shared_root: str) -> Path:
    root = Path(shared_root)
    try:
        root.stat()
    except FileNotFoundError:
        pass
    except OSError as exc:
        raise EnvironmentProblem(f"cannot access shared root {root}: {exc.strerror}; fix the "
                                 f"permissions of its parents or set shared_root") from None
    if not root.exists():
        raise EnvironmentProblem(f"shared root {root} does not exist: create it on the shared file "
                                 f"system or set shared_root (HAM_SHARED_ROOT)")
    if not root.is_dir():
        raise EnvironmentProblem(f"shared root {root} is not a directory: set shared_root to a "
                                 f"directory on the shared file system")
    if not os.access(root, os.W_OK | os.X_OK):
        raise EnvironmentProblem(f"shared root {root} is not writable by {getpass.getuser()}: ask "
                                 f"your admin or set shared_root to a directory you own")
    return root


def _claim_preset(preset: str | None, mine: Path, slurm_job_id: str,
                  empty_only: bool = False) -> Path | None:
    """The directory the SPANK plugin's prolog made for this job ($HAM_JOB_DIR), claimed by
    creating its conf/ (atomic: of two `ham run` in one job, one gets it). empty_only: only
    as the prolog leaves it (not one of an earlier cluster's job of the same id)."""
    if not preset:
        return None
    path = Path(preset)
    if path.parent != mine or path.name != slurm_job_id or path.is_symlink() or not path.is_dir():
        return None
    if empty_only and any(path.iterdir()):
        return None
    try:
        (path / c.CONF).mkdir(mode=0o700)
    except FileExistsError:
        return None
    return path


def _make_unique(mine: Path, slurm_job_id: str) -> Path:
    for n in range(1000):
        path = mine / (slurm_job_id if n == 0 else f"{slurm_job_id}.{n}")
        try:
            path.mkdir(mode=0o700)  # atomic: two `ham run` in one allocation get different dirs
            (path / c.CONF).mkdir(mode=0o700)  # or claimed meanwhile (create): the next name
        except FileExistsError:
            continue
        return path
    raise EnvironmentProblem(f"more than 1000 job directories for job {slurm_job_id} in {mine}: "
                             f"run `ham cleanup`")


def create(shared_root: str, slurm_job_id: str, stripe_count: int, stripe_size: str,
           preset: str | None = None) -> JobDir:
    """Create <root>/<user>/<jobid>[.<n>] (0700) exactly once; stripe it on Lustre.
    preset is $HAM_JOB_DIR: a directory the SPANK plugin made for the job is used as is. Where
    no job step gave one (salloc's own shell), an empty <jobid>, as the prolog makes it at
    allocation (PrologFlags=Alloc), is used too."""
    root = check_shared_root(shared_root)
    mine = user_root(str(root))
    mine.mkdir(mode=0o700, exist_ok=True)
    path = (_claim_preset(preset, mine, slurm_job_id)
            or _claim_preset(str(mine / slurm_job_id), mine, slurm_job_id, empty_only=True)
            or _make_unique(mine, slurm_job_id))
    os.chmod(path, 0o700)  # mkdir's mode is filtered by the umask
    lustre.stripe_directory(path, stripe_count, stripe_size, "job directory")
    jobdir = JobDir(path)
    for sub in (jobdir.bin, jobdir.staging, jobdir.tmp, jobdir.local, jobdir.jobs):
        sub.mkdir(mode=0o700, exist_ok=True)
    log.debug("job directory %s", path)
    return jobdir
