"""`ham env` inside salloc: plain `hadoop jar` works from bash and from tcsh."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.integration.test_hadoop_and_doctor import read_counts, write_corpus

SCRIPTS = {
    "bash": ('export HADOOP_PREFIX=/opt/elsewhere && eval "$({ham} env)" && test -n "$HAM_JOB_DIR" && '
             'echo "HOME=$HADOOP_HOME PREFIX=$HADOOP_PREFIX" && echo "OPTS=$HADOOP_CLIENT_OPTS" && '
             'yarn jar {jar} wordcount {inp} {out} && echo "JOBDIR=$HAM_JOB_DIR" && '
             'eval "$({ham} env --cleanup)" && echo "AFTER=${{HAM_JOB_DIR:-unset}}" && '
             'echo "RESTORED=${{HADOOP_HOME:-unset}} $HADOOP_PREFIX $(command -v yarn || echo no-yarn)" && '
             'echo "OPTS_AFTER=${{HADOOP_CLIENT_OPTS:-unset}}"'),
    "tcsh": ('eval "`{ham} env --shell tcsh`" && '
             'hadoop jar {jar} wordcount {inp} {out} && echo "JOBDIR=$HAM_JOB_DIR" && '
             'eval "`{ham} env --shell tcsh --cleanup`" && '
             'if (! $?HAM_JOB_DIR) echo "AFTER=unset"'),
}


@pytest.mark.parametrize("shell", sorted(SCRIPTS))
def test_ham_env_makes_plain_hadoop_work(cluster, shared_root, tmp_path, hadoop_jars, shell):
    expected = write_corpus(tmp_path / "in")
    ham = f"{sys.executable} -m ham"
    script = SCRIPTS[shell].format(ham=ham, jar=hadoop_jars["examples"], inp=tmp_path / "in",
                                   out=tmp_path / "out")
    argv = ["salloc", "-N", "3", shell, "-c", script] if shell == "bash" else \
        ["salloc", "-N", "3", "tcsh", "-f", "-c", script]
    r = subprocess.run(argv, capture_output=True, text=True, timeout=600,
                       env={**cluster, "HAM_SHARED_ROOT": str(shared_root),
                            "PATH": os.environ["PATH"], "HOME": str(tmp_path)})
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-3000:]
    assert read_counts(tmp_path / "out") == expected
    job_dir = next(line[7:] for line in r.stdout.splitlines() if line.startswith("JOBDIR="))
    assert job_dir.startswith(str(shared_root))
    assert "AFTER=unset" in r.stdout
    if shell == "bash":
        # What a Hadoop installation sets, every name of it leading to the job's Hadoop; and
        # back as it was afterwards.
        home = next(line for line in r.stdout.splitlines() if line.startswith("HOME="))
        assert home.split()[0][5:] == home.split()[1][7:] and home.split()[0].endswith("/dist")
        assert "RESTORED=unset /opt/elsewhere no-yarn" in r.stdout
        # The client's class-data archive (client_cds) and its JIT (client_jit, C1 by
        # default), and none after --cleanup.
        opts = next(line for line in r.stdout.splitlines() if line.startswith("OPTS="))
        assert "-XX:SharedArchiveFile=" in opts and "/client-" in opts, opts
        assert "-XX:TieredStopAtLevel=1" in opts, opts
        assert "OPTS_AFTER=unset" in r.stdout
    # --cleanup applied retention 'logs': configuration kept, intermediate data gone.
    assert not (Path(job_dir) / "staging").exists()
    # The job ran on HAM's runners across the allocation (the framework `ham env` renders),
    # not in Hadoop's local runner.
    status = json.loads(next(Path(job_dir).glob("jobs/*/status.json")).read_text())
    assert status["state"] == "SUCCEEDED"
    assert {a["node"] for a in status["attempts"]} <= {"node1", "node2", "node3"}
    assert status["attempts"] and status["runners"] >= 3
