from __future__ import annotations

import json
import os

import pytest

from ham import jobdir, jobs
from ham.errors import EnvironmentProblem


def test_create_private_and_unique(tmp_path):
    a = jobdir.create(str(tmp_path), "42", 1, "4M")
    b = jobdir.create(str(tmp_path), "42", 1, "4M")
    assert a.path.name == "42" and b.path.name == "42.1"
    assert a.path.stat().st_mode & 0o777 == 0o700
    assert a.conf.is_dir() and a.staging.is_dir()


def test_adopts_spank_directory_once(tmp_path):
    user_dir = jobdir.user_root(str(tmp_path))
    (user_dir / "7").mkdir(parents=True)
    a = jobdir.create(str(tmp_path), "7", 1, "4M", preset=str(user_dir / "7"))
    b = jobdir.create(str(tmp_path), "7", 1, "4M", preset=str(user_dir / "7"))
    assert a.path == user_dir / "7" and b.path == user_dir / "7.1"


def test_uses_the_empty_directory_a_prolog_made_at_allocation(tmp_path):
    """salloc's own shell has no $HAM_JOB_DIR: an empty <jobid> (the prolog's, with
    PrologFlags=Alloc) is used, once; one with anything in it (a job of an earlier cluster with
    the same id) is left alone."""
    user_dir = jobdir.user_root(str(tmp_path))
    (user_dir / "7").mkdir(parents=True)
    a = jobdir.create(str(tmp_path), "7", 1, "4M")
    b = jobdir.create(str(tmp_path), "7", 1, "4M")
    assert a.path == user_dir / "7" and b.path == user_dir / "7.1"
    (user_dir / "8" / "jobs" / "job_old").mkdir(parents=True)
    assert jobdir.create(str(tmp_path), "8", 1, "4M").path == user_dir / "8.1"


def test_ignores_foreign_preset(tmp_path):
    elsewhere = tmp_path / "elsewhere" / "7"
    elsewhere.mkdir(parents=True)
    (tmp_path / "root").mkdir()
    a = jobdir.create(str(tmp_path / "root"), "7", 1, "4M", preset=str(elsewhere))
    assert a.path.parent.parent == tmp_path / "root"


def test_retention(tmp_path):
    jd = jobdir.create(str(tmp_path), "1", 1, "4M")
    (jd.hadoop_job("job_1") / "logs").mkdir(parents=True)
    (jd.hadoop_job("job_1") / "intermediate").mkdir()
    jd.clean("logs")
    assert not jd.staging.exists() and not (jd.hadoop_job("job_1") / "intermediate").exists()
    assert (jd.hadoop_job("job_1") / "logs").exists() and jd.conf.exists()
    jd.clean("none")
    assert not jd.path.exists()


@pytest.mark.parametrize("kind", ["missing", "file"])
def test_bad_shared_root(tmp_path, kind):
    root = tmp_path / "root"
    if kind == "file":
        root.write_text("")
    with pytest.raises(EnvironmentProblem, match=str(root)):
        jobdir.create(str(root), "1", 1, "4M")
    assert os.listdir(tmp_path) == ([] if kind == "missing" else ["root"])


def test_failures_name_each_failed_job_with_the_first_line_of_its_error(tmp_path):
    jd = jobdir.create(str(tmp_path), "7", 1, "4M")
    for job, state, errors in [("job_1_0001", "SUCCEEDED", []),
                               ("job_1_0002", "FAILED", ["Task t failed 4 times; last error: "
                                                         "java.io.IOException: disk full\n\tat x"]),
                               ("job_1_0003", "KILLED", [])]:
        jd.hadoop_job(job).mkdir(parents=True)
        (jd.hadoop_job(job) / "status.json").write_text(
            json.dumps({"job_id": job, "state": state, "errors": errors}))
    assert jobs.failures(jd) == [
        "job_1_0002 FAILED: Task t failed 4 times; last error: java.io.IOException: disk full",
        "job_1_0003 KILLED: no error recorded"]


def cleaning_vectors() -> dict[str, list[tuple[str, str]]]:
    """tests/vectors/job_dir_cleaning.tsv, which the C epilog's and the Java runtime's tests
    read too: case -> (path, what a session's retention "intermediate" leaves of it)."""
    from tests.conftest import REPO
    cases: dict[str, list[tuple[str, str]]] = {}
    for line in (REPO / "tests" / "vectors" / "job_dir_cleaning.tsv").read_text().splitlines():
        if line and not line.startswith("#"):
            case, path, session, _run_end = line.split("\t")
            cases.setdefault(case, []).append((path, session))
    return cases


@pytest.mark.parametrize("case", sorted(cleaning_vectors()))
def test_retention_intermediate_removes_what_the_vectors_say(tmp_path, case):
    rows = cleaning_vectors()[case]
    d = jobdir.JobDir(tmp_path / "7")
    for path, _ in rows:
        (d.path / path).parent.mkdir(parents=True, exist_ok=True)
        (d.path / path).write_text("x")
    d.clean("intermediate")
    assert {p: (d.path / p).exists() for p, _ in rows} == {p: s == "kept" for p, s in rows}
