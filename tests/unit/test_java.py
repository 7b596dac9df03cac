"""Finding Java and reading its version: once per binary, and not again in the ham a ham starts
on the same host (`ham run` through salloc)."""

from __future__ import annotations

import socket
import stat
from pathlib import Path

import pytest

from ham import java
from ham.errors import EnvironmentProblem


def fake_java(tmp_path: Path, version: str) -> tuple[str, Path]:
    """A `java` that prints version and counts its runs in a file."""
    calls = tmp_path / "calls"
    exe = tmp_path / "bin" / "java"
    exe.parent.mkdir(parents=True)
    exe.write_text(f'#!/bin/sh\necho x >> {calls}\necho \'openjdk version "{version}"\' >&2\n')
    exe.chmod(stat.S_IRWXU)
    return str(exe), calls


def runs(calls: Path) -> int:
    return len(calls.read_text().splitlines()) if calls.exists() else 0


def test_version_read_once_per_binary(tmp_path):
    exe, calls = fake_java(tmp_path, "17.0.15")
    assert java.check_java(exe, {}) == "17.0.15"
    assert java.java_version(exe, {}) == (17, "17.0.15")
    assert runs(calls) == 1


def test_checked_java_is_not_run_again_on_the_same_host(tmp_path):
    exe, calls = fake_java(tmp_path, "21.0.2")
    env = {java.CHECKED_ENV: f"{socket.gethostname()} {exe} 21.0.2"}
    assert java.check_java(exe, env) == "21.0.2"
    assert runs(calls) == 0
    assert java.checked(exe, env) == env[java.CHECKED_ENV]


@pytest.mark.parametrize("marker", ["other-host {exe} 21.0.2", "{host} /usr/bin/other 21.0.2",
                                    "{host} {exe}", ""])
def test_another_host_or_java_checks_its_own(tmp_path, marker):
    exe, calls = fake_java(tmp_path, "17.0.9")
    env = {java.CHECKED_ENV: marker.format(host=socket.gethostname(), exe=exe)}
    assert java.check_java(exe, env) == "17.0.9"
    assert runs(calls) == 1


def test_a_checked_java_too_old_is_still_refused(tmp_path):
    exe, calls = fake_java(tmp_path, "11.0.2")
    with pytest.raises(EnvironmentProblem, match="HAM needs Java 17"):
        java.check_java(exe, {java.CHECKED_ENV: f"{socket.gethostname()} {exe} 11.0.2"})
    with pytest.raises(EnvironmentProblem, match="HAM needs Java 17"):
        java.check_java(exe, {})
    assert runs(calls) == 1
