"""What a site gives its users: the modulefile (`ham admin modulefile`: a PATH directory with
`ham` alone, the site file, nothing of the admin's own environment) and the spank setting
(`ham submit` and `ham run` ask for the SPANK plugin's --ham; where sbatch/salloc lack it, one
line naming the setting). Real modules and the real plugin: tests/integration/test_modulefiles.py."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from ham import api, sitedoc, slurm
from ham.cli import main as cli_main
from ham.errors import CommandError, EnvironmentProblem, SettingsError
from ham.settings import load


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exited:
        cli_main.main(argv)
    out, err = capsys.readouterr()
    return exited.value.code, out, err


@pytest.fixture
def bin_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """<prefix>/share/ham/bin as `pip install` makes it (an editable install has none)."""
    d = tmp_path / "prefix" / "share" / "ham" / "bin"
    d.mkdir(parents=True)
    (d / "ham").write_text("#!/bin/sh\n")
    (d / "ham").chmod(0o755)
    monkeypatch.setattr(sitedoc, "module_bin_dir", lambda: d)
    return d


@pytest.mark.parametrize("fmt", ["lua", "tcl"])
def test_modulefile_holds_the_bin_dir_and_the_site_file_only(fmt, tmp_path, bin_dir, capsys,
                                                             monkeypatch):
    """The admin's own HAM_* variables, HAM_SITE_CONFIG and user file stay out of the module,
    and so do the site file's java_home and hadoop_home (HAM reads them from the site file)."""
    site = tmp_path / "site.toml"
    site.write_text('java_home = "/site/jdk"\nhadoop_home = "/site/hadoop"\n')
    user = tmp_path / "user.toml"
    user.write_text('java_home = "/admin/jdk"\n')
    monkeypatch.setenv("HAM_USER_CONFIG", str(user))
    monkeypatch.setenv("HAM_JAVA_HOME", "/admin/env-jdk")
    monkeypatch.setenv("HAM_SITE_CONFIG", "/admin/own-site.toml")
    code, out, err = run(["admin", "modulefile", "--format", fmt, "--site-config", str(site)],
                         capsys)
    assert code == 0, err
    body = [line for line in out.splitlines() if line.strip() and not line.startswith(("--", "#"))]
    if fmt == "lua":
        assert f'prepend_path("PATH", "{bin_dir}")' in body
        assert f'setenv("HAM_SITE_CONFIG", "{site}")' in body
        assert [line for line in body if line.startswith(("setenv", "prepend_path"))] == [
            f'prepend_path("PATH", "{bin_dir}")', f'setenv("HAM_SITE_CONFIG", "{site}")']
    else:
        assert [line for line in body if line.startswith(("setenv", "prepend-path"))] == [
            f'prepend-path PATH "{bin_dir}"', f'setenv HAM_SITE_CONFIG "{site}"']
    for personal in ("/admin", "/site/jdk", "/site/hadoop", "JAVA_HOME", "HADOOP_HOME"):
        assert personal not in out


def test_modulefile_default_site_file_is_not_taken_from_the_environment(tmp_path, bin_dir,
                                                                         capsys, monkeypatch):
    own = tmp_path / "own.toml"
    own.write_text("")
    monkeypatch.setenv("HAM_SITE_CONFIG", str(own))
    code, out, err = run(["admin", "modulefile"], capsys)
    if Path("/etc/ham/ham.toml").is_file():
        assert code == 0 and 'setenv("HAM_SITE_CONFIG", "/etc/ham/ham.toml")' in out
    else:
        assert code == 2 and err.startswith("ham: error: site file /etc/ham/ham.toml does not "
                                            "exist") and err.count("\n") == 1, err
    assert str(own) not in out + err


@pytest.mark.parametrize("content,needle", [
    (None, "does not exist: write it first (`ham config template >"),
    ('shared_rot = "/x"\n', "unknown setting 'shared_rot'"),
    ("spank = 1\n", "bad value 1 for 'spank': expected true or false"),
])
def test_modulefile_of_a_missing_or_bad_site_file_is_one_line(content, needle, tmp_path,
                                                               bin_dir, capsys):
    site = tmp_path / "site.toml"
    if content is not None:
        site.write_text(content)
    code, out, err = run(["admin", "modulefile", "--site-config", str(site)], capsys)
    assert code == 2 and out == "" and err.count("\n") == 1 and needle in err, err


