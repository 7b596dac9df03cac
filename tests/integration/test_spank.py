"""The SPANK plugin on the test cluster (loaded by tests/cluster-up.sh with
root=/var/tmp/ham-spank-root): the prolog makes the job directory, the job sees HAM_JOB_DIR,
the epilog removes intermediate data even when every process of the job was SIGKILLed."""

from __future__ import annotations

import getpass
import subprocess
from pathlib import Path

from tests.integration.conftest import wait_finished, wait_for

SPANK_ROOT = Path("/var/tmp/ham-spank-root")


def test_prolog_env_and_epilog_after_sigkill(cluster, tmp_path):
    out = tmp_path / "job.out"
    script = ("#!/bin/bash\n"
              'echo "DIR=$HAM_JOB_DIR"; stat -c "MODE=%a OWNER=%U" "$HAM_JOB_DIR"\n'
              'mkdir -p "$HAM_JOB_DIR/staging/s" "$HAM_JOB_DIR/jobs/j/intermediate/m" '
              '"$HAM_JOB_DIR/jobs/j/logs"\n'
              'echo log > "$HAM_JOB_DIR/jobs/j/logs/attempt.node1.syslog"\n'
              "kill -KILL $$\n")
    r = subprocess.run(["sbatch", "--parsable", "--ham", "-N1", "-o", str(out)], input=script,
                       capture_output=True, text=True, env=cluster, check=True)
    job_id = r.stdout.strip()
    info = wait_finished(job_id)
    assert info.state == "FAILED"
    job_dir = SPANK_ROOT / getpass.getuser() / job_id
    text = out.read_text()
    assert f"DIR={job_dir}" in text
    assert f"MODE=700 OWNER={getpass.getuser()}" in text
    # The epilog runs right after the job ends.
    wait_for(lambda: not (job_dir / "staging").exists(), 10, "the epilog")
    assert not (job_dir / "staging").exists()
    assert not (job_dir / "jobs" / "j" / "intermediate").exists()
    assert (job_dir / "jobs" / "j" / "logs" / "attempt.node1.syslog").read_text() == "log\n"


def test_ham_run_uses_the_spank_directory(cluster, tmp_path):
    out = tmp_path / "job.out"
    script = ("#!/bin/bash\n"
              'ham_python="$1"\n'
              '"$ham_python" -m ham run -- sh -c \'echo "INNER=$HAM_JOB_DIR"\'\n')
    import sys
    r = subprocess.run(["sbatch", "--parsable", f"--ham={SPANK_ROOT}", "-N1", "-o", str(out),
                        "/dev/stdin", sys.executable], input=script, capture_output=True,
                       text=True, env=cluster, check=True)
    job_id = r.stdout.strip()
    info = wait_finished(job_id)
    text = out.read_text()
    assert info.exit_code == 0, text
    assert f"INNER={SPANK_ROOT / getpass.getuser() / job_id}\n" in text
