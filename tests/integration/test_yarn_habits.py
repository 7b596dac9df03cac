"""Habits from a YARN cluster, from a login shell with no job's configuration: `mapred job
-list/-status/-kill` on the user's running HAM jobs, `yarn logs -applicationId` (and
-containerId) on an ended one, `ham status/logs/report` with the Hadoop job id every Hadoop
message shows, `mapred historyserver` pointing at `ham history-server`, and `hadoop archive`
on file:// and lustre:// paths."""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap
from pathlib import Path

from tests.integration.conftest import wait_for
from tests.integration.test_node_loss import gated
from tests.integration.test_runtime import MAPPER, REDUCER
from tests.integration.test_runtime_faults import expected_counts, output_counts, streaming_cmd
from tests.integration.test_runtime_recovery import read_status, write_inputs

MARKER = "ham-yarn-logs-marker"


def login_env(cluster: dict[str, str], d: Path) -> dict[str, str]:
    """A login shell's: the cluster, HAM's settings, no job's Hadoop configuration."""
    env = {k: v for k, v in cluster.items() if not k.startswith(("HADOOP_", "HAM_JOB"))}
    (d / "shared").mkdir(exist_ok=True)
    return {**env, "HAM_SHARED_ROOT": str(d / "shared"), "HOME": str(d)}


def ham(env: dict[str, str], *args: str, cwd: Path, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "ham", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=timeout)


def state(d: Path) -> str | None:
    try:
        return read_status(d)["state"]
    except (AssertionError, KeyError):  # not written yet
        return None


def hadoop_job_id(d: Path) -> str:
    return wait_for(lambda: next((p.name for p in (d / "shared").glob("*/*/jobs/job_*")), None),
                    240, "the Hadoop job's directory")


def test_mapred_job_list_status_kill_from_a_login_shell(cluster, tmp_path):
    d = tmp_path
    write_inputs(d, 6)
    (d / "mapper.py").write_text(gated(MAPPER))  # the job runs until it is killed
    (d / "reducer.py").write_text(REDUCER)
    env = login_env(cluster, d)
    log = (d / "run.log").open("w")
    proc = subprocess.Popen([sys.executable, "-m", "ham", "run", "-N", "2", "--",
                             *streaming_cmd(d, "out")], cwd=d, stdout=log, stderr=subprocess.STDOUT,
                            env={**env, "RELEASE": str(d / "never")})
    try:
        job = hadoop_job_id(d)
        wait_for(lambda: state(d) == "RUNNING", 240, "the job to run")
        r = ham(env, "mapred", "job", "-list", cwd=d)
        assert r.returncode == 0, r.stdout + r.stderr
        assert re.search(rf"^\s*{job}\s.*\bRUNNING\b", r.stdout, re.M), r.stdout
        r = ham(env, "mapred", "job", "-status", job, cwd=d)
        assert r.returncode == 0 and "Job state: RUNNING" in r.stdout, r.stdout + r.stderr
        r = ham(env, "yarn", "application", "-list", cwd=d)
        assert r.returncode == 0 and "application_" + job.removeprefix("job_") in r.stdout, r.stdout
        r = ham(env, "mapred", "job", "-kill", job, cwd=d)
        assert r.returncode == 0 and f"Killed job {job}" in r.stdout, r.stdout + r.stderr
        proc.wait(timeout=300)
    finally:
        if proc.poll() is None:
            proc.kill()
        log.close()
    assert proc.returncode != 0
    assert read_status(d)["state"] == "KILLED"
    r = ham(env, "mapred", "job", "-list", "all", cwd=d)
    assert re.search(rf"^\s*{job}\s.*\bKILLED\b", r.stdout, re.M), r.stdout


