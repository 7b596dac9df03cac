"""Bad input ends as one `ham: error:` line and exit code 2, never a traceback (audit cases);
a group without a subcommand prints its help; a bad HAM_LOG_LEVEL is a warning."""

from __future__ import annotations

import getpass
import os
import re
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from ham import history, report
from ham.cli import main as cli_main
from ham.cli import status_cmd
from ham.errors import UsageError
from ham.jobdir import JobDir


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """`ham ARGV` in this process: (exit code, stdout, stderr). A traceback fails the test."""
    with pytest.raises(SystemExit) as exited:
        cli_main.main(argv)
    out, err = capsys.readouterr()
    return exited.value.code, out, err


def one_error_line(err: str, needle: str) -> None:
    assert err.count("\n") == 1 and err.startswith("ham: error: ") and needle in err, err


def ham(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "ham", *args], capture_output=True, text=True,
                          env={**os.environ, **(env or {})})


class NoSlurm:
    """Slurm knows no job: nothing here reaches the cluster."""

    def job(self, job_id: str) -> None:
        return None


# 1. ham report -o

STATUS = {"job_id": "job_1_0001", "name": "wc", "state": "SUCCEEDED", "start_time": 0,
          "finish_time": 3000, "maps": {"total": 1}, "reduces": {"total": 0},
          "attempts": [{"id": "attempt_1_0001_m_000000_0", "type": "MAP", "node": "n1",
                        "state": "SUCCEEDED", "start": 0, "finish": 2000}]}


@pytest.fixture
def one_job(monkeypatch: pytest.MonkeyPatch) -> None:
    """`ham report 7` finds one Hadoop job, without Slurm or a job directory."""
    monkeypatch.setattr(status_cmd, "Slurm", NoSlurm)
    monkeypatch.setattr(status_cmd.jobs, "summaries",
                        lambda *_: [SimpleNamespace(hadoop_jobs=[STATUS])])


def test_report_png_path_is_the_file_written(tmp_path: Path) -> None:
    assert report.png_path(str(tmp_path), "job_1") == tmp_path / "ham-job_1.png"
    assert report.png_path(str(tmp_path / "t"), "job_1") == tmp_path / "t.png"
    assert report.png_path(str(tmp_path / "{job}.PNG"), "job_1") == tmp_path / "job_1.PNG"
    with pytest.raises(UsageError, match=r"-o keep\.txt: .* ending in \.png"):
        report.png_path("keep.txt", "job_1")


@pytest.mark.parametrize("name,written", [("t", "t.png"), (".", "ham-job_1_0001.png"),
                                          ("{job}.png", "job_1_0001.png")])
