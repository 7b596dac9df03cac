"""Job history that outlives the allocation: after a job, `mapred job -history` prints it from
the .jhist HAM wrote, and `ham history-server` (Hadoop's own JobHistoryServer) serves it over
REST (checked with yarn-api-client's HistoryServer client) and in its web UI (headless
Chromium: a screenshot of the job page, the pages' text checked for the job and its counters,
an attempt's log page for a line the task wrote); `mapred job -logs` prints the same log from
the job's configuration. One server with --all-users lists the jobs of two users."""

from __future__ import annotations

import json
import re
import shutil
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from yarn_api_client.history_server import HistoryServer

from tests.integration.conftest import session_dir, wait_for
from tests.integration.test_non_root import HAM, USER, as_user
from tests.integration.test_runtime import EXAMPLES

CHROMIUM = ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
            "--no-first-run", "--disable-background-networking", "--disable-component-update",
            "--disable-sync"]


@pytest.fixture(scope="module")
def shared(cluster):
    """A site's shared root (1777, as test_non_root's): root's and hamuser's jobs side by side.
    Not under pytest's tmp dir, which is private to root."""
    base = session_dir("ham-history-")
    base.chmod(0o755)
    (base / "shared").mkdir()
    (base / "shared").chmod(0o1777)
    yield base / "shared"
    shutil.rmtree(base)


def wordcount_input(d: Path) -> None:
    (d / "in").mkdir()
    for i in range(3):
        (d / "in" / f"f{i}").write_text(" ".join(f"w{(i + j) % 13}" for j in range(400)) + "\n")


