"""CLI contracts: every command has help; errors are one line with the right exit code."""

from __future__ import annotations

import os
import subprocess
import sys

import click
import pytest
from click.testing import CliRunner

from ham.cli.main import cli


def all_commands(group: click.Group, prefix=()):
    for name, cmd in group.commands.items():
        yield (*prefix, name), cmd
        if isinstance(cmd, click.Group):
            yield from all_commands(cmd, (*prefix, name))


@pytest.mark.parametrize("path", [p for p, _ in all_commands(cli)], ids=" ".join)
def test_every_command_has_help(path):
    result = CliRunner().invoke(cli, [*path, "--help"])
    assert result.exit_code == 0, result.output
    assert "Usage:" in result.output and len(result.output.splitlines()) >= 3


def ham(*args: str, env: dict | None = None) -> subprocess.CompletedProcess[str]:
    full = {**os.environ, **(env or {})}
    return subprocess.run([sys.executable, "-m", "ham", *args], capture_output=True, text=True, env=full)


def test_unknown_setting_is_one_line_exit_2(tmp_path):
    cfg = tmp_path / "user.toml"
    cfg.write_text('shared_rot = "/x"\n')
    r = ham("config", "show", env={"HAM_USER_CONFIG": str(cfg)})
    assert r.returncode == 2
    assert r.stderr.count("\n") == 1 and "unknown setting 'shared_rot'" in r.stderr
    assert "Traceback" not in r.stderr


def test_config_show_names_sources(tmp_path):
    cfg = tmp_path / "site.toml"
    cfg.write_text('partition = "gpu"\n')
    r = ham("config", "show", env={"HAM_SITE_CONFIG": str(cfg), "HAM_QOS": "high"})
    assert r.returncode == 0
    lines = {line.split()[0]: line for line in r.stdout.splitlines()}
    assert '"gpu"' in lines["partition"] and f"site file {cfg}" in lines["partition"]
    assert "environment HAM_QOS" in lines["qos"]


@pytest.mark.parametrize("args,needle", [
    (["submit", "-N", "zero", "--", "true"], "node count"),
    (["submit", "-t", "forever", "--", "true"], "Slurm time"),
    (["submit", "--mem", "lots", "--", "true"], "memory size"),
])
def test_nonsense_requests_are_refused(args, needle):
    r = ham(*args)
    assert r.returncode == 2 and needle in r.stderr and "Traceback" not in r.stderr


def test_version():
    r = ham("--version")
    assert r.returncode == 0 and "ham" in r.stdout


def test_admin_guide_settings_reference_is_generated_from_schema():
    from pathlib import Path

    from ham import sitedoc

    guide = (Path(__file__).resolve().parents[2] / "docs" / "admin.md").read_text()
    block = guide.split("<!-- settings:start")[1].split("-->", 1)[1].split("<!-- settings:end -->")[0]
    assert block.strip() == sitedoc.reference_table().strip(), \
        "docs/admin.md settings table drifted: regenerate it with `ham config reference`"


@pytest.mark.parametrize("shell,needle", [("bash", "complete -o nosort -F"), ("zsh", "compdef"),
                                          ("fish", "complete --no-files --command ham")])
def test_shell_completion_scripts(shell, needle):
    r = subprocess.run([sys.executable, "-m", "ham"], capture_output=True, text=True,
                       env={**os.environ, "_HAM_COMPLETE": f"{shell}_source"})
    assert needle in r.stdout


def test_allocations_survive_a_failed_node():
    from ham.api import Job
    from ham.slurm import JobRequest
    job = Job(["hadoop", "version"], request=JobRequest(nodes="3"))
    assert "#SBATCH --no-kill" in job.script().splitlines()
    argv, _ = job.allocation_argv()
    assert argv[0] == "salloc" and "--no-kill" in argv[:argv.index("-m")]


@pytest.mark.parametrize("extra,later", [((), False), (("--exclusive",), False),
                                         (("--dependency=afterok:7",), True), (("-d", "after:7"), True),
                                         (("--begin=now+1hour",), True)])
def test_jobs_that_wait_are_known(extra, later):
    from ham.slurm import JobRequest
    assert JobRequest(extra=extra).starts_later() is later


@pytest.mark.parametrize("time,seconds", [("", None), ("UNLIMITED", None), ("2", 120),
                                          ("2:30", 150), ("90:00", 5400), ("1:00:00", 3600),
                                          ("1-0", 86400), ("1-2:03", 93780), ("0-0:2:59", 179)])
def test_time_limits_in_slurm_syntax(time, seconds):
    from ham.slurm import time_limit_seconds
    assert time_limit_seconds(time) == seconds


@pytest.mark.parametrize("time,why", [("abc", "not a Slurm time"), ("1:2:3:4", "not a Slurm time"),
                                      ("1:99:00", "go up to 59"), ("2:60", "go up to 59"),
                                      ("1-24", "up to 23"), ("1-2:99", "go up to 59")])
def test_time_limits_slurm_would_misread_are_refused(time, why):
    """Slurm reads 1:99:00 as 2:39:00 without a word; `-t` and time_limit refuse it."""
    from ham.slurm import time_limit_seconds
    with pytest.raises(ValueError, match=why):
        time_limit_seconds(time)
    r = CliRunner().invoke(cli, ["submit", "--dry-run", "-t", time, "--", "hadoop", "version"])
    assert r.exit_code == 2 and why in r.output


def test_node_range_upside_down_is_refused():
    r = CliRunner().invoke(cli, ["submit", "--dry-run", "-N", "4-2", "--", "hadoop", "version"])
    assert r.exit_code == 2 and "minimum node count is above the maximum" in r.output


@pytest.mark.parametrize("time,warned", [("", True), ("0", True), ("3", True), ("2:59", True),
                                         ("2", False), ("1:30", False), ("1", False),
                                         ("1:00:00", True)])
def test_time_limit_warning_only_where_it_cannot_come_at_once(time, warned, caplog):
    """Slurm may send the --signal warning up to 60 s early: a limit under 3 minutes asks for
    none (it could stop the job in its first seconds), and says so in one WARNING line, in the
    script `ham submit` sends as in `--dry-run`'s. Slurm rounds seconds up to a minute (2:59 is
    3 minutes) and takes 0 for no limit."""
    from ham.api import WARNING_SIGNAL, Job
    from ham.slurm import JobRequest
    job = Job(["hadoop", "version"], request=JobRequest(nodes="1", time=time))
    assert (f"#SBATCH {WARNING_SIGNAL}" in job.script().splitlines()) == warned
    said = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert len(said) == (0 if warned else 1)
    minutes = {"2": 2, "1:30": 2, "1": 1}.get(time)  # as Slurm rounds them
    assert all(f"a time limit of {minutes} min is too short" in m and "-t 3 or more" in m
               for m in said)
