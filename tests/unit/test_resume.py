"""The launcher's side of resume (launcher/ham/resume.py, settle.py, jobdir.py, jobs.py): a
job that lost its driver is settled resumable with its output held aside, a directory with a
resumable job is kept by the retention policy, the files a command names are fingerprinted,
a resumed session answers to both Slurm jobs, and `ham submit --resume` refuses in one line."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from ham import contract, jobs, resume, settle
from ham.errors import UsageError
from ham.jobdir import JobDir
from ham.slurm import JobInfo


def stopped_job(tmp_path: Path, slurm_id: str = "7", state: str = "RUNNING") -> tuple[JobDir, Path]:
    jd = JobDir(tmp_path / "shared" / os.environ.get("USER", "root") / slurm_id)
    job = jd.jobs / "job_1_0001"
    (job / "intermediate" / "attempt_1_0001_m_000000_0").mkdir(parents=True)
    (jd.path / "staging").mkdir()
    (job / contract.RESUMABLE).write_text("job_1_0001\n")
    out = tmp_path / "out"
    (out / "_temporary" / "1").mkdir(parents=True)
    (job / contract.STATUS).write_text(json.dumps({
        "job_id": "job_1_0001", "state": state, "errors": [], "output_dir": str(out),
        "output_created": True, "launcher_pids": [], "finish_time": None}))
    jd.write_record(slurm_job_id=slurm_id, framework="ham")
    return jd, job


def test_settle_holds_the_output_of_a_resumable_job(tmp_path):
    jd, job = stopped_job(tmp_path)
    settle.settle(jd, "the command ended (killed by SIGKILL)")
    record = json.loads((job / contract.STATUS).read_text())
    assert record["state"] == "KILLED" and record["resumable"], record
    assert not (tmp_path / "out").exists()
    assert (job / contract.HELD_OUTPUT / "_temporary" / "1").is_dir()
    assert (job / contract.RESUMABLE).exists()
    assert "it can be resumed" in record["errors"][0]


def test_settle_of_a_committed_resumable_job_ends_it(tmp_path):
    jd, job = stopped_job(tmp_path)
    (tmp_path / "out" / "_SUCCESS").touch()
    settle.settle(jd, "why")
    record = json.loads((job / contract.STATUS).read_text())
    assert record["state"] == "SUCCEEDED" and not record["resumable"]
    assert not (job / contract.RESUMABLE).exists()


@pytest.mark.parametrize("retention", ["logs", "none"])
def test_retention_keeps_a_directory_with_a_resumable_job(tmp_path, retention):
    jd, job = stopped_job(tmp_path)
    jd.clean(retention)
    assert (jd.path / "staging").is_dir() and (job / "intermediate").is_dir()
    jd.clean(retention, resumable_too=True)
    assert not (jd.path / "staging").exists() and not (job / "intermediate").exists()
    assert not (job / contract.RESUMABLE).exists()


def test_a_resumed_session_answers_to_both_slurm_jobs(tmp_path):
    jd, _ = stopped_job(tmp_path)
    jd.write_record(resumed_in=["9"])
    root = str(tmp_path / "shared")
    assert [d.path for d in jobs.job_dirs(root, ["9"])] == [jd.path]
    assert [d.path for d in jobs.job_dirs(root, ["7"])] == [jd.path]
    assert jd.slurm_ids() == ["7", "9"]


class FakeSlurm:
    """Slurm's answers for the Slurm jobs of these tests (unit tests: no cluster)."""

    def __init__(self, states: dict[str, str]):
        self.states = states

    def job(self, job_id: str) -> JobInfo | None:
        state = self.states.get(job_id)
        return None if state is None else JobInfo(job_id, state, 0 if state != "RUNNING" else None,
                                                  "node1", "0:10", "ham")


def test_find_settles_and_names_the_stopped_job(tmp_path):
    jd, job = stopped_job(tmp_path)
    found = resume.find(str(tmp_path / "shared"), "7", FakeSlurm({"7": "TIMEOUT"}))
    assert found.job == job and found.hadoop_id == "job_1_0001"
    assert json.loads((job / contract.STATUS).read_text())["state"] == "KILLED"
    assert found.command() == ["hadoop", contract.RESUME_CLASS, str(job)]
    assert resume.find(str(tmp_path / "shared"), "job_1_0001", FakeSlurm({})).job == job


