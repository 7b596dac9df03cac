"""lustre:// on the 3-node cluster: `hadoop fs` on it, jobs through it byte-identical to Hadoop's
local runner (relative paths under <lustre_root>/user/<name>), a job configured with HAL's keys,
and every `lfs` call HAM makes: with the directories declared Lustre (HAM_LUSTRE_MOUNTS) and the
recording stand-in tests/fake-lfs/lfs first on PATH, and none at all where nothing is Lustre."""

from __future__ import annotations

import getpass
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.conftest import MAPREDUCE_JARS, REPO
from tests.integration.test_runtime import (concatenated, job_records, job_writing,
                                            same_tree)

EXAMPLES = next(MAPREDUCE_JARS.glob("hadoop-mapreduce-examples-*.jar"), None)
FAKE_LFS = REPO / "tests" / "fake-lfs"
ME = getpass.getuser()
HAL_CORE_SITE = """<?xml version="1.0"?>
<configuration>
  <property><name>fs.defaultFS</name><value>lustre:///</value></property>
  <property><name>fs.lustre.impl</name><value>org.apache.hadoop.fs.LustreFileSystem</value></property>
  <property><name>fs.AbstractFileSystem.lustre.impl</name><value>org.apache.hadoop.fs.LustreFileSystem$LustreFs</value></property>
  <property><name>fs.root.dir</name><value>{root}</value></property>
</configuration>
"""


def text_files(d: Path) -> None:
    d.mkdir(parents=True)
    for i in range(3):
        words = [f"w{(i * 7 + j * j) % 31}" for j in range(4000)]
        (d / f"f{i}.txt").write_text("\n".join(" ".join(words[k:k + 8])
                                               for k in range(0, len(words), 8)) + "\n")


def ham_run(env: dict[str, str], script: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "ham", "run", "-N", "3", "--retention",
                           "all", "--", "bash", "-c", script], env={**env, "HAM_LOG_LEVEL": "INFO"},
                          cwd=cwd,
                          capture_output=True, text=True, timeout=900)


@pytest.fixture(scope="module")
def runs(cluster, tmp_path_factory):
    base = tmp_path_factory.mktemp("lustre")
    root = base / "lustre-root"            # what lustre:/// stands for
    (root / "user").mkdir(parents=True)
    os.chmod(root / "user", 0o1777)         # as an admin makes it: each user gets a home
    text_files(root / "user" / ME / "text")  # relative "text" under the home
    local_text = base / "local-text"       # the same files for the local runner
    text_files(local_text)
    hello = base / "hello.txt"
    hello.write_text("hello, lustre\n")
    big = base / "big.bin"  # past the 16 MiB that lustre:// reads and writes through the cache
    big.write_bytes(os.urandom((24 << 20) + 12345))
    out = base / "out"
    out.mkdir()
    common = {**cluster, "PATH": f"{FAKE_LFS}:{cluster.get('PATH', os.environ['PATH'])}",
              "HAM_LUSTRE_ROOT": str(root), "HAM_STRIPE_COUNT": "2", "HAM_STRIPE_SIZE": "8M",
              "HAM_OUTPUT_STRIPE": "4:16M", "HAM_FILE_STRIPES": "part-r-*=2:4M"}
    ex = f"hadoop jar {EXAMPLES}"

    # 1. filesystem = lustre, and the shared and lustre roots count as Lustre.
    shared1 = base / "shared1"
    shared1.mkdir()
    env1 = {**common, "HAM_SHARED_ROOT": str(shared1), "HAM_FILESYSTEM": "lustre",
            "HAM_LUSTRE_MOUNTS": f"{shared1}:{root}", "LFS_RECORD": str(base / "lfs1")}
    r1 = ham_run(env1, textwrap.dedent(f"""\
        set -e
        hadoop fs -mkdir -p /fsdemo
        hadoop fs -put {hello} /fsdemo/hello.txt
        hadoop fs -put {hello} rel-hello.txt
        hadoop fs -ls /fsdemo > {out}/ls.txt
        hadoop fs -ls /user/{ME}/text > {out}/ls-home.txt
        hadoop fs -cat /fsdemo/hello.txt > {out}/cat.txt
        hadoop fs -cat rel-hello.txt file://{hello} > {out}/cat2.txt
        find {root}/fsdemo > {out}/find.txt
        hadoop fs -rm /fsdemo/hello.txt > {out}/rm.txt
        hadoop fs -ls /fsdemo > {out}/ls-after.txt
        hadoop fs -D io.file.buffer.size=1048576 -cp file://{big} /big.bin
        hadoop fs -D io.file.buffer.size=1048576 -cp /big.bin file://{out}/big-copy.bin
        fincore -b -n -o RES {root}/big.bin > {out}/big-cached.txt
        {ex} wordcount -D mapreduce.job.reduces=3 text wc
        {ex} teragen -D mapreduce.job.maps=4 20000 tg
        {ex} terasort -D mapreduce.job.reduces=3 tg ts
        """), base)

    # 2. filesystem = file (nothing declared Lustre): a file:// job, and a job that brings
    #    HAL's core-site.xml (-conf) and so runs on lustre:// by itself.
    shared2 = base / "shared2"
    shared2.mkdir()
    (base / "hal-core-site.xml").write_text(HAL_CORE_SITE.format(root=root))
    env2 = {**common, "HAM_SHARED_ROOT": str(shared2), "LFS_RECORD": str(base / "lfs2")}
    env2.pop("HAM_LUSTRE_ROOT")  # HAL's file alone says where the root is
    r2 = ham_run(env2, textwrap.dedent(f"""\
        set -e
        {ex} wordcount -D mapreduce.job.reduces=3 {local_text} {base}/file-wc
        {ex} wordcount -conf {base}/hal-core-site.xml -D mapreduce.job.reduces=3 text hal-wc
        """), base)

    # Reference: Hadoop's local runner on the local copy.
    ref = base / "ref"
    local_env = {k: v for k, v in cluster.items() if k != "HADOOP_CONF_DIR"}
    rr = subprocess.run(["bash", "-c", textwrap.dedent(f"""\
        set -e
        hadoop() {{ {sys.executable} -m ham hadoop "$@"; }}
        hadoop jar {EXAMPLES} wordcount -D mapreduce.job.reduces=3 {local_text} {ref}/wc
        hadoop jar {EXAMPLES} teragen -D mapreduce.job.maps=4 20000 {ref}/tg
        hadoop jar {EXAMPLES} terasort -D mapreduce.job.reduces=3 {ref}/tg {ref}/ts
        """)], env=local_env, capture_output=True, text=True, timeout=900)
    assert rr.returncode == 0, rr.stderr[-3000:]
    return {"root": root, "home": root / "user" / ME, "out": out, "ref": ref, "base": base,
            "r1": r1, "r2": r2, "shared1": shared1, "shared2": shared2,
            "lfs1": base / "lfs1", "lfs2": base / "lfs2", "hello": hello}


