from __future__ import annotations

from pathlib import Path

import pytest

from ham.errors import EnvironmentProblem, UsageError
from ham.hadoop import (SITE_FRONT_DOOR, Hadoop, command_argv, command_environment, find_hadoop)


def _bundle(root: Path) -> Path:
    """A HAM bundle as the Maven build lays it out (only what find_hadoop looks at)."""
    (root / "bin").mkdir(parents=True)
    (root / "libexec").mkdir()
    for name in ("bin/hadoop", str(SITE_FRONT_DOOR)):
        (root / name).write_text("#!/bin/sh\n")
        (root / name).chmod(0o755)
    (root / "ham-mapreduce.jar").write_bytes(b"")
    return root


def _site_install(root: Path) -> Path:
    (root / "bin").mkdir(parents=True)
    (root / "bin" / "hadoop").write_text("#!/bin/sh\n")
    (root / "bin" / "hadoop").chmod(0o755)
    return root


def _settings(tmp_path, **kw):
    from ham import settings

    env = {"HAM_SITE_CONFIG": str(tmp_path / "none.toml"), "HAM_USER_CONFIG": str(tmp_path / "none2.toml")}
    return settings.load(env, flags=kw)


@pytest.mark.parametrize("command", ["hadoop", "mapred", "yarn", "hdfs"])
def test_bundled_commands_are_its_own_bin_scripts(tmp_path, command):
    bundle = _bundle(tmp_path / "b")
    argv = command_argv(Hadoop("bundled", bundle), bundle, command, ["version"])
    assert argv == [str(bundle / "bin" / command), "version"]


def test_site_commands_go_through_the_front_door(tmp_path):
    bundle = _bundle(tmp_path / "b")
    argv = command_argv(Hadoop("site", Path("/opt/hadoop")), bundle, "yarn", ["jar", "x.jar"])
    assert argv == [str(bundle / SITE_FRONT_DOOR), "/opt/hadoop", "yarn", "jar", "x.jar"]


def test_unknown_command(tmp_path):
    with pytest.raises(UsageError, match="unknown command 'hive'"):
        command_argv(Hadoop("bundled", tmp_path), tmp_path, "hive", [])


def test_command_environment_adds_ham_jar_once_for_a_site_and_java_home():
    site, jar = Hadoop("site", Path("/opt/hadoop")), Path("/b/ham-mapreduce.jar")
    env = command_environment({"HADOOP_CLASSPATH": "/a.jar"}, site, jar, "/jdk")
    assert env["HADOOP_CLASSPATH"] == "/b/ham-mapreduce.jar:/a.jar" and env["JAVA_HOME"] == "/jdk"
    assert command_environment(env, site, jar, "")["HADOOP_CLASSPATH"] == env["HADOOP_CLASSPATH"]
    # The bundle's own scripts carry HAM's jar.
    assert "HADOOP_CLASSPATH" not in command_environment({}, Hadoop("bundled", Path("/b")), jar, "")


def test_auto_prefers_site_hadoop_from_env_then_path(tmp_path):
    site = _site_install(tmp_path / "site")
    bundle = _bundle(tmp_path / "bundle")
    s = _settings(tmp_path, bundle_dir=str(bundle))
    assert find_hadoop(s, {"HADOOP_HOME": str(site), "PATH": ""}) == Hadoop("site", site)
    assert find_hadoop(s, {"PATH": str(site / "bin")}).home == site
    assert find_hadoop(s, {"PATH": ""}) == Hadoop("bundled", bundle)
    forced = _settings(tmp_path, bundle_dir=str(bundle), hadoop="bundled")
    assert find_hadoop(forced, {"HADOOP_HOME": str(site)}).kind == "bundled"


def test_the_bundle_as_hadoop_home_is_still_the_bundle(tmp_path):
    """Inside `ham run` HADOOP_HOME and PATH name the bundle: a nested `ham` keeps it bundled."""
    bundle = _bundle(tmp_path / "bundle")
    s = _settings(tmp_path, bundle_dir=str(bundle))
    assert find_hadoop(s, {"HADOOP_HOME": str(bundle)}) == Hadoop("bundled", bundle)
    assert find_hadoop(s, {"PATH": str(bundle / "bin")}) == Hadoop("bundled", bundle)


def test_ham_shim_on_path_is_not_a_site_hadoop(tmp_path):
    shim_dir = tmp_path / "job" / "bin"
    shim_dir.mkdir(parents=True)
    (shim_dir / "hadoop").write_text("#!/bin/sh\n# ham-hadoop-shim\n")
    (shim_dir / "hadoop").chmod(0o755)
    bundle = _bundle(tmp_path / "bundle")
    s = _settings(tmp_path, bundle_dir=str(bundle))
    assert find_hadoop(s, {"PATH": str(shim_dir)}).kind == "bundled"


def test_site_required_but_missing(tmp_path):
    with pytest.raises(EnvironmentProblem, match="no site Hadoop found"):
        find_hadoop(_settings(tmp_path, hadoop="site"), {"PATH": ""})


def test_a_bundle_built_before_the_layout_is_refused(tmp_path):
    old = tmp_path / "old"
    (old / "lib").mkdir(parents=True)
    (old / "ham-mapreduce.jar").write_bytes(b"")
    with pytest.raises(EnvironmentProblem, match="not laid out as a Hadoop installation.*rebuild"):
        find_hadoop(_settings(tmp_path, bundle_dir=str(old), hadoop="bundled"), {"PATH": ""})


def test_a_jar_that_is_not_a_zip_is_refused_before_slurm(tmp_path):
    """A text file named app.jar got an allocation and a 15-line ZipException from the JVM."""
    import zipfile

    from ham.hadoop import check_jar
    (tmp_path / "app.jar").write_text("not a jar\n")
    with pytest.raises(UsageError, match="app.jar is not a jar \\(zip\\) file"):
        check_jar(str(tmp_path / "app.jar"))
    with zipfile.ZipFile(tmp_path / "real.jar", "w") as z:
        z.writestr("META-INF/MANIFEST.MF", "Manifest-Version: 1.0\n")
    check_jar(str(tmp_path / "real.jar"))