@pytest.mark.parametrize("case, message", [
    ("running", "is still running as Slurm job 7"),
    ("succeeded", "nothing to resume in 7 (job_1_0001 SUCCEEDED)"),
    ("unknown", "no HAM job 8 under"),
])
def test_find_refuses_in_one_line(tmp_path, case, message):
    jd, job = stopped_job(tmp_path)
    slurm = FakeSlurm({"7": "RUNNING" if case == "running" else "COMPLETED"})
    if case == "succeeded":
        (job / contract.RESUMABLE).unlink()
        record = json.loads((job / contract.STATUS).read_text())
        (job / contract.STATUS).write_text(json.dumps({**record, "state": "SUCCEEDED"}))
    with pytest.raises(UsageError) as e:
        resume.find(str(tmp_path / "shared"), "8" if case == "unknown" else "7", slurm)
    assert message in str(e.value) and "\n" not in str(e.value)


def test_files_the_command_names_are_fingerprinted_and_changes_found(tmp_path):
    (tmp_path / "app.jar").write_bytes(b"jar")
    (tmp_path / "conf.xml").write_text("<configuration/>")
    (tmp_path / "m.py").write_text("print()")
    cmd = ["hadoop", "jar", "app.jar", "-conf", "conf.xml", "-files", "m.py,missing.py",
           "wordcount", "in", "out"]
    prints = resume.file_fingerprints(cmd, str(tmp_path))
    assert sorted(Path(p).name for p in prints) == ["app.jar", "conf.xml", "m.py"]
    assert resume.changed_files(prints) == []
    (tmp_path / "app.jar").write_bytes(b"another jar")
    (tmp_path / "m.py").unlink()
    assert sorted(resume.changed_files(prints)) == [f"{tmp_path}/app.jar changed",
                                                    f"{tmp_path}/m.py is gone"]
    assert resume.file_fingerprints(["bash", "-c", "true"], str(tmp_path)) == {}


def test_changed_jar_refuses_the_resume(tmp_path):
    jd, job = stopped_job(tmp_path)
    (tmp_path / "app.jar").write_bytes(b"jar")
    jd.write_record(command_files=resume.file_fingerprints(
        ["hadoop", "jar", "app.jar"], str(tmp_path)))
    (tmp_path / "app.jar").write_bytes(b"rebuilt")
    with pytest.raises(UsageError, match=r"cannot resume job_1_0001: .*app.jar changed since "
                                         r"the job started"):
        resume.check(resume.Stopped(jd, job), {}, runtime=False)


def test_changed_conf_file_refuses_the_resume(tmp_path):
    """A `-conf` file edited after the job started: one line naming it (and only it)."""
    jd, job = stopped_job(tmp_path)
    (tmp_path / "app.jar").write_bytes(b"jar")
    (tmp_path / "site.xml").write_text("<configuration/>")
    jd.write_record(command_files=resume.file_fingerprints(
        ["hadoop", "jar", "app.jar", "-conf", "site.xml", "wordcount", "in", "out"],
        str(tmp_path)))
    resume.check(resume.Stopped(jd, job), {}, runtime=False)  # unchanged: no refusal
    (tmp_path / "site.xml").write_text("<configuration><property><name>mapreduce.job.reduces"
                                       "</name><value>3</value></property></configuration>")
    with pytest.raises(UsageError) as e:
        resume.check(resume.Stopped(jd, job), {}, runtime=False)
    message = str(e.value)
    assert message.startswith(f"cannot resume job_1_0001: {tmp_path}/site.xml changed since the "
                              f"job started"), message
    assert "app.jar" not in message and "\n" not in message


def test_status_lists_a_resumed_session_once_under_both_slurm_jobs(tmp_path):
    """`ham status 7 9` after job 7 was resumed in Slurm job 9: one row, '7,9', with the state
    of the latest Slurm job (not a second row for 9 without a directory)."""
    jd, _ = stopped_job(tmp_path)
    jd.write_record(resumed_in=["9"])
    rows = jobs.summaries(str(tmp_path / "shared"), FakeSlurm({"7": "TIMEOUT", "9": "COMPLETED"}),
                          ["7", "9"], 0.0)
    assert [(jobs.ids_text(r), r.slurm_state) for r in rows] == [("7,9", "COMPLETED")]