def lines(p: Path) -> list[str]:
    return p.read_text().splitlines() if p.exists() else []


def test_sessions_succeeded(runs):
    assert runs["r1"].returncode == 0, runs["r1"].stderr[-5000:]
    assert runs["r2"].returncode == 0, runs["r2"].stderr[-5000:]


def test_hadoop_fs_put_ls_cat_rm_on_lustre(runs):
    out, root = runs["out"], runs["root"]
    ls = lines(out / "ls.txt")
    assert ls[0] == "Found 1 items" and ls[1].endswith(" /fsdemo/hello.txt")
    perms, _, owner, _, size = ls[1].split()[:5]
    assert (perms, owner, size) == ("-rw-r--r--", ME, "14")  # as on the mount, umask 022
    assert "/user/" + ME + "/text/f0.txt" in (out / "ls-home.txt").read_text()
    assert (out / "cat.txt").read_text() == "hello, lustre\n"
    assert (out / "cat2.txt").read_text() == "hello, lustre\n" * 2  # relative, then file://
    assert lines(out / "find.txt") == [f"{root}/fsdemo", f"{root}/fsdemo/hello.txt"]  # no .crc
    assert (root / "user" / ME / "rel-hello.txt").read_text() == "hello, lustre\n"
    assert "Deleted /fsdemo/hello.txt" in (out / "rm.txt").read_text()
    assert lines(out / "ls-after.txt") == [] and not (root / "fsdemo" / "hello.txt").exists()
    assert not list(root.rglob("*.crc"))


def test_large_files_go_past_the_page_cache_and_come_back_whole(runs):
    # Copied in and out in 1 MB requests (io.file.buffer.size), as TestDFSIO reads and writes:
    # past a file's first 16 MiB lustre:// writes and reads with direct I/O, so the file's
    # pages beyond (8 MiB of 24) were never in the page cache, written or read; through the
    # page cache all 24 MiB would be there.
    big = runs["base"] / "big.bin"
    assert (runs["root"] / "big.bin").read_bytes() == big.read_bytes()
    assert (runs["out"] / "big-copy.bin").read_bytes() == big.read_bytes()
    cached = int((runs["out"] / "big-cached.txt").read_text())
    assert cached < (20 << 20), f"{cached} bytes of the 24 MiB file in the page cache"


