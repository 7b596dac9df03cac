"""The Java runtime's shape (docs/architecture.md): no two classes depend on each other, the
packages keep their layers, and no class grows past ~400 lines without saying why at its top."""

from __future__ import annotations

import re
import subprocess

from tests.conftest import HADOOP_CP, REPO

SOURCES = REPO / "mapreduce" / "src" / "main" / "java"
CLASSES = REPO / "mapreduce" / "target" / "classes"
OURS = re.compile(r"^(io\.github\.ham\.\S+|org\.apache\.hadoop\.\S*\.Ham\w+)$")


def all_dependencies() -> set[tuple[str, str]]:
    """(class, class it uses) for HAM's classes, any used class, nested classes folded."""
    out = subprocess.run(["jdeps", "--multi-release", "17", "-verbose:class", "-filter:none",
                          "-cp", HADOOP_CP, str(CLASSES)],
                         capture_output=True, text=True, check=True).stdout
    deps = set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) >= 3 and parts[1] == "->":
            a, b = (p.split("$")[0] for p in (parts[0], parts[2]))
            if a != b and OURS.match(a):
                deps.add((a, b))
    return deps


def class_dependencies() -> set[tuple[str, str]]:
    """(class, class it uses) among HAM's classes, nested classes folded into their outer one."""
    return {(a, b) for a, b in all_dependencies() if OURS.match(b)}


HAM = "io.github.ham.mapreduce."
# What touches a file system: java.io's and java.nio's files, Hadoop's file systems, HAM's own.
FILE_SYSTEMS = ("java.io.File", "java.io.RandomAccessFile", "java.nio.file.",
                "java.nio.channels.FileChannel", "org.apache.hadoop.fs.", HAM + "lustre.",
                HAM + "common.fs.", HAM + "common.jobfiles.", HAM + "common.HamLocalF",
                HAM + "common.HdfsRefused")
# (package a class is in, what it must not use, why); packages by prefix, "driver." for its
# subpackages. The layers, lowest first: common; lustre, history, runner; the driver's core
# (schedule), its rooms (launch, slurm, ipc, commit, report) and the driver package that wires
# them; client.
LAYERS = [
    (HAM + "common.", (HAM + "client.", HAM + "driver.", HAM + "runner.", HAM + "lustre.",
                       HAM + "history."), "common is below every JVM's code"),
    (HAM + "runner.", (HAM + "driver.", HAM + "client."), "a runner JVM has no driver"),
    (HAM + "lustre.", (HAM + "driver.", HAM + "runner.", HAM + "client.", HAM + "history."),
     "lustre:// is a file system any JVM loads"),
    (HAM + "driver.schedule.", FILE_SYSTEMS, "the scheduling core decides; it touches no file"),
    (HAM + "driver.schedule.", tuple(HAM + "driver." + p for p in (
        "launch.", "slurm.", "ipc.", "commit.", "report.")) + (HAM + "driver.HamJob",),
     "the scheduling core is below the driver's other parts"),
    (HAM + "driver.launch.", (HAM + "driver.slurm.",),
     "the launcher knows a RunnerPlatform, not which one"),
]


def layer_violations(deps: set[tuple[str, str]]) -> list[str]:
    """Each use of a class that LAYERS forbids, as 'a -> b (why)'."""
    found = []
    for a, b in sorted(deps):
        for package, forbidden, why in LAYERS:
            if a.startswith(package) and b.startswith(forbidden):
                found.append(f"{a} -> {b} ({why})")
    # A subpackage of the driver never uses the package that wires it.
    for a, b in sorted(deps):
        if a.startswith(HAM + "driver.") and a.count(".") > 5 and b.rsplit(".", 1)[0] == (
                HAM + "driver"):
            found.append(f"{a} -> {b} (the driver's parts do not use what wires them)")
    return found


def test_no_two_classes_use_each_other():
    deps = class_dependencies()
    assert len(deps) > 50, "jdeps found too little: is mapreduce/target/classes built?"
    mutual = sorted({tuple(sorted(d)) for d in deps if (d[1], d[0]) in deps})
    assert not mutual, f"classes that use each other: {mutual}"


def test_packages_keep_their_layers():
    deps = all_dependencies()
    assert len(deps) > 500, "jdeps found too little: is mapreduce/target/classes built?"
    assert any(b.startswith("java.nio.file.") for a, b in deps), "jdeps lists no JDK classes"
    found = layer_violations(deps)
    assert not found, "\n".join(["forbidden uses:"] + found)


def test_the_layer_rules_catch_a_forbidden_use():
    # The rules themselves: each pair below breaks one.
    assert layer_violations({(HAM + "runner.TaskRunner", HAM + "driver.HamJob")})
    assert layer_violations({(HAM + "lustre.Lfs", HAM + "client.JobFinder")})
    assert layer_violations({(HAM + "driver.schedule.TaskScheduler", "java.io.File")})
    assert layer_violations({(HAM + "driver.schedule.TaskScheduler",
                              HAM + "common.jobfiles.JobDirs")})
    assert layer_violations({(HAM + "driver.launch.RunnerLauncher",
                              HAM + "driver.slurm.SlurmPlatform")})
    assert layer_violations({(HAM + "driver.report.JobEvents", HAM + "driver.HamJob")})
    assert not layer_violations({(HAM + "driver.HamJob", HAM + "driver.schedule.TaskScheduler")})


def test_long_classes_say_why():
    for path in SOURCES.rglob("*.java"):
        text = path.read_text()
        if text.count("\n") > 400:
            top = text[:text.index("class ")]
            assert "Long on purpose" in top, f"{path.relative_to(REPO)}: over 400 lines, no reason"