def test_yarn_logs_and_hadoop_job_ids_from_a_login_shell(cluster, tmp_path):
    d = tmp_path
    write_inputs(d, 4)
    (d / "mapper.py").write_text(MAPPER.replace(
        "import sys\n", f"import sys\nprint('{MARKER}', file=sys.stderr)\n", 1))
    (d / "reducer.py").write_text(REDUCER)
    env = login_env(cluster, d)
    r = ham(env, "run", "-N", "2", "--", *streaming_cmd(d, "out"), cwd=d, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    assert output_counts(d / "out") == expected_counts(d)
    job = hadoop_job_id(d)
    app = "application_" + job.removeprefix("job_")

    r = ham(env, "yarn", "logs", "-applicationId", app, cwd=d)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    # One header per container and log type (stderr, stdout, syslog), as YARN prints them.
    containers = set(re.findall(r"^Container: (container_\S+) on (\S+)", r.stdout, re.M))
    status = read_status(d)
    assert len(containers) == len(status["attempts"]), (containers, status["attempts"])
    assert {node.split("_")[0] for _, node in containers} == {a["node"] for a in status["attempts"]}
    assert r.stdout.count(MARKER) == 4, r.stdout[-3000:]  # each map's stderr
    for log_type in ("stderr", "stdout", "syslog"):
        assert f"LogType:{log_type}" in r.stdout
    one = sorted(containers)[0][0]
    r = ham(env, "yarn", "logs", "-applicationId", app, "-containerId", one, cwd=d)
    assert r.returncode == 0 and set(re.findall(r"^Container: (container_\S+)", r.stdout, re.M)) == {one}, \
        r.stdout[-2000:] + r.stderr[-2000:]

    # The job id every Hadoop message names, where a Slurm job id goes.
    r = ham(env, "status", job, cwd=d)
    assert r.returncode == 0 and "SUCCEEDED" in r.stdout, r.stdout + r.stderr
    r = ham(env, "logs", app, cwd=d)
    assert r.returncode == 0 and r.stdout.count(".syslog") == len(status["attempts"]), r.stdout
    r = ham(env, "report", job, "-o", str(d / "t.png"), cwd=d)
    assert r.returncode == 0 and (d / "t.png").stat().st_size > 0, r.stderr
    r = ham(env, "status", "job_1_9999", cwd=d)
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1, r.stderr

    # The history server is HAM's own command.
    r = ham(env, "mapred", "historyserver", cwd=d)
    assert r.returncode == 1 and "ham history-server" in r.stderr and len(r.stderr.splitlines()) == 1, \
        r.stderr


def test_hadoop_archive_on_file_and_lustre_paths(cluster, tmp_path):
    """A .har made by `hadoop archive` (Hadoop's own tool, a MapReduce job on HAM) and read back
    through har://, on file:// paths and on lustre:// (the default file system)."""
    d = tmp_path
    src = d / "data" / "src"
    src.mkdir(parents=True)
    for i in range(3):
        (src / f"f{i}.txt").write_text(f"file {i}\n" * (100 * (i + 1)))
    root = d / "lustre-root"
    (root / "data").mkdir(parents=True)
    subprocess.run(["cp", "-r", str(src), str(root / "data")], check=True)
    env = {**login_env(cluster, d), "HAM_LUSTRE_ROOT": str(root)}
    script = textwrap.dedent("""\
        set -e
        hadoop archive -archiveName files.har -p {parent} src {dest}
        hadoop fs -ls -R {har}/files.har > {out}.ls
        hadoop fs -cat {har}/files.har/src/f2.txt > {out}.f2
        """)
    for name, extra, parent, dest, har in (
            ("file", {}, d / "data", d / "archives", f"har://{d}/archives"),
            ("lustre", {"HAM_FILESYSTEM": "lustre"}, "/data", "/archives", "har:///archives")):
        r = ham({**env, **extra}, "run", "-N", "2", "--", "bash", "-c",
                script.format(parent=parent, dest=dest, har=har, out=d / name), cwd=d, timeout=600)
        assert r.returncode == 0, (name, r.stdout[-2000:], r.stderr[-3000:])
        listed = (d / f"{name}.ls").read_text()
        assert all(f"files.har/src/f{i}.txt" in listed for i in range(3)), listed
        assert (d / f"{name}.f2").read_text() == (src / "f2.txt").read_text()
    assert (root / "archives" / "files.har" / "_index").is_file()
    assert (d / "archives" / "files.har" / "_index").is_file()
