"""A drop-in Hadoop installation inside `ham run`, on the 3-node cluster, for both Hadoop
versions HAM supports: the bundled 3.4.2 client, and 3.3.5 as a site's own Hadoop (hadoop =
"site", hadoop_home = the 3.3.5 layout, whose bin scripts are HAM's: Apache's are in no registry).

For each version, the README's plain Hadoop-cluster script (examples/hadoop-cluster/wordcount.sh:
`hdfs dfs -put/-ls/-cat`, `yarn jar` wordcount, the streaming jar found by searching
$HADOOP_HOME) runs unchanged, plus teragen/terasort, once with that version's local runner
(its own bin scripts, no HADOOP_CONF_DIR) and once inside `ham run -N 3`; outputs are compared
byte for byte, and what `hdfs dfs -ls` and `-cat` print is compared with what they print there. Inside
`ham run` the script's session also records what `mapred`, `yarn` and `hdfs` answer: classpath,
job lists, applications, and one line for each daemon-only command."""

from __future__ import annotations

import filecmp
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.conftest import REPO
from tests.integration.conftest import hadoop_settings, side_by_side
from tests.integration.test_examples import write_corpus

SCRIPT = REPO / "examples" / "hadoop-cluster" / "wordcount.sh"
TIMEOUT = 900

# Terasort, as a Hadoop-cluster script would run it (relative paths, `yarn jar`).
TERASORT = textwrap.dedent("""\
    set -e
    examples=$(ls "$HADOOP_HOME"/share/hadoop/mapreduce/hadoop-mapreduce-examples-*.jar)
    yarn jar "$examples" teragen -D mapreduce.job.maps=3 20000 tera-in
    yarn jar "$examples" terasort -D mapreduce.job.reduces=3 tera-in tera-out
    """)

# What `hdfs dfs` answers about the script's files, asked in both runs (the local runner's is
# the reference), each into checks/NAME.{out,err,rc}.
FS_CHECKS = {
    "hdfs-ls": "hdfs dfs -ls books",
    "hdfs-cat": "hdfs dfs -cat 'counts/part-r-*'",
}
# What the job's commands answer inside `ham run`.
CHECKS = {
    "env": "env",
    "which": "command -v hadoop mapred yarn hdfs",
    "mapred-classpath": "mapred classpath",
    "mapred-version": "mapred version",
    "mapred-job-list": "mapred job -list all",
    "yarn-application-list": "yarn application -list -appStates ALL",
    "streaming-jar": "ls $HADOOP_HOME/share/hadoop/tools/lib/",
    "hdfs-scheme": "hdfs dfs -ls hdfs:///user/$USER/books",
    "hdfs-scheme-direct": "$HADOOP_HOME/bin/hadoop fs -ls hdfs://namenode:8020/data",
}
DAEMON_ONLY = {
    "hdfs-namenode": "hdfs namenode -format",
    "hdfs-dfsadmin": "hdfs dfsadmin -report",
    "hdfs-fsck": "hdfs fsck /",
    "yarn-node": "yarn node -list",
    "yarn-logs": "yarn logs -applicationId application_1_0001",
    "yarn-resourcemanager": "yarn resourcemanager",
    "yarn-rmadmin": "yarn rmadmin -refreshQueues",
    "mapred-historyserver": "mapred historyserver",
    "hadoop-daemon": "hdfs --daemon start datanode",
}


def checks_script(checks: dict[str, str]) -> str:
    lines = ["set +e", "mkdir -p checks"]
    for name, cmd in checks.items():
        lines.append(f"{cmd} > checks/{name}.out 2> checks/{name}.err; echo $? > checks/{name}.rc")
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="module", params=["3.4.2", "3.3.5"])
def runs(request, cluster, tmp_path_factory):
    version = request.param
    site = request.getfixturevalue("hadoop_335") if version == "3.3.5" else None
    base = tmp_path_factory.mktemp(f"dropin-{version}")
    write_corpus(base / "books-src")
    whole = f"bash {SCRIPT} {base / 'books-src'}\n{TERASORT}"
    # Reference: the version's own scripts with no HADOOP_CONF_DIR: Hadoop's local runner.
    home = site or REPO / "mapreduce" / "target" / "dist"
    local_env = {k: v for k, v in os.environ.items()
                 if not k.startswith(("HADOOP_", "HAM_"))}
    local_env.update(HADOOP_HOME=str(home), PATH=f"{home / 'bin'}:{local_env['PATH']}")
    (base / "local").mkdir()
    # HAM: the same script inside `ham run -N 3`, then what the job's commands answer.
    shared = base / "shared"
    shared.mkdir()
    env = {**cluster, **hadoop_settings(version, site), "HAM_SHARED_ROOT": str(shared),
           "PATH": os.environ["PATH"]}
    (base / "ham").mkdir()
    local, r = side_by_side(
        ["bash", "-c", whole + checks_script(FS_CHECKS)],
        [sys.executable, "-m", "ham", "run", "-N", "3", "--", "bash", "-c",
         whole + checks_script({**FS_CHECKS, **CHECKS, **DAEMON_ONLY})],
        timeout=TIMEOUT, reference_kw={"cwd": base / "local", "env": local_env},
        ham_kw={"cwd": base / "ham", "env": env})
    assert local.returncode == 0, local.stdout[-2000:] + local.stderr[-3000:]
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-5000:]
    return {"version": version, "home": home, "local": base / "local", "ham": base / "ham",
            "log": r.stdout + r.stderr, "shared": shared, "books": base / "books-src"}