def test_jobs_on_lustre_match_the_local_runner_under_the_home_directory(runs):
    home, ref = runs["home"], runs["ref"]
    same_tree(ref / "wc", home / "wc")   # relative "text" and "wc": <root>/user/<name>/
    assert concatenated(ref / "tg") == concatenated(home / "tg")
    assert len(list((home / "ts").glob("part-r-*"))) == 3
    assert concatenated(ref / "ts") == concatenated(home / "ts")
    logs = list(runs["shared1"].glob(f"{ME}/*/jobs/*/logs/attempt_*.syslog"))
    assert {p.name.split(".")[1] for p in logs} == {"node1", "node2", "node3"}


def test_file_system_counters_count_each_tasks_own_io(runs):
    """A runner serves task after task (here each of the 3 ran a map, then a reduce), and each
    task's FILE_ and LUSTRE_ counters are its own I/O, as in YARN's JVM per task: the job's
    LUSTRE_BYTES_READ is its input read once (each map reads its file to the end) and
    LUSTRE_BYTES_WRITTEN its output written once. Hadoop sets these counters from the JVM's
    totals; without a reset per task each reduce also counted its runner's map."""
    record = job_writing(job_records(runs["shared1"]), "wc")
    nodes = [a["node"] for a in record["attempts"]]
    assert len(record["attempts"]) == 6 and len(set(nodes)) == 3, nodes
    fs = record["counters"]["org.apache.hadoop.mapreduce.FileSystemCounter"]
    home = runs["home"]
    assert fs["LUSTRE_BYTES_READ"] == sum(p.stat().st_size for p in (home / "text").iterdir())
    assert fs["LUSTRE_BYTES_WRITTEN"] == sum(p.stat().st_size for p in (home / "wc").glob("part-*"))


def test_a_job_with_hals_configuration_keys_runs_unchanged(runs):
    same_tree(runs["ref"] / "wc", runs["home"] / "hal-wc")
    same_tree(runs["ref"] / "wc", runs["base"] / "file-wc")


def test_every_lfs_call_on_lustre(runs):
    calls = lines(runs["lfs1"])
    job_dir = next((runs["shared1"] / ME).iterdir())
    home = runs["home"]
    setstripes = [c for c in calls if c.startswith("setstripe")]
    # The job directory (launcher), once.
    assert setstripes.count(f"setstripe -c 2 -S 8M {job_dir}") == 1
    # Map output, once per Hadoop job (driver): wordcount, teragen, terasort.
    intermediate = re.compile(rf"setstripe -c 1 -S 1M {re.escape(str(job_dir))}/jobs/"
                              r"job_\d+_\d+/intermediate$")
    assert len([c for c in setstripes if intermediate.match(c)]) == 3
    # Output directories the jobs created (driver). TeraSort's client makes its output
    # directory itself (for its partition file) before the job: one that exists is left alone.
    for out in ("wc", "tg"):
        assert setstripes.count(f"setstripe -c 4 -S 16M {home / out}") == 1, out
    # The per-file rule part-r-*=2:4M, as each reducer creates its file (3 + 3 reduces;
    # teragen's part-m-* files do not match).
    per_file = [c for c in setstripes if c.startswith("setstripe -c 2 -S 4M ")]
    assert sorted(Path(c.split()[-1]).name for c in per_file) == \
        sorted(["part-r-00000", "part-r-00001", "part-r-00002"] * 2)
    assert all("/_temporary/" in c for c in per_file)
    assert len(setstripes) == 1 + 3 + 2 + 6, setstripes
    # Split planning read the input files' layouts (block size from the stripe layout).
    for i in range(3):
        assert f"getstripe -c -S {home}/text/f{i}.txt" in calls
    assert set(calls) - set(setstripes) <= {c for c in calls if c.startswith("getstripe -c -S ")}


def test_no_lfs_call_where_nothing_is_lustre_and_one_info_line_each(runs):
    assert lines(runs["lfs2"]) == []
    driver_log = next((runs["shared2"] / ME).glob("*/driver.log")).read_text()
    assert driver_log.count("Not on Lustre: map output stripe layout 1:1M not applied") == 2
    assert driver_log.count("Not on Lustre: output directory stripe layout 4:16M") == 2
    assert "is not on Lustre: job directory stripe layout 2:8M not applied" in runs["r2"].stderr
