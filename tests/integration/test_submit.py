"""`ham submit` on the test cluster: argv round trip, exit codes, a real wordcount."""

from __future__ import annotations

import io
import shlex
import subprocess
import json
import os
import sys

from tests.integration.conftest import run_ham
from tests.integration.test_hadoop_and_doctor import read_counts, write_corpus

HOSTILE = ["a b", "it's", 'say "hi"', "$(touch pwned)", "`id`", "a;b&&c|d", "<x>&amp;",
           "new\nline", "back\\slash", "*", "", "${HOME}", "!x"]


def test_argv_reaches_the_job_unchanged(cluster, shared_root, tmp_path):
    printer = [sys.executable, "-c", "import json,sys; print('ARGV=' + json.dumps(sys.argv[1:]))"]
    r = run_ham("submit", "--wait", "-N", "1", "-o", str(tmp_path / "job.out"), "--",
                *printer, *HOSTILE, env={**cluster, "HAM_SHARED_ROOT": str(shared_root)},
                cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    line = next(x for x in r.stdout.splitlines() if x.startswith("ARGV="))
    assert json.loads(line[5:]) == HOSTILE
    assert not (tmp_path / "pwned").exists()


def test_wait_returns_the_job_exit_code(cluster, shared_root, tmp_path):
    r = run_ham("submit", "--wait", "-N", "1", "--", "sh", "-c", "echo hello; exit 7",
                env={**cluster, "HAM_SHARED_ROOT": str(shared_root)}, cwd=tmp_path)
    assert r.returncode == 7
    assert "hello" in r.stdout


def test_submit_wordcount_on_ham(cluster, shared_root, tmp_path, hadoop_jars):
    expected = write_corpus(tmp_path / "in")
    r = run_ham("submit", "--wait", "-N", "3", "--",
                "hadoop", "jar", str(hadoop_jars["examples"]), "wordcount",
                str(tmp_path / "in"), str(tmp_path / "out"),
                env={**cluster, "HAM_SHARED_ROOT": str(shared_root)}, cwd=tmp_path)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr
    assert read_counts(tmp_path / "out") == expected
    # The per-job directory is private, and retention 'logs' removed intermediate data.
    user_dir = next(shared_root.iterdir())
    job_dir = next(user_dir.iterdir())
    assert job_dir.stat().st_mode & 0o777 == 0o700
    assert not (job_dir / "staging").exists()
    record = json.loads((job_dir / "ham.json").read_text())
    assert record["exit_code"] == 0 and record["command"][0] == "hadoop"


def test_python_api_submit_wait_counters_logs(cluster, shared_root, tmp_path, hadoop_jars):
    from ham import Job

    expected = write_corpus(tmp_path / "in")
    env = {**os.environ, **cluster}
    job = Job.hadoop_jar(str(hadoop_jars["examples"]), "wordcount", str(tmp_path / "in"),
                         str(tmp_path / "out"), nodes="3", output=str(tmp_path / "job-%j.out"),
                         settings={"shared_root": str(shared_root)}, env=env)
    assert "#SBATCH --nodes=3" in job.script()
    job_id = job.submit()
    assert job_id.isdigit()
    sink = io.BytesIO()
    assert job.wait(sink) == 0
    assert b"map 100% reduce 100%" in sink.getvalue()
    assert read_counts(tmp_path / "out") == expected
    counters = job.counters()
    assert counters["org.apache.hadoop.mapreduce.TaskCounter"]["MAP_INPUT_RECORDS"] == 3
    assert any(p.name.endswith(".syslog") for p in job.logs())
    assert job.status()[0].slurm_state == "COMPLETED"


def test_wait_on_a_terminal_shows_a_live_progress_line(cluster, shared_root, tmp_path, hadoop_jars):
    """`script` gives `ham submit --wait` a terminal: one line rewritten in place."""
    cmd = shlex.join([sys.executable, "-m", "ham", "submit", "--wait", "-N", "3", "--", "hadoop",
                      "jar", str(hadoop_jars["jobclient_tests"]), "sleep", "-m", "12", "-r", "1",
                      "-mt", "500", "-rt", "1"])
    r = subprocess.run(["script", "-qfec", cmd, "/dev/null"], capture_output=True,
                       env={**os.environ, **cluster, "HAM_SHARED_ROOT": str(shared_root)},
                       cwd=tmp_path, timeout=300)
    out = r.stdout.decode(errors="replace")  # bytes: text mode would turn \r into \n
    assert r.returncode == 0, out[-2000:]
    updates = out.split("\r\x1b[2K")
    assert len(updates) > 3
    assert "SUCCEEDED map 100% reduce 100% (12/12 maps, 1/1 reduces, 0 failed)" in updates[-1]
    assert "Job Counters" not in out  # the job's own output stays in its file
