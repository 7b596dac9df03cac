"""The bundled Hadoop client and `ham doctor` on the test cluster."""

from __future__ import annotations

import collections
import os
import subprocess
import sys

from tests.integration.conftest import run_ham


def write_corpus(directory, files=3):
    directory.mkdir()
    counts = collections.Counter()
    for i in range(files):
        words = [f"w{(i * 7 + j * j) % 23}" for j in range(400)] + ["<&\"quoted'>"]
        (directory / f"part{i}.txt").write_text(" ".join(words) + "\n")
        counts.update(words)
    return counts


def read_counts(out_dir):
    counts = collections.Counter()
    for part in sorted(out_dir.glob("part-r-*")):
        for line in part.read_text().splitlines():
            word, n = line.split("\t")
            counts[word] += int(n)
    return counts


def test_hadoop_version_and_local_wordcount(tmp_path, hadoop_jars):
    r = run_ham("hadoop", "version")
    assert r.returncode == 0 and r.stdout.startswith("Hadoop 3.4.2")
    expected = write_corpus(tmp_path / "in")
    r = run_ham("hadoop", "jar", str(hadoop_jars["examples"]), "wordcount",
                str(tmp_path / "in"), str(tmp_path / "out"))
    assert r.returncode == 0, r.stderr[-2000:]
    assert (tmp_path / "out" / "_SUCCESS").exists()
    assert read_counts(tmp_path / "out") == expected


def test_doctor_passes_on_cluster(cluster, shared_root):
    r = run_ham("doctor", env={**cluster, "HAM_SHARED_ROOT": str(shared_root)})
    assert r.returncode == 0, r.stdout + r.stderr
    assert all(line.startswith("OK") for line in r.stdout.splitlines()), r.stdout


def test_doctor_fails_on_read_only_shared_root(cluster, shared_root):
    # A read-only bind mount in a private mount namespace: not writable even for root.
    script = (f"mount --bind {shared_root} {shared_root} && "
              f"mount -o remount,bind,ro {shared_root} && exec \"$@\"")
    import sys
    r = subprocess.run(["unshare", "--mount", "--propagation", "private", "sh", "-c", script, "sh",
                        sys.executable, "-m", "ham", "doctor"],
                       capture_output=True, text=True, env={**cluster, "HAM_SHARED_ROOT": str(shared_root)})
    assert r.returncode == 1
    fails = [line for line in r.stdout.splitlines() if line.startswith("FAIL")]
    assert len(fails) == 1 and "shared root" in fails[0] and str(shared_root) in fails[0], r.stdout


def test_doctor_fails_on_missing_shared_root(cluster, tmp_path):
    r = run_ham("doctor", env={**cluster, "HAM_SHARED_ROOT": str(tmp_path / "absent")})
    assert r.returncode == 1
    assert "FAIL  shared root" in r.stdout and "does not exist" in r.stdout


def test_hadoop_classpath_like_bin_hadoop():
    plain = run_ham("hadoop", "classpath", env={"HADOOP_CONF_DIR": "/etc/conf-x"})
    assert plain.returncode == 0
    parts = plain.stdout.strip().split(":")
    # The jars one by one, then the configuration and the other directories (client_cds).
    conf = parts.index("/etc/conf-x")
    assert conf > 100 and all(p.endswith(".jar") for p in parts[:conf])
    assert any("/share/hadoop/common/lib/" in p for p in parts[:conf])
    globbed = run_ham("hadoop", "classpath", "--glob")
    assert globbed.returncode == 0 and "hadoop-mapreduce-examples-3.4.2.jar" in globbed.stdout


def test_hadoop_fs_without_a_conf_dir(tmp_path):
    """As bin/hadoop falls back to etc/hadoop, the bundled client has a conf dir of its own:
    FsShell refuses to run without a core-site.xml."""
    (tmp_path / "a.txt").write_text("hello\n")
    env = {k: v for k, v in os.environ.items() if k != "HADOOP_CONF_DIR"}
    put = subprocess.run([sys.executable, "-m", "ham", "hadoop", "fs", "-put", "a.txt", "b.txt"],
                         cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert put.returncode == 0, put.stderr
    cat = subprocess.run([sys.executable, "-m", "ham", "hadoop", "fs", "-cat", str(tmp_path / "b.txt")],
                         cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert cat.returncode == 0 and cat.stdout == "hello\n", cat.stderr
    assert "not found" not in put.stderr + cat.stderr
    classpath = run_ham("hadoop", "classpath", env={"HADOOP_CONF_DIR": ""}).stdout.split(":")
    assert any(p.endswith("/etc/hadoop") for p in classpath)