def test_report_prints_the_file_it_wrote(name: str, written: str, tmp_path: Path, one_job: None,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(["report", "7", "-o", str(tmp_path / name)], capsys)
    assert code == 0 and out == f"{tmp_path / written}\n", err
    assert (tmp_path / written).stat().st_size > 0
    assert sorted(p.name for p in tmp_path.iterdir()) == [written]


def test_report_refuses_another_format(tmp_path: Path, one_job: None,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    keep = tmp_path / "keep.txt"
    keep.write_text("mine")
    code, out, err = run(["report", "7", "-o", str(keep)], capsys)
    assert code == 2 and out == ""
    one_error_line(err, "writes PNG images")
    assert keep.read_text() == "mine"


def test_report_into_a_missing_directory_is_one_line(tmp_path: Path, one_job: None,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(["report", "7", "-o", str(tmp_path / "nope" / "x.png")], capsys)
    assert code == 2 and out == ""
    one_error_line(err, f"cannot write {tmp_path / 'nope' / 'x.png'}: No such file or directory")


# 2. ham history-server --port/--bind/--dir

@pytest.fixture
def no_server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An existing shared root (so that bad input gets past it), and no Java started."""
    monkeypatch.setenv("HAM_SHARED_ROOT", str(tmp_path))

    def spawn(*_: object, **__: object) -> None:
        raise AssertionError("bad input started the JobHistoryServer")

    monkeypatch.setattr(history.proc, "spawn", spawn)


@pytest.mark.parametrize("port", ["-1", "0", "70000"])
def test_history_server_port_out_of_range(port: str, no_server: None,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(["history-server", "--port", port], capsys)
    assert code == 2
    one_error_line(err, "'--port'")
    assert "1<=x<=65535" in err


def test_history_server_unknown_bind_address(no_server: None,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(["history-server", "--bind", "not a host"], capsys)
    assert code == 2
    one_error_line(err, "--bind not a host: ")


def test_history_server_dir_that_cannot_be_made(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("")
    home = tmp_path / "file" / "history"
    with pytest.raises(UsageError, match=re.escape(f"{home / 'conf'}: Not a directory: choose "
                                                   f"another directory with --dir")):
        history.write_conf(history.Server(home, tmp_path, None, "127.0.0.1", 19888))


# 3. a ham.json that is not a record

@pytest.mark.parametrize("text", ["[]", '"x"', "{not json"])
def test_a_job_record_that_is_not_an_object_is_refused(text: str, tmp_path: Path) -> None:
    jd = JobDir(tmp_path)
    assert jd.read_record() == {}  # not written yet
    jd.record.write_text(text)
    with pytest.raises(UsageError, match=re.escape(f"{jd.record} is not a HAM job record")):
        jd.read_record()
    with pytest.raises(UsageError):
        jd.write_record(exit_code=0)
    assert jd.record.read_text() == text  # not overwritten


def test_status_of_a_job_with_a_bad_record_is_one_line(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / getpass.getuser() / "102").mkdir(parents=True)
    (tmp_path / getpass.getuser() / "102" / "ham.json").write_text("[]")
    monkeypatch.setenv("HAM_SHARED_ROOT", str(tmp_path))
    monkeypatch.setattr(status_cmd, "Slurm", NoSlurm)
    code, out, err = run(["status", "102"], capsys)
    assert code == 2
    one_error_line(err, "ham.json is not a HAM job record")


# 4. HAM_LOG_LEVEL

@pytest.mark.parametrize("value", ["basic_format", "bogus", "NOTSET"])
def test_unknown_log_level_is_a_warning(value: str) -> None:
    r = ham("config", "show", env={"HAM_LOG_LEVEL": value})
    assert r.returncode == 0 and "shared_root" in r.stdout
    assert r.stderr == (f"ham: WARNING: HAM_LOG_LEVEL={value} is ignored: use one of debug, info, "
                        f"warning, error, critical\n")


def test_known_log_level_any_case() -> None:
    r = ham("config", "show", env={"HAM_LOG_LEVEL": "Error"})
    assert r.returncode == 0 and r.stderr == ""


# 5. a group without its subcommand

@pytest.mark.parametrize("group", [[], ["config"], ["admin"]])
def test_group_without_subcommand_prints_its_help(group: list[str]) -> None:
    r = ham(*group)
    assert r.returncode == 0 and r.stderr == ""
    assert r.stdout == ham(*group, "--help").stdout


def test_report_of_several_hadoop_jobs_writes_one_file_each(tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch,
                                                             capsys: pytest.CaptureFixture[str]):
    """A Slurm job that ran two Hadoop jobs, `-o t.png` without {job}: each was written over
    the one before; now each gets its own file, named by its job id."""
    second = {**STATUS, "job_id": "job_1_0002"}
    monkeypatch.setattr(status_cmd, "Slurm", NoSlurm)
    monkeypatch.setattr(status_cmd.jobs, "summaries",
                        lambda *_: [SimpleNamespace(hadoop_jobs=[STATUS, second])])
    code, out, err = run(["report", "7", "-o", str(tmp_path / "t.png")], capsys)
    assert code == 0, err
    assert out.split() == [str(tmp_path / "t-job_1_0001.png"), str(tmp_path / "t-job_1_0002.png")]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t-job_1_0001.png", "t-job_1_0002.png"]
