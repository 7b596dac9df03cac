"""The Java runtime's shape (docs/architecture.md): no two classes depend on each other, and no
class grows past ~400 lines without saying why at its top."""

from __future__ import annotations

import re
import subprocess

from tests.conftest import HADOOP_CP, REPO

SOURCES = REPO / "mapreduce" / "src" / "main" / "java"
CLASSES = REPO / "mapreduce" / "target" / "classes"
OURS = re.compile(r"^(io\.github\.ham\.\S+|org\.apache\.hadoop\.mapred\.Ham\w+)$")


def class_dependencies() -> set[tuple[str, str]]:
    """(class, class it uses) among HAM's classes, nested classes folded into their outer one."""
    out = subprocess.run(["jdeps", "--multi-release", "17", "-verbose:class", "-filter:none",
                          "-cp", HADOOP_CP, str(CLASSES)],
                         capture_output=True, text=True, check=True).stdout
    deps = set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) >= 3 and parts[1] == "->":
            a, b = (p.split("$")[0] for p in (parts[0], parts[2]))
            if a != b and OURS.match(a) and OURS.match(b):
                deps.add((a, b))
    return deps


def test_no_two_classes_use_each_other():
    deps = class_dependencies()
    assert len(deps) > 50, "jdeps found too little: is mapreduce/target/classes built?"
    mutual = sorted({tuple(sorted(d)) for d in deps if (d[1], d[0]) in deps})
    assert not mutual, f"classes that use each other: {mutual}"


def test_long_classes_say_why():
    for path in SOURCES.rglob("*.java"):
        text = path.read_text()
        if text.count("\n") > 400:
            top = text[:text.index("class ")]
            assert "Long on purpose" in top, f"{path.relative_to(REPO)}: over 400 lines, no reason"