@pytest.fixture(scope="module")
def job(cluster, shared, tmp_path_factory) -> dict:
    """A finished wordcount (3 maps, 2 reduces); its job directory stays (retention logs)."""
    d = tmp_path_factory.mktemp("history")
    wordcount_input(d)
    env = {**cluster, "HAM_SHARED_ROOT": str(shared)}
    r = subprocess.run([sys.executable, "-m", "ham", "run", "-N", "3", "--", "hadoop", "jar",
                        str(EXAMPLES), "wordcount", "-D", "mapreduce.job.reduces=2", "in", "out"],
                       cwd=d, env=env, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    status_file = next(shared.glob("root/*/jobs/*/status.json"))
    return {"dir": d, "env": env, "status": json.loads(status_file.read_text()),
            "job_dir": status_file.parent, "shared": shared}


def test_mapred_job_history_prints_the_job(job):
    jhist = next((job["job_dir"] / "history").glob("*.jhist"))
    r = subprocess.run([sys.executable, "-m", "ham", "mapred", "job", "-history", str(jhist)],
                       env=job["env"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-3000:]
    status = job["status"]
    assert f"Hadoop job: {status['job_id']}" in r.stdout
    assert "Status: SUCCEEDED" in r.stdout
    records = status["counters"]["org.apache.hadoop.mapreduce.TaskCounter"]["MAP_INPUT_RECORDS"]
    assert re.search(rf"\|Map input records\s*\|{records:,}\s*\|0\s*\|{records:,}", r.stdout), \
        r.stdout[:3000]
    assert re.search(r"Map\s+3\s+3\s+0\s+0", r.stdout) and re.search(r"Reduce\s+2\s+2\s+0\s+0",
                                                                     r.stdout), r.stdout[-3000:]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_history_server_serves_the_job(job, tmp_path):
    port = free_port()
    server = subprocess.Popen([sys.executable, "-m", "ham", "history-server", "--port", str(port)],
                              env=job["env"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True)
    status = job["status"]
    job_id = status["job_id"]
    try:
        line = server.stdout.readline()
        assert line.startswith(f"JobHistoryServer: http://127.0.0.1:{port}/jobhistory"), \
            line + server.stderr.read() if server.poll() is not None else line
        hs = HistoryServer(f"http://127.0.0.1:{port}")
        listed = wait_for(lambda: [j for j in (hs.jobs().data["jobs"] or {}).get("job", [])
                                   if j["id"] == job_id], 60, "the job in the server's list")
        assert listed[0]["state"] == "SUCCEEDED" and listed[0]["mapsTotal"] == 3
        detail = hs.job(job_id).data["job"]
        assert detail["reducesCompleted"] == 2 and detail["user"] == status["user"]
        counters = {c["name"]: c["totalCounterValue"]
                    for g in hs.job_counters(job_id).data["jobCounters"]["counterGroup"]
                    for c in g["counter"]}
        for name in ("MAP_INPUT_RECORDS", "REDUCE_OUTPUT_RECORDS"):
            assert counters[name] == \
                status["counters"]["org.apache.hadoop.mapreduce.TaskCounter"][name], name
        tasks = hs.job_tasks(job_id).data["tasks"]["task"]
        assert sorted(t["type"] for t in tasks) == ["MAP"] * 3 + ["REDUCE"] * 2
        attempts = hs.task_attempts(job_id, tasks[0]["id"]).data["taskAttempts"]["taskAttempt"]
        assert attempts[0]["state"] == "SUCCEEDED" and attempts[0]["nodeHttpAddress"]

        # The web UI, as a browser shows it.
        shot = tmp_path / "job.png"
        page = f"http://127.0.0.1:{port}/jobhistory/job/{job_id}"
        subprocess.run([*CHROMIUM, f"--user-data-dir={tmp_path / 'profile'}",
                        "--window-size=1280,900", f"--screenshot={shot}", page],
                       capture_output=True, timeout=120, check=True)
        assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 10_000
        dom = subprocess.run([*CHROMIUM, f"--user-data-dir={tmp_path / 'profile2'}",
                              "--dump-dom", page], capture_output=True, text=True,
                             timeout=120).stdout
        assert job_id in dom and "SUCCEEDED" in dom and "word count" in dom
        dom = subprocess.run([*CHROMIUM, f"--user-data-dir={tmp_path / 'profile3'}", "--dump-dom",
                              f"http://127.0.0.1:{port}/jobhistory/jobcounters/{job_id}"],
                             capture_output=True, text=True, timeout=120).stdout
        assert "Map input records" in dom and f"{counters['MAP_INPUT_RECORDS']}" in dom

        # An attempt's logs, from the task page's "logs" link: the line the task's syslog ends
        # with, in the container the REST API names for the attempt.
        attempt = attempts[0]["id"]
        dom = subprocess.run([*CHROMIUM, f"--user-data-dir={tmp_path / 'profile4'}", "--dump-dom",
                              f"http://127.0.0.1:{port}/jobhistory/task/{tasks[0]['id']}"],
                             capture_output=True, text=True, timeout=120).stdout
        link = re.search(rf"/jobhistory/logs/[^'\"]*/{attempt}/{status['user']}", dom)
        assert link and f"/{attempts[0]['assignedContainerId']}/" in link.group(0), dom[-3000:]
        dom = subprocess.run([*CHROMIUM, f"--user-data-dir={tmp_path / 'profile5'}", "--dump-dom",
                              f"http://127.0.0.1:{port}{link.group(0)}"],
                             capture_output=True, text=True, timeout=120).stdout
        assert "Log Type: syslog" in dom and f"Task '{attempt}' done." in dom, dom[-3000:]

        # ham status reads the same job directory, with the server running.
        r = subprocess.run([sys.executable, "-m", "ham", "status", "--json"], env=job["env"],
                           capture_output=True, text=True, check=True)
        assert [h["job_id"] for s in json.loads(r.stdout) for h in s["hadoop_jobs"]] == [job_id]
    finally:
        server.send_signal(signal.SIGINT)
        code = server.wait(timeout=60)
    assert code == 0
    # HAM's own copy of the history stays with the job; the server marks it taken in its home.
    assert list((job["job_dir"] / "history").glob("*.jhist"))
    assert list(job["shared"].glob("*/.history/published/*.job_*"))
    # Its own log is written (the server's stderr goes nowhere).
    log = next(job["shared"].glob("*/.history/server.log")).read_text()
    assert "JobHistoryServer" in log, log[-2000:]


def test_mapred_job_logs_prints_an_attempts_log(job):
    """From the job's configuration (HADOOP_CONF_DIR=<job dir>/conf, as inside `ham run`), the
    aggregated log of one attempt, as on YARN after the application ended."""
    status = job["status"]
    attempt = next(a["id"] for a in status["attempts"] if a["type"] == "MAP")
    conf = job["job_dir"].parent.parent / "conf"
    r = subprocess.run([sys.executable, "-m", "ham", "mapred", "job", "-logs", status["job_id"],
                        attempt], env={**job["env"], "HADOOP_CONF_DIR": str(conf)},
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    assert "LogType:syslog" in r.stdout and f"Task '{attempt}' done." in r.stdout, r.stdout[-3000:]
    # Without an attempt YARN prints the ApplicationMaster's logs; HAM's driver log stays in
    # the job directory, and one line says how to read it.
    r = subprocess.run([sys.executable, "-m", "ham", "mapred", "job", "-logs", status["job_id"]],
                       env={**job["env"], "HADOOP_CONF_DIR": str(conf)}, capture_output=True,
                       text=True, timeout=120)
    session = job["job_dir"].parent.parent.name
    assert r.stdout.strip() == f"The driver's log of {status['job_id']} is not aggregated: run " \
        f"`ham logs {session} --driver`, or give an attempt id for that attempt's logs", r.stdout


def test_one_server_lists_every_users_jobs(job, cluster, tmp_path):
    """`ham history-server --all-users` over the site's shared root: root's job and a job of
    the unprivileged hamuser, each with its user."""
    work = job["shared"].parent / "work"
    work.mkdir()
    wordcount_input(work)
    for p in [work, *work.rglob("*")]:
        shutil.chown(p, USER)
    env = {"SLURM_CONF": cluster["SLURM_CONF"], "HAM_SHARED_ROOT": str(job["shared"]),
           "PATH": f"{HAM.parent}:/usr/bin:/bin", "HOME": f"/home/{USER}"}
    r = as_user([str(HAM), "run", "-N", "1", "--", "hadoop", "jar", str(EXAMPLES), "wordcount",
                 "in", "out"], env, work)
    assert r.returncode == 0, r.stderr[-3000:]
    theirs = json.loads(next((job["shared"] / USER).glob("*/jobs/*/status.json")).read_text())
    port = free_port()
    server = subprocess.Popen([sys.executable, "-m", "ham", "history-server", "--all-users",
                               "--port", str(port), "--dir", str(tmp_path / "site")],
                              env=job["env"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True)
    try:
        server.stdout.readline()
        assert server.stdout.readline().startswith(f"jobs of: every user under {job['shared']}")
        hs = HistoryServer(f"http://127.0.0.1:{port}")
        expected = {job["status"]["job_id"]: "root", theirs["job_id"]: USER}
        listed = wait_for(lambda: {j["id"]: j["user"] for j in
                                   (hs.jobs().data["jobs"] or {}).get("job", [])
                                   if j["id"] in expected} == expected, 60, "both users' jobs")
        assert listed
    finally:
        server.send_signal(signal.SIGINT)
        assert server.wait(timeout=60) == 0
