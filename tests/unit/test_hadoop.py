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
