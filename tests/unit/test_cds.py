"""Class-data sharing for the task runners (ham.cds): the class path order the JVM needs, and a
real `java -Xshare:dump` archive that a JVM then maps with the job's conf/ after the jars."""

from __future__ import annotations

import getpass
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from ham import cds

REPO = Path(__file__).resolve().parents[2]
HAM_JAR = REPO / "mapreduce" / "target" / "dist" / "ham-mapreduce.jar"
JAVA = shutil.which("java") or "java"


def test_split_classpath_expands_wildcards_sorted_and_puts_directories_aside(tmp_path):
    lib = tmp_path / "lib"
    lib.mkdir()
    for name in ("b.jar", "a.jar", "notes.txt"):
        (lib / name).write_text("x")
    jars, dirs = cds.split_classpath(f"{tmp_path}/conf:/x/ham.jar:{lib}/*:/x/ham.jar:{tmp_path}/conf")
    assert jars == ["/x/ham.jar", f"{lib}/a.jar", f"{lib}/b.jar"]
    assert dirs == [f"{tmp_path}/conf"]


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
    path = cds.archive(bundle, JAVA, [str(jar)], str(shared))
    assert path is not None and path.parent == bundle / "cds"  # writable: one for everyone
    made = path.stat().st_mtime_ns
    assert cds.archive(bundle, JAVA, [str(jar)], str(shared)) == path
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
    assert cds.archive(bundle, JAVA, [str(jar)], str(shared)) != path


def test_no_archive_without_a_class_list_or_with_a_java_that_fails(bundle, tmp_path, caplog):
    (bundle / "cds" / "runner.classlist").unlink()
    assert cds.archive(bundle, JAVA, [str(HAM_JAR)], str(tmp_path)) is None
    assert "without class-data sharing" in caplog.text
    (bundle / "cds" / "runner.classlist").write_text("java/lang/Object\n")
    false = tmp_path / "java"
    false.write_text("#!/bin/sh\necho 'Error: no dump here' >&2\nexit 1\n")
    false.chmod(0o755)
    assert cds.archive(bundle, str(false), [str(HAM_JAR)], str(tmp_path)) is None
    assert "no dump here" in caplog.text
    assert not list((tmp_path / getpass.getuser() / ".cds").glob("*"))  # nothing half-made


def test_archive_goes_to_the_users_directory_when_the_bundle_is_not_writable(bundle, tmp_path,
                                                                            monkeypatch):
    writable = os.access
    monkeypatch.setattr(cds.os, "access", lambda p, mode: False if Path(p) == bundle / "cds"
                        else writable(p, mode))
    path = cds.archive(bundle, JAVA, [str(HAM_JAR)], str(tmp_path / "shared"))
    assert path is not None and path.parent == tmp_path / "shared" / getpass.getuser() / ".cds"