def check(runs, name: str, where: str = "ham") -> tuple[str, str, int]:
    d = runs[where] / "checks"
    return ((d / f"{name}.out").read_text(), (d / f"{name}.err").read_text(),
            int((d / f"{name}.rc").read_text()))


@pytest.mark.parametrize("output", ["counts", "streamed", "tera-out"])
def test_outputs_identical_to_the_versions_local_runner(runs, output):
    local, ham = runs["local"] / output, runs["ham"] / output
    names = sorted(p.name for p in local.iterdir() if p.name.startswith("part-"))
    assert names and names == sorted(p.name for p in ham.iterdir() if p.name.startswith("part-"))
    for name in names:
        assert filecmp.cmp(local / name, ham / name, shallow=False), f"{output}/{name} differs"
    assert (ham / "_SUCCESS").exists()


def test_hdfs_dfs_ls_and_cat_print_what_the_versions_own_scripts_print(runs):
    """`hdfs dfs -ls books` lists the files the script put there (mode, replication, owner,
    group, size and the relative path as typed: all the local runner's listing shows but the
    time), and `hdfs dfs -cat` prints the job's output files, byte for byte the local run's."""
    out, err, rc = check(runs, "hdfs-ls")
    local, local_err, local_rc = check(runs, "hdfs-ls", "local")
    assert rc == 0 and local_rc == 0, err + local_err

    def rows(listing: str) -> dict[str, list[str]]:
        lines = listing.splitlines()
        assert lines[0] == f"Found {len(lines) - 1} items", listing
        # mode, replication, owner, group, size, date, time, path: the time is when it ran.
        return {r[7]: r[:5] for r in map(str.split, lines[1:])}

    listed = rows(out)
    assert listed == rows(local)
    assert {path: int(r[4]) for path, r in listed.items()} == \
        {f"books/{f.name}": f.stat().st_size for f in runs["books"].iterdir()}
    out, err, rc = check(runs, "hdfs-cat")
    assert rc == 0, err
    parts = sorted((runs["ham"] / "counts").glob("part-r-*"))
    assert parts and out == "".join(p.read_text() for p in parts)
    assert out == check(runs, "hdfs-cat", "local")[0]


def test_jobs_ran_on_hams_runners_with_the_versions_hadoop(runs):
    records = [json.loads(p.read_text()) for p in runs["shared"].glob("*/*/jobs/*/status.json")]
    assert len(records) == 4  # wordcount, streaming, teragen, terasort
    assert all(r["state"] == "SUCCEEDED" for r in records)
    nodes = {a["node"] for r in records for a in r["attempts"]}
    assert len(nodes) >= 2 and nodes <= {"node1", "node2", "node3"}, nodes
    out, _, rc = check(runs, "mapred-version")
    assert rc == 0 and out.startswith(f"Hadoop {runs['version']}")
    # Jobs set no key HAM ignores, whatever the version's defaults are.
    assert "WARN ham:" not in runs["log"]


def test_the_environment_of_a_hadoop_installation(runs):
    env = dict(line.split("=", 1) for line in check(runs, "env")[0].splitlines() if "=" in line)
    home = str(runs["home"])
    assert env["HADOOP_HOME"] == home and env["HADOOP_MAPRED_HOME"] == home
    job_dir = Path(env["HAM_JOB_DIR"])
    assert env["HADOOP_CONF_DIR"] == str(job_dir / "conf")
    assert env["HADOOP_CLASSPATH"].split(":")[0].endswith("ham-mapreduce.jar")
    which = check(runs, "which")[0].split()
    assert which == [str(job_dir / "bin" / c) for c in ("hadoop", "mapred", "yarn", "hdfs")]
    # The streaming jar where tools look for it.
    assert any(n.startswith(f"hadoop-streaming-{runs['version']}")
               for n in check(runs, "streaming-jar")[0].split())


def test_mapred_classpath_and_job_list(runs):
    out, _, rc = check(runs, "mapred-classpath")
    assert rc == 0
    parts = out.strip().split(":")
    conf = next(i for i, p in enumerate(parts) if p.endswith("/conf"))
    assert all(p.endswith(".jar") for p in parts[:conf])
    assert any(p.startswith(f"{runs['home']}/share/hadoop/mapreduce/") for p in parts[:conf])
    out, err, rc = check(runs, "mapred-job-list")
    assert rc == 0 and "Total jobs:4" in out, out + err


def test_yarn_application_lists_hams_jobs(runs):
    out, err, rc = check(runs, "yarn-application-list")
    assert rc == 0, err
    lines = out.splitlines()
    assert lines[0].startswith("Total number of applications") and lines[0].endswith("):4")
    rows = [line.split("\t") for line in lines[2:]]
    assert {r[0].strip().split("_")[0] for r in rows} == {"application"}
    assert {r[2].strip() for r in rows} == {"MAPREDUCE"}
    assert {(r[5].strip(), r[6].strip()) for r in rows} == {("FINISHED", "SUCCEEDED")}
    assert "word count" in {r[1].strip() for r in rows}


@pytest.mark.parametrize("name", ["hdfs-scheme", "hdfs-scheme-direct"])
def test_hdfs_paths_fail_with_one_line_naming_the_scheme(runs, name):
    _, err, rc = check(runs, name)
    lines = [line for line in err.splitlines() if line.strip()]
    assert rc != 0 and len(lines) == 1, err
    assert "HAM has no HDFS" in lines[0] and "file://" in lines[0]


@pytest.mark.parametrize("name", sorted(DAEMON_ONLY))
def test_daemon_only_commands_give_one_line(runs, name):
    out, err, rc = check(runs, name)
    assert rc == 1 and out == ""
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("ERROR: "), err
    assert "HAM" in lines[0]
