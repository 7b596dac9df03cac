"""Class-data sharing (ham.cds) for the task runners and the client: the class path order the
JVM needs, a real `java -Xshare:dump` archive that a JVM then maps with the job's conf/ after
the jars, and the client's archive mapped by a JVM that the bundle's `hadoop` script starts."""

from __future__ import annotations

import getpass
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from ham import cds

REPO = Path(__file__).resolve().parents[2]
DIST = REPO / "mapreduce" / "target" / "dist"
HAM_JAR = DIST / "ham-mapreduce.jar"
JAVA = shutil.which("java") or "java"


def test_split_classpath_expands_wildcards_sorted_and_puts_directories_aside(tmp_path):
    lib = tmp_path / "lib"
    lib.mkdir()
    for name in ("b.jar", "a.jar", "notes.txt"):
        (lib / name).write_text("x")
    jars, dirs = cds.split_classpath(f"{tmp_path}/conf:/x/ham.jar:{lib}/*:/x/ham.jar:{tmp_path}/conf")
    assert jars == ["/x/ham.jar", f"{lib}/a.jar", f"{lib}/b.jar"]
    assert dirs == [f"{tmp_path}/conf"]


def test_leading_jars_stop_at_the_first_directory_wildcard_or_repeated_jar():
    assert cds.leading_jars("/a.jar:/b.jar:/conf:/c.jar") == ["/a.jar", "/b.jar"]
    assert cds.leading_jars("/a.jar:/lib/*:/c.jar") == ["/a.jar"]
    assert cds.leading_jars("/a.jar:/b.jar:/a.jar:/c.jar") == ["/a.jar", "/b.jar"]
    assert cds.leading_jars("/conf:/a.jar") == []


@pytest.fixture
def bundle(tmp_path: Path) -> Path:
    if not HAM_JAR.is_file():
        pytest.fail(f"{HAM_JAR} is not built: mvn -q -f mapreduce/pom.xml package -DskipTests")
    b = tmp_path / "bundle"
    (b / "cds").mkdir(parents=True)
    (b / "cds" / "runner.classlist").write_text(
        "java/lang/Object\nio/github/ham/mapreduce/common/HamConfig\n")
    return b


def test_archive_is_made_once_and_mapped_with_directories_after_the_jars(bundle, tmp_path):
    jar = tmp_path / "ham.jar"
    shutil.copy(HAM_JAR, jar)
    shared = tmp_path / "shared"
    path = cds.archive("runner", bundle, JAVA, [str(jar)], str(shared))
    assert path is not None and path.parent == bundle / "cds"  # writable: one for everyone
    made = path.stat().st_mtime_ns
    assert cds.archive("runner", bundle, JAVA, [str(jar)], str(shared)) == path
    assert path.stat().st_mtime_ns == made  # not made again
    conf = tmp_path / "conf"
    conf.mkdir()
    (conf / "core-site.xml").write_text("<configuration/>")
    # -Xshare:on fails outright if the archive cannot be used with this class path.
    run = subprocess.run([JAVA, *cds.java_opts(path).split(), "-Xshare:on", "-cp",
                          f"{jar}:{conf}", "-version"], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    # A rebuilt jar is another archive (the JVM would not map the old one).
    os.utime(jar, ns=(made, made + 10**9))
    assert cds.archive("runner", bundle, JAVA, [str(jar)], str(shared)) != path


def test_no_archive_without_a_class_list_or_with_a_java_that_fails(bundle, tmp_path, caplog):
    (bundle / "cds" / "runner.classlist").unlink()
    assert cds.archive("runner", bundle, JAVA, [str(HAM_JAR)], str(tmp_path)) is None
    assert "class-data sharing off for the task runners: no" in caplog.text
    (bundle / "cds" / "runner.classlist").write_text("java/lang/Object\n")
    false = tmp_path / "java"
    false.write_text("#!/bin/sh\necho 'Error: no dump here' >&2\nexit 1\n")
    false.chmod(0o755)
    assert cds.archive("runner", bundle, str(false), [str(HAM_JAR)], str(tmp_path)) is None
    assert "no dump here" in caplog.text
    assert not list((tmp_path / getpass.getuser() / ".cds").glob("*"))  # nothing half-made


def test_archive_goes_to_the_users_directory_when_the_bundle_is_not_writable(bundle, tmp_path,
                                                                            monkeypatch):
    writable = os.access
    monkeypatch.setattr(cds.os, "access", lambda p, mode: False if Path(p) == bundle / "cds"
                        else writable(p, mode))
    path = cds.archive("runner", bundle, JAVA, [str(HAM_JAR)], str(tmp_path / "shared"))
    assert path is not None and path.parent == tmp_path / "shared" / getpass.getuser() / ".cds"


def test_client_archive_is_its_own_and_maps_in_the_bundles_hadoop_jvm(bundle, tmp_path):
    """The client's archive, made over the jars `hadoop classpath` starts with, is mapped by
    the JVM that bin/hadoop starts with the job's conf/ (and HADOOP_CLASSPATH) in its class
    path: -Xshare:on fails outright otherwise."""
    (bundle / "cds" / "client.classlist").write_text(
        "java/lang/Object\norg/apache/hadoop/util/VersionInfo\n")
    conf = tmp_path / "conf"
    conf.mkdir()
    (conf / "core-site.xml").write_text("<configuration/>")
    env = {"PATH": os.environ["PATH"], "HADOOP_CONF_DIR": str(conf),
           "HADOOP_CLASSPATH": f"{HAM_JAR}:{tmp_path}"}
    hadoop = DIST / "bin" / "hadoop"
    classpath = subprocess.run([hadoop, "classpath"], env=env, capture_output=True, text=True,
                               check=True).stdout.strip()
    jars = cds.leading_jars(classpath)
    assert jars and jars[-1] == str(HAM_JAR.resolve())
    path = cds.archive("client", bundle, JAVA, jars, str(tmp_path / "shared"))
    assert path is not None and path.name.startswith("client-")
    assert cds.archive("runner", bundle, JAVA, jars, str(tmp_path / "shared")) != path
    opts = f"{cds.java_opts(path)} -Xshare:on -Xlog:class+load=info"
    run = subprocess.run([hadoop, "version"], env={**env, "HADOOP_CLIENT_OPTS": opts},
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    assert "org.apache.hadoop.util.VersionInfo source: shared objects file" in run.stdout