def test_modulefile_without_the_ham_only_directory_is_one_line(tmp_path, capsys, monkeypatch):
    """`pip install -e` installs no <prefix>/share/ham/bin: no modulefile putting another
    directory on PATH instead."""
    monkeypatch.setattr(sitedoc, "module_bin_dir", lambda: tmp_path / "none")
    site = tmp_path / "site.toml"
    site.write_text("")
    code, out, err = run(["admin", "modulefile", "--site-config", str(site)], capsys)
    assert code == 2 and out == "" and err.count("\n") == 1, err
    assert f"{tmp_path / 'none' / 'ham'} is missing" in err and "pip install" in err


def test_module_bin_wrapper_runs_the_console_script_beside_it(tmp_path):
    """launcher/module-bin/ham, installed as <prefix>/share/ham/bin/ham, runs <prefix>/bin/ham
    with its arguments, also when reached through a symbolic link."""
    wrapper = Path(__file__).resolve().parents[2] / "launcher" / "module-bin" / "ham"
    prefix = tmp_path / "prefix"
    (prefix / "share" / "ham" / "bin").mkdir(parents=True)
    (prefix / "bin").mkdir()
    installed = prefix / "share" / "ham" / "bin" / "ham"
    installed.write_bytes(wrapper.read_bytes())
    installed.chmod(0o755)
    console = prefix / "bin" / "ham"
    console.write_text('#!/bin/sh\nprintf "%s|" "$0" "$@"\n')
    console.chmod(0o755)
    (tmp_path / "link").symlink_to(installed)
    for via in (installed, tmp_path / "link"):
        out = subprocess.run([str(via), "a b", "$x"], capture_output=True, text=True,
                             check=True).stdout
        assert Path(out.split("|")[0]).resolve() == console and out.split("|")[1:3] == ["a b", "$x"]


# -- the spank setting ------------------------------------------------------------------------

SALLOC_HELP = """Usage: salloc [OPTIONS(0)...] [ : [OPTIONS(N)]] [command(0) [args(0)...]]
  -N, --nodes=N               number of nodes on which to run (N = min[-max])
      --hamster               a look-alike of another plugin

Options provided by plugins:
      --ham=[SHARED_ROOT]     Create a HAM per-job directory under SHARED_ROOT (default: the
"""


