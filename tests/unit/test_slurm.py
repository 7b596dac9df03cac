"""How HAM reads Slurm's answers: the line of a refusal that says why, a scancel that did
nothing, a job that ended without completing, an allocation a shell outlived. Slurm's
commands are replaced by their recorded answers (proc.run), the rest is HAM's."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from ham import api, follow, session, slurm
from ham.errors import CommandError, SlurmError, UsageError
from ham.slurm import JobInfo, JobRequest, Slurm


def answers(monkeypatch, code: int, stdout: str = "", stderr: str = "") -> list[list[str]]:
    """Every Slurm command answers (code, stdout, stderr); the argvs asked are recorded."""
    asked: list[list[str]] = []

    def run(argv, *, check=True, hint="", **kw):
        asked.append(argv)
        if check and code:
            raise CommandError(argv, code, stdout, stderr, hint)
        return subprocess.CompletedProcess(argv, code, stdout, stderr)

    monkeypatch.setattr(slurm.proc, "run", run)
    return asked


def test_a_refusal_shows_slurms_reason_without_the_installation_hint(monkeypatch):
    answers(monkeypatch, 1, stderr="sbatch: unrecognized option '--bogus'\n"
                                   'Try "sbatch --help" for more information\n')
    with pytest.raises(SlurmError) as e:
        Slurm().submit("#!/bin/bash\n")
    assert "unrecognized option '--bogus'" in str(e.value) and "SLURM_CONF" not in str(e.value)
    answers(monkeypatch, 1, stderr="sbatch: error: Batch job submission failed: Requested node "
                                   "configuration is not available\n")
    with pytest.raises(SlurmError, match="node configuration is not available$"):
        Slurm().submit("#!/bin/bash\n")


def test_an_unreachable_slurm_gets_the_hint(monkeypatch):
    answers(monkeypatch, 1, stderr="squeue: error: Unable to contact slurm controller "
                                   "(connect failure)\n")
    with pytest.raises(SlurmError, match=r"connect failure\); is Slurm installed and SLURM_CONF"):
        Slurm().partitions()


def test_scancel_of_an_unknown_job_is_an_error(monkeypatch):
    """Slurm 22.05's scancel exits 0 for a job id it does not know and says so on stderr."""
    answers(monkeypatch, 0, stderr="scancel: error: Kill job error on job id 99999: Invalid job "
                                   "id specified\n")
    with pytest.raises(SlurmError, match="scancel 99999: .*Invalid job id specified"):
        Slurm().cancel("99999")
    answers(monkeypatch, 0, stderr="scancel: Terminating job 8\nscancel: error: Kill job error "
                                   "on job id 8: Job/step already completing or completed\n")
    Slurm().cancel("8")  # nothing left to cancel: a WARNING, not a failure
    answers(monkeypatch, 0, stderr="scancel: Terminating job 7\n")
    Slurm().cancel("7")


@pytest.mark.parametrize("state,code,expected", [("COMPLETED", 0, 0), ("FAILED", 3, 3),
                                                 ("CANCELLED", 0, 1), ("FAILED", 0, 1),
                                                 ("TIMEOUT", 0, 1), ("NODE_FAIL", 0, 1)])
def test_wait_fails_for_a_job_that_did_not_complete(monkeypatch, state, code, expected):
    """`ham submit --wait` exited 0 for a job cancelled, or one whose output file could not be
    opened (sacct: FAILED, ExitCode 0:53)."""
    ended = JobInfo("7", state, code)
    monkeypatch.setattr(follow, "follow", lambda *a, **kw: ended)
    job = api.Job(["hadoop", "version"], request=JobRequest(nodes="1"))
    job.job_id = "7"
    assert job.wait(stream=None, progress=lambda line: None) == expected


class Queue:
    def __init__(self, state: str | None):
        self.state = state

    def job(self, job_id: str) -> JobInfo | None:
        return JobInfo(job_id, self.state) if self.state else None


@pytest.mark.parametrize("state", [None, "COMPLETED", "CANCELLED", "PENDING"])
def test_a_shell_that_outlived_its_allocation_is_told(state):
    """SLURM_JOB_ID of an allocation that ended: no job directory, no runners that never start
    (the job hung at map 0%); RUNNING is the one state a job's shell runs in."""
    with pytest.raises(UsageError, match="SLURM_JOB_ID=99 is not a running Slurm allocation"):
        session._allocation_id({"SLURM_JOB_ID": "99"}, Queue(state))
    assert session._allocation_id({"SLURM_JOB_ID": "99"}, Queue("RUNNING")) == "99"


def test_env_cleanup_removes_only_a_ham_job_directory(tmp_path: Path):
    """`ham env --cleanup` applies the retention policy to $HAM_JOB_DIR: a directory that is not
    a job's (no ham.json) once lost its tmp/ and staging/ (and all of it with retention none)."""
    mine = tmp_path / "myproject"
    (mine / "tmp").mkdir(parents=True)
    (mine / "tmp" / "data.txt").write_text("precious")
    r = subprocess.run([sys.executable, "-m", "ham", "env", "--cleanup", "--shell", "bash"],
                       capture_output=True, text=True,
                       env={**os.environ, "HAM_JOB_DIR": str(mine), "HAM_RETENTION": "none",
                            "HAM_SHARED_ROOT": str(tmp_path)})
    assert r.returncode == 2 and "is not a HAM job directory" in r.stderr, r.stderr
    assert r.stderr.count("\n") == 1 and not r.stdout
    assert (mine / "tmp" / "data.txt").read_text() == "precious"
