from __future__ import annotations

from pathlib import Path

import pytest

from ham.errors import UsageError
from ham.hadoop import Hadoop, hadoop_argv


def test_bundled_argv_order(tmp_path):
    h = Hadoop("bundled", tmp_path)
    env = {"HADOOP_CONF_DIR": "/conf", "HADOOP_CLASSPATH": "/extra.jar", "HADOOP_OPTS": "-Xmx2g -Da=b"}
    argv = hadoop_argv(h, "/java", ["version"], env)
    assert argv[:3] == ["/java", "-Xmx2g", "-Da=b"]
    cp = argv[argv.index("-cp") + 1].split(":")
    assert cp == ["/conf", "/extra.jar", str(tmp_path / "ham-mapreduce.jar"), str(tmp_path / "lib" / "*")]
    assert argv[-1] == "org.apache.hadoop.util.VersionInfo"


@pytest.mark.parametrize("sub,cls", [("fs", "org.apache.hadoop.fs.FsShell"),
                                     ("classpath", "org.apache.hadoop.util.Classpath"),
                                     ("org.example.Main", "org.example.Main")])
def test_subcommands(tmp_path, sub, cls):
    argv = hadoop_argv(Hadoop("bundled", tmp_path), "java", [sub, "-ls", "/"], {})
    assert argv[-3:] == [cls, "-ls", "/"]


def test_jar_checks_file(tmp_path):
    with pytest.raises(UsageError, match="jar file not found"):
        hadoop_argv(Hadoop("bundled", tmp_path), "java", ["jar", str(tmp_path / "no.jar")], {})
    jar = tmp_path / "a.jar"
    jar.write_bytes(b"")
    argv = hadoop_argv(Hadoop("bundled", tmp_path), "java", ["jar", str(jar), "x"], {})
    assert argv[-3:] == ["org.apache.hadoop.util.RunJar", str(jar), "x"]


def test_unknown_subcommand(tmp_path):
    with pytest.raises(UsageError, match="unknown hadoop command 'frobnicate'"):
        hadoop_argv(Hadoop("bundled", tmp_path), "java", ["frobnicate"], {})


def test_site_hadoop_runs_bin_hadoop(tmp_path):
    argv = hadoop_argv(Hadoop("site", Path("/opt/hadoop")), "", ["fs", "-ls"], {})
    assert argv == ["/opt/hadoop/bin/hadoop", "fs", "-ls"]


def _settings(tmp_path, **kw):
    from ham import settings

    env = {"HAM_SITE_CONFIG": str(tmp_path / "none.toml"), "HAM_USER_CONFIG": str(tmp_path / "none2.toml")}
    return settings.load(env, flags=kw)


def _site_install(root: Path) -> Path:
    (root / "bin").mkdir(parents=True)
    (root / "bin" / "hadoop").write_text("#!/bin/sh\n")
    (root / "bin" / "hadoop").chmod(0o755)
    return root


def test_auto_prefers_site_hadoop_from_env_then_path(tmp_path):
    from ham.hadoop import find_hadoop

    site = _site_install(tmp_path / "site")
    bundle = tmp_path / "bundle"
    (bundle / "lib").mkdir(parents=True)
    (bundle / "ham-mapreduce.jar").write_bytes(b"")
    s = _settings(tmp_path, bundle_dir=str(bundle))
    assert find_hadoop(s, {"HADOOP_HOME": str(site), "PATH": ""}) == Hadoop("site", site)
    assert find_hadoop(s, {"PATH": str(site / "bin")}).home == site
    assert find_hadoop(s, {"PATH": ""}) == Hadoop("bundled", bundle)
    forced = _settings(tmp_path, bundle_dir=str(bundle), hadoop="bundled")
    assert find_hadoop(forced, {"HADOOP_HOME": str(site)}).kind == "bundled"


def test_ham_shim_on_path_is_not_a_site_hadoop(tmp_path):
    from ham.hadoop import find_hadoop

    shim_dir = tmp_path / "job" / "bin"
    shim_dir.mkdir(parents=True)
    (shim_dir / "hadoop").write_text("#!/bin/sh\n# ham-hadoop-shim\n")
    (shim_dir / "hadoop").chmod(0o755)
    bundle = tmp_path / "bundle"
    (bundle / "lib").mkdir(parents=True)
    (bundle / "ham-mapreduce.jar").write_bytes(b"")
    s = _settings(tmp_path, bundle_dir=str(bundle))
    assert find_hadoop(s, {"PATH": str(shim_dir)}).kind == "bundled"


def test_site_required_but_missing(tmp_path):
    from ham.errors import EnvironmentProblem
    from ham.hadoop import find_hadoop

    with pytest.raises(EnvironmentProblem, match="no site Hadoop found"):
        find_hadoop(_settings(tmp_path, hadoop="site"), {"PATH": ""})