class Recorded:
    """sbatch/salloc --help answer with text; other Slurm commands are not expected."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, text: str):
        self.asked: list[list[str]] = []

        def fake(argv, *, check=True, hint="", **kw):
            assert argv[1:] == ["--help"], argv
            self.asked.append(argv)
            return subprocess.CompletedProcess(argv, 0, text, "")

        monkeypatch.setattr(slurm.proc, "run", fake)


@pytest.mark.parametrize("text,known", [
    (SALLOC_HELP, True),
    (SALLOC_HELP.replace("      --ham=[SHARED_ROOT]", "      --other"), False),
    ("      --ham                   no value\n", True),
    ("      --ham=ROOT\n", True),
    ("      --hamster\n  --no-ham\n", False),
])
def test_knows_option_reads_the_help_of_sbatch_and_salloc(monkeypatch, text, known):
    recorded = Recorded(monkeypatch, text)
    assert slurm.Slurm().knows_option("salloc", "--ham") is known
    assert recorded.asked == [["salloc", "--help"]]


def job(tmp_path: Path, site: str, **settings) -> api.Job:
    (tmp_path / "site.toml").write_text(site)
    env = {"HAM_SITE_CONFIG": str(tmp_path / "site.toml"), "HAM_USER_CONFIG": "/dev/null",
           "PATH": "/usr/bin:/bin"}
    return api.Job(["hadoop", "version"], env=env, settings=settings, nodes="2")


def sbatch_lines(script: str) -> list[str]:
    return [line.removeprefix("#SBATCH ") for line in script.splitlines()
            if line.startswith("#SBATCH ")]


def test_spank_setting_asks_sbatch_and_salloc_for_the_plugin(tmp_path, monkeypatch):
    root = tmp_path / "root"
    j = job(tmp_path, f'spank = true\nshared_root = "{root}"\n')
    assert f"--ham={root}" in sbatch_lines(j.script())
    Recorded(monkeypatch, SALLOC_HELP)
    monkeypatch.setattr(api.java_mod, "checked", lambda *a: "checked")
    argv, _ = j.allocation_argv()
    assert argv[0] == "salloc" and f"--ham={root}" in argv[:argv.index(api.sys.executable)]


def test_spank_root_is_the_shared_root_made_absolute(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    j = job(tmp_path, 'spank = true\nshared_root = "rel"\n')
    assert f"--ham={tmp_path / 'rel'}" in sbatch_lines(j.script())


@pytest.mark.parametrize("site,flags", [
    ("", {}),                                     # the default: no plugin
    ("spank = false\n", {}),
    ("spank = true\n", {"retention": "all"}),     # the epilog would remove what it keeps
    ('spank = true\nretention = "all"\n', {}),
])
def test_no_plugin_option_without_spank_or_with_retention_all(tmp_path, site, flags):
    assert not [line for line in sbatch_lines(job(tmp_path, site, **flags).script())
                if line.startswith("--ham")]


@pytest.mark.parametrize("command", ["sbatch", "salloc"])
def test_spank_without_the_plugin_is_one_line_naming_the_setting(tmp_path, monkeypatch, command):
    Recorded(monkeypatch, SALLOC_HELP.split("Options provided by plugins")[0])
    j = job(tmp_path, "spank = true\n")
    with pytest.raises(EnvironmentProblem) as e:
        j._check_spank(command)
    msg = str(e.value)
    assert "\n" not in msg
    assert msg.startswith(f"setting spank is true (site file {tmp_path / 'site.toml'}) but "
                          f"{command} has no --ham option: HAM's SPANK plugin is not loaded")
    assert msg.endswith("or set spank = false")


def test_spank_without_the_plugin_stops_salloc_before_it_runs(tmp_path, monkeypatch):
    Recorded(monkeypatch, "Usage: salloc\n")
    monkeypatch.setattr(api.java_mod, "checked", lambda *a: "checked")
    with pytest.raises(EnvironmentProblem, match="salloc has no --ham option"):
        job(tmp_path, "spank = true\n").allocation_argv()


def test_sbatch_help_that_fails_is_a_slurm_error(tmp_path, monkeypatch):
    def fail(argv, *, check=True, hint="", **kw):
        raise CommandError(argv, 1, "", "sbatch: error: s_p_parse_file: unable to read "
                                        "slurm.conf\n", hint)

    monkeypatch.setattr(slurm.proc, "run", fail)
    with pytest.raises(slurm.SlurmError, match="unable to read"):
        job(tmp_path, "spank = true\n")._check_spank("sbatch")


@pytest.mark.parametrize("raw,value", [(True, True), (False, False), ("TRUE", True),
                                       ("false", False), ("True", True)])
def test_spank_setting_values(tmp_path, raw, value):
    env = {"HAM_SITE_CONFIG": str(tmp_path / "none"), "HAM_USER_CONFIG": "/dev/null"}
    assert load(env, flags={"spank": raw})["spank"] is value


@pytest.mark.parametrize("raw", ["yes", "1", 1, ""])
def test_bad_spank_values_are_refused(tmp_path, raw):
    env = {"HAM_SITE_CONFIG": str(tmp_path / "none"), "HAM_USER_CONFIG": "/dev/null"}
    with pytest.raises(SettingsError, match="'spank': expected true or false"):
        load(env, flags={"spank": raw})


class Options:
    """sbatch/salloc that take the options listed."""

    def __init__(self, *known: str):
        self.known = set(known)

    def knows_option(self, command: str, option: str) -> bool:
        return f"{command} {option}" in self.known


def test_doctor_checks_the_plugin_where_spank_is_set(tmp_path):
    from ham import doctor

    def check(site: str, slurm: Options):
        (tmp_path / "site.toml").write_text(site)
        settings = load({"HAM_SITE_CONFIG": str(tmp_path / "site.toml"),
                         "HAM_USER_CONFIG": "/dev/null"})
        return doctor._one("spank plugin", lambda: doctor._spank(settings, slurm))

    off = check("", Options())
    assert off.ok and off.detail == "not asked for (setting spank is false, default)"
    on = check("spank = true\n", Options("sbatch --ham", "salloc --ham"))
    assert on.ok and on.detail == "sbatch and salloc take --ham (setting spank is true)"
    half = check("spank = true\n", Options("sbatch --ham"))
    assert not half.ok and "\n" not in half.detail
    assert half.detail.startswith(f"setting spank is true (site file {tmp_path / 'site.toml'}) "
                                  "but salloc has no --ham option")
