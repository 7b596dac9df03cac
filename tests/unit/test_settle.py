"""Settling a job whose driver died without ending it (launcher/ham/settle.py): the record ends
in a terminal state, the output is complete with _SUCCESS or absent, and `ham status` does it
only for Slurm jobs that are over."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ham import jobs, settle
from ham.jobdir import JobDir
from ham.slurm import JobInfo


def job_dir(tmp_path: Path, out: Path, created: bool, state: str = "RUNNING") -> JobDir:
    jd = JobDir(tmp_path / "shared" / "me" / "7")
    record = jd.jobs / "job_1_0001" / "status.json"
    record.parent.mkdir(parents=True)
    record.write_text(json.dumps({"job_id": "job_1_0001", "state": state, "errors": [],
                                  "output_dir": str(out), "output_created": created,
                                  "launcher_pids": [], "finish_time": None}))
    return jd


def record(jd: JobDir) -> dict:
    return json.loads(next(jd.jobs.glob("*/status.json")).read_text())


def test_incomplete_output_the_job_created_is_removed(tmp_path):
    out = tmp_path / "out"
    (out / "_temporary" / "0").mkdir(parents=True)
    (out / "part-r-00000").write_text("committed by a v2 task\n")
    jd = job_dir(tmp_path, out, created=True)
    assert settle.settle(jd, "the command ended (killed by SIGKILL)") == ["job_1_0001"]
    assert not out.exists()
    r = record(jd)
    assert r["state"] == "KILLED" and r["finish_time"]
    assert r["errors"][0].startswith("the command ended (killed by SIGKILL); removed its ")


def test_output_that_existed_before_keeps_all_but_temporary(tmp_path):
    out = tmp_path / "out"
    (out / "_temporary").mkdir(parents=True)
    (out / "old").write_text("someone else's\n")
    jd = job_dir(tmp_path, out, created=False)
    settle.settle(jd, "why")
    assert sorted(p.name for p in out.iterdir()) == ["old"]
    assert record(jd)["state"] == "KILLED"


def test_committed_output_is_kept_and_the_job_recorded_succeeded(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "_SUCCESS").touch()
    jd = job_dir(tmp_path, out, created=True)
    settle.settle(jd, "why")
    assert (out / "_SUCCESS").exists() and record(jd)["state"] == "SUCCEEDED"


@pytest.mark.parametrize("state", ["SUCCEEDED", "FAILED", "KILLED"])
def test_ended_jobs_are_left_alone(tmp_path, state):
    out = tmp_path / "out"
    (out / "_temporary").mkdir(parents=True)
    jd = job_dir(tmp_path, out, created=True, state=state)
    assert settle.settle(jd, "why") == []
    assert out.exists() and record(jd)["state"] == state


class FakeSlurm:
    def __init__(self, info: JobInfo | None):
        self.info = info

    def job(self, job_id: str) -> JobInfo | None:
        return self.info


@pytest.mark.parametrize("info, settled", [
    (JobInfo("7", "CANCELLED", 137), True),
    (JobInfo("7", "RUNNING"), False),
    (None, False),  # Slurm did not answer (or forgot the job): never guess
])
def test_ham_status_settles_only_jobs_slurm_says_are_over(tmp_path, info, settled):
    out = tmp_path / "out"
    (out / "_temporary").mkdir(parents=True)
    jd = job_dir(tmp_path, out, created=True)
    summary = jobs.summarize(jd, FakeSlurm(info), 0)
    assert (summary.hadoop_jobs[0]["state"] == "KILLED") is settled
    assert out.exists() is not settled
