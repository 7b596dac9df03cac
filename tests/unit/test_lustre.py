"""The launcher's side of lustre://: settings and their syntax, what `ham` renders for each
file system, the lustre root checks, and `lfs setstripe` of the job directory, only on Lustre
(the recording stand-in tests/fake-lfs/lfs on PATH; HAM_LUSTRE_MOUNTS says what is Lustre)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from ham import contract as c
from ham import fspaths, jobconf, jobdir, lustre, nohdfs, settings
from ham.errors import EnvironmentProblem, SettingsError
from tests.conftest import REPO

FAKE_LFS = REPO / "tests" / "fake-lfs"


def load(tmp_path: Path, **env: str) -> settings.Settings:
    return settings.load({"HAM_SITE_CONFIG": str(tmp_path / "none.toml"),
                          "HAM_USER_CONFIG": str(tmp_path / "none.toml"), **env})


def test_defaults_file_system_and_layouts(tmp_path):
    s = load(tmp_path)
    assert s["filesystem"] == "file" and s["lustre_root"] == ""
    assert s["map_output_stripe"] == "1:1M" and s["output_stripe"] == "" and s["file_stripes"] == ""
    s = load(tmp_path, HAM_FILESYSTEM="lustre", HAM_OUTPUT_STRIPE="4:16m",
             HAM_FILE_STRIPES=" part-*=2:4M , /big/*=-1:64M", HAM_STRIPE_SIZE="1m")
    assert (s["output_stripe"], s["file_stripes"], s["stripe_size"]) == \
        ("4:16M", "part-*=2:4M,/big/*=-1:64M", "1M")


@pytest.mark.parametrize("key,value", [
    ("HAM_FILESYSTEM", "hdfs"), ("HAM_OUTPUT_STRIPE", "4"), ("HAM_OUTPUT_STRIPE", "0:1M"),
    ("HAM_OUTPUT_STRIPE", "4:1000"), ("HAM_MAP_OUTPUT_STRIPE", "x:1M"),
    ("HAM_FILE_STRIPES", "part-*"), ("HAM_FILE_STRIPES", "=1:1M"), ("HAM_FILE_STRIPES", "a="),
    ("HAM_STRIPE_SIZE", "100K"),
])
def test_bad_layouts_are_one_line_errors(tmp_path, key, value):
    with pytest.raises(SettingsError, match=f"environment {key}: bad value"):
        load(tmp_path, **{key: value})


def test_bad_settings_through_the_cli_exit_2(tmp_path):
    r = subprocess.run([sys.executable, "-m", "ham", "config", "show"], capture_output=True,
                       text=True, env={**os.environ, "HAM_OUTPUT_STRIPE": "four"})
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "Traceback" not in r.stderr
    assert "output_stripe" in r.stderr


def test_rendered_configuration_per_file_system(tmp_path):
    jd = jobdir.JobDir(tmp_path / "job")
    file_mode = load(tmp_path)
    core = jobconf.core_site(file_mode, jd)
    assert core["fs.defaultFS"] == "file:///"
    assert core["io.file.buffer.size"] == 131072  # not Hadoop's 4 KB (bench/ioprofile)
    # Off: a runner's every local stream close aggregated into its thread's context (0.6 ms a map)
    assert core["fs.iostatistics.thread.level.enabled"] == "false"
    assert core["fs.lustre.impl"] == c.LUSTRE_FS_CLASS
    assert core["fs.AbstractFileSystem.lustre.impl"] == c.LUSTRE_AFS_CLASS
    assert core["fs.file.impl"] == c.LOCAL_FS_CLASS  # no chmod process per file (client, driver)
    assert core["fs.AbstractFileSystem.file.impl"] == c.LOCAL_AFS_CLASS  # nor through FileContext
    assert c.LUSTRE_ROOT not in core and c.LUSTRE_FILE_STRIPES not in core
    lustre_mode = load(tmp_path, HAM_FILESYSTEM="lustre", HAM_LUSTRE_ROOT=str(tmp_path),
                       HAM_FILE_STRIPES="part-*=2:4M", HAM_OUTPUT_STRIPE="4:16M")
    core = jobconf.core_site(lustre_mode, jd)
    assert core["fs.defaultFS"] == "lustre:///"
    assert core["fs.hdfs.impl"] == nohdfs.REFUSING_FS  # hdfs:// refused with lustre:/// too
    assert core[c.LUSTRE_ROOT] == str(tmp_path)
    assert core[c.LUSTRE_FILE_STRIPES] == "part-*=2:4M"
    mapred = jobconf.mapred_site(lustre_mode, jd, framework="ham", driver_host="h", java="j",
                                 runner_classpath="cp")
    assert mapred[c.LUSTRE_OUTPUT_STRIPE] == "4:16M"
    assert mapred[c.LUSTRE_MAP_OUTPUT_STRIPE] == "1:1M"
    # HAM's own directories stay plain paths on the mount (the runtime reads them as file://).
    assert mapred["yarn.app.mapreduce.am.staging-dir"] == str(jd.staging)
    assert c.LUSTRE_OUTPUT_STRIPE not in jobconf.mapred_site(
        file_mode, jd, framework="ham", driver_host="h", java="j", runner_classpath="cp")


def test_lustre_root_is_needed_and_must_be_a_directory(tmp_path):
    assert fspaths.check_lustre_root(load(tmp_path)) is None
    with pytest.raises(EnvironmentProblem, match="filesystem = lustre needs lustre_root"):
        fspaths.check_lustre_root(load(tmp_path, HAM_FILESYSTEM="lustre"))
    with pytest.raises(EnvironmentProblem, match="is not a directory"):
        fspaths.check_lustre_root(load(tmp_path, HAM_FILESYSTEM="lustre",
                                       HAM_LUSTRE_ROOT=str(tmp_path / "nope")))
    assert fspaths.check_lustre_root(load(tmp_path, HAM_FILESYSTEM="lustre",
                                          HAM_LUSTRE_ROOT=str(tmp_path))) == tmp_path


def test_lustre_home_is_made_when_its_parent_is_there(tmp_path):
    r = fspaths.Resolver("lustre", str(tmp_path), ".", "alice")
    assert "ask your admin to create" in fspaths.ensure_lustre_home(r)
    (tmp_path / "user").mkdir()
    assert fspaths.ensure_lustre_home(r) is None
    assert (tmp_path / "user" / "alice").stat().st_mode & 0o777 == 0o700


@pytest.fixture
def fake_lfs(tmp_path, monkeypatch) -> Path:
    record = tmp_path / "lfs.calls"
    monkeypatch.setenv("PATH", f"{FAKE_LFS}:{os.environ['PATH']}")
    monkeypatch.setenv("LFS_RECORD", str(record))
    return record


def calls(record: Path) -> list[str]:
    return record.read_text().splitlines() if record.exists() else []


def test_job_directory_is_striped_on_lustre_only(tmp_path, fake_lfs, monkeypatch, caplog):
    shared = tmp_path / "shared"
    shared.mkdir()
    caplog.set_level("INFO")
    a = jobdir.create(str(shared), "7", 2, "8M")
    assert calls(fake_lfs) == []  # not Lustre: no lfs call at all, one INFO line
    assert [r.message for r in caplog.records if "not on Lustre" in r.message] == [
        f"{a.path} is not on Lustre: job directory stripe layout 2:8M not applied"]
    monkeypatch.setenv(c.ENV_LUSTRE_MOUNTS, f"/nowhere:{shared}")
    b = jobdir.create(str(shared), "8", -1, "4M")
    assert calls(fake_lfs) == [f"setstripe -c -1 -S 4M {b.path}"]
    assert lustre.is_lustre(b.path / "conf") and not lustre.is_lustre(tmp_path)


def test_the_stand_in_lfs_remembers_layouts(tmp_path, fake_lfs):
    d = tmp_path / "d"
    d.mkdir()
    subprocess.run(["lfs", "setstripe", "-c", "4", "-S", "16M", str(d)], check=True)
    subprocess.run(["lfs", "setstripe", "-c", "2", "-S", "1M", str(d / "f")], check=True)
    assert (d / "f").is_file()
    out = subprocess.run(["lfs", "getstripe", "-c", "-S", str(d / "g")], check=True,
                         capture_output=True, text=True).stdout
    assert out.split() == ["lmm_stripe_count:", "4", "lmm_stripe_size:", str(16 << 20)]
    assert calls(fake_lfs)[-1] == f"getstripe -c -S {d / 'g'}"


# -- the shared vectors (tests/vectors/), which the Java runtime's tests read too -----------------

VECTORS = REPO / "tests" / "vectors"


def vector_rows(name: str) -> list[list[str]]:
    """The tab-separated rows of a vector file; fields kept as written (spaces are cases)."""
    lines = (VECTORS / name).read_text().split("\n")
    return [line.split("\t") for line in lines if line and not line.startswith("#")]


@pytest.mark.parametrize("text,normal,args", vector_rows("stripe_layouts.tsv"))
def test_stripe_layouts_as_the_java_runtime_reads_them(text, normal, args):
    if normal == "-":
        with pytest.raises(ValueError):
            lustre.parse_layout(text)
        with pytest.raises(ValueError):
            lustre.setstripe_args(text)
    else:
        assert lustre.parse_layout(text) == normal
        assert lustre.setstripe_args(text) == ["setstripe", *args.split(" ")]


@pytest.mark.parametrize("mounts,path,answer", vector_rows("lustre_paths.tsv"))
def test_lustre_paths_as_the_java_runtime_decides_them(mounts, path, answer):
    env = {c.ENV_LUSTRE_MOUNTS: "" if mounts == '""' else mounts}
    assert lustre.is_lustre(Path(path), env) == (answer == "yes")


def test_the_job_directory_layout_is_written_as_the_java_runtime_writes_it(tmp_path, fake_lfs,
                                                                          monkeypatch):
    monkeypatch.setenv(c.ENV_LUSTRE_MOUNTS, str(tmp_path))
    assert lustre.stripe_directory(tmp_path, 2, "1024K", "job directory")
    assert calls(fake_lfs) == [f"setstripe -c 2 -S 1M {tmp_path}"]


def test_a_path_not_made_yet_is_on_its_nearest_existing_ancestors_file_system(tmp_path,
                                                                             monkeypatch):
    """As the Java runtime's LustreMounts: `stat -f` of the nearest directory that exists (an
    output directory is asked about before it is made)."""
    asked = []

    def stat(argv, check=False):
        asked.append(argv[-1])
        return subprocess.CompletedProcess(argv, 0, stdout=lustre.LUSTRE_MAGIC + "\n", stderr="")
    monkeypatch.setattr(lustre.proc, "run", stat)
    assert lustre.is_lustre(tmp_path / "out" / "part", {})
    assert asked == [str(tmp_path)]
