"""Bad input: a one-line error naming the problem and the fix, exit code 2, no traceback, and
nothing submitted to Slurm (checked in squeue, and in sacct once accounting has caught up)."""

from __future__ import annotations

import getpass
import os
import stat
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from tests.conftest import MAPREDUCE_JARS
from tests.integration.conftest import finished, run_ham, wait_finished, wait_for

FAKE_OLD_JAVA = '#!/bin/sh\necho \'openjdk version "1.8.0_392"\' >&2\n'


CASES = {
    "missing jar": (lambda t, ex: ["--", "hadoop", "jar", str(t / "nope.jar"), "wordcount", "a", "b"],
                    {}, "jar file not found"),
    "shared root missing": (lambda t, ex: ["--", "hadoop", "jar", ex, "pi", "1", "1"],
                            {"HAM_SHARED_ROOT": "{t}/absent"}, "does not exist"),
    "shared root is a file": (lambda t, ex: ["--", "hadoop", "jar", ex, "pi", "1", "1"],
                              {"HAM_SHARED_ROOT": "{t}/file"}, "is not a directory"),
    "unknown partition": (lambda t, ex: ["-p", "gpu-nope", "--", "hadoop", "jar", ex, "pi", "1", "1"],
                          {}, "unknown partition 'gpu-nope'"),
    "malformed -D": (lambda t, ex: ["--", "hadoop", "jar", ex, "wordcount", "-D", "oops", "a", "b"],
                     {}, "write -D key=value"),
    "missing input path": (lambda t, ex: ["--", "hadoop", "jar", ex, "wordcount", str(t / "no-in"),
                                          str(t / "out")], {}, "input path does not exist"),
    "output exists": (lambda t, ex: ["--", "hadoop", "jar", ex, "wordcount", str(t / "file"),
                                     str(t)], {}, "output path already exists"),
    "command not found": (lambda t, ex: ["--", "no-such-program", "x"], {}, "command not found"),
    "bad settings value": (lambda t, ex: ["--", "true"], {"HAM_RETENTION": "forever"},
                           "HAM_RETENTION"),
    "site hadoop missing": (lambda t, ex: ["--", "hadoop", "version"], {"HAM_HADOOP": "site",
                                                                       "HADOOP_HOME": ""},
                            "no site Hadoop found"),
    "java too old": (lambda t, ex: ["--", "hadoop", "version"], {"HAM_JAVA_HOME": "{t}/oldjava"},
                     "needs Java 17"),
    "nonsense nodes": (lambda t, ex: ["-N", "-3", "--", "true"], {}, "node count"),
    "nonsense time": (lambda t, ex: ["-t", "soon", "--", "true"], {}, "Slurm time"),
    "nonsense memory": (lambda t, ex: ["--mem", "a lot", "--", "true"], {}, "memory size"),
    "time Slurm would misread": (lambda t, ex: ["-t", "1:99:00", "--", "true"], {},
                                 "minutes and seconds go up to 59"),
    "node range upside down": (lambda t, ex: ["-N", "4-2", "--", "true"], {},
                               "minimum node count is above the maximum"),
    "not a jar": (lambda t, ex: ["--", "hadoop", "jar", str(t / "file"), "wordcount", "a", "b"],
                  {}, "is not a jar (zip) file"),
    "shared root with a space": (lambda t, ex: ["--", "hadoop", "jar", ex, "pi", "1", "1"],
                                 {"HAM_SHARED_ROOT": "{t}/my jobs"}, "path with spaces"),
}


@pytest.fixture(scope="module")
def refused(cluster, tmp_path_factory) -> dict:
    """Every case run by each command (each in its own directory, under its own job name),
    then one look at Slurm for all of them: squeue, and sacct once it lists a marker job
    submitted after the last command (it lags a few seconds behind: once, not once a case)."""
    examples = str(next(MAPREDUCE_JARS.glob("hadoop-mapreduce-examples-*.jar")))
    since = time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(time.time() - 60))
    results = {}
    for case in sorted(CASES):
        for command in ("submit", "run"):
            t = tmp_path_factory.mktemp("badinput")
            (t / "shared").mkdir()
            (t / "file").write_text("")
            old = t / "oldjava" / "bin"
            old.mkdir(parents=True)
            (old / "java").write_text(FAKE_OLD_JAVA)
            (old / "java").chmod(stat.S_IRWXU)
            args_for, extra_env, _ = CASES[case]
            name = f"badinput-{uuid.uuid4().hex[:8]}"
            env = {**cluster, "HAM_SHARED_ROOT": str(t / "shared")}
            env.update({k: v.format(t=t) for k, v in extra_env.items()})
            results[case, command] = (run_ham(command, "-J", name, *args_for(t, examples),
                                              env=env, cwd=t), name, t)
    queued, accounted = slurm_jobs_since(cluster, since)
    return {"results": results, "queued": queued, "accounted": accounted}


@pytest.mark.parametrize("command", ["submit", "run"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_bad_input_is_refused_before_slurm(refused, case, command):
    r, name, workdir = refused["results"][case, command]
    assert r.returncode == 2, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("ham: error: "), r.stderr
    assert CASES[case][2] in lines[0]
    assert "Traceback" not in r.stderr
    # Nothing reached Slurm: no job of its name or under its directory, in any state.
    assert not ours(refused["queued"], name, workdir), refused["queued"]
    assert not ours(refused["accounted"], name, workdir), refused["accounted"]


def ours(lines: str, name: str, workdir: Path) -> list[str]:
    """The lines of `ID|NAME|WORKDIR` that name the job name or work under workdir."""
    return [line for line in lines.splitlines() if line.split("|")[1] == name or
            Path(line.split("|")[2]).is_relative_to(workdir)]


def slurm_jobs_since(cluster: dict[str, str], since: str) -> tuple[str, str]:
    """Every job squeue knows (in any state: an ended job stays there for a while), and every
    job sacct lists since `since` once it lists a marker job submitted now (Slurm sends its
    accounting in order), as `ID|NAME|WORKDIR` lines."""
    env = {**os.environ, **cluster}
    queued = subprocess.run(["squeue", "-h", "-t", "all", "-o", "%i|%j|%Z"], capture_output=True,
                            text=True, env=env, check=True).stdout
    # A job that runs (sacct leaves out a held one: it has no eligible time).
    marker = subprocess.run(["sbatch", "--parsable", "-J", "badinput-marker", "-o", "/dev/null",
                             "--chdir", "/", "--wrap", "true"], capture_output=True, text=True,
                            env=env, check=True).stdout.strip()

    def accounted() -> str:
        out = subprocess.run(["sacct", "-n", "-X", "-P", "-S", since, "-o", "JobID,JobName,WorkDir"],
                             capture_output=True, text=True, env=env, check=True).stdout
        return out if any(line.split("|")[0] == marker for line in out.splitlines()) else ""
    return queued, wait_for(accounted, 60, f"accounting to list the marker job {marker}")


def test_slurm_answers_a_user_must_hear(cluster, shared_root, tmp_path):
    """What Slurm says without failing: `ham env` and `ham run` in a shell whose allocation
    ended are refused (they made a job directory, and `ham run`'s job hung at map 0%), scancel of
    a job Slurm does not know is an error (scancel exits 0), and `ham submit --wait` of a job
    that was cancelled exits 1 (it exited 0)."""
    env = {**cluster, "HAM_SHARED_ROOT": str(shared_root)}
    r = run_ham("submit", "-N", "1", "-t", "5", "--", "true", env=env, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    ended = r.stdout.strip()
    wait_finished(ended)
    made = sorted((shared_root / getpass.getuser()).iterdir())
    for command in (["env"], ["run", "--", "true"]):
        r = run_ham(*command, env={**env, "SLURM_JOB_ID": ended, "SLURM_JOB_NODELIST": "node1"},
                    cwd=tmp_path)
        assert r.returncode == 2 and r.stderr.count("\n") == 1, r.stderr
        assert f"SLURM_JOB_ID={ended} is not a running Slurm allocation (COMPLETED)" in r.stderr
    assert sorted((shared_root / getpass.getuser()).iterdir()) == made  # no job directory
    r = run_ham("cancel", "999999", env=env)
    assert r.returncode == 3 and "Invalid job id" in r.stderr, r.stderr
    waiting = subprocess.Popen([sys.executable, "-m", "ham", "submit", "--wait", "-N", "1", "-t",
                                "5", "--", "sleep", "300"], env={**os.environ, **env},
                               cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True)
    job = waiting.stdout.readline().strip()
    wait_for(lambda: (finished(job) is None and _state(job, cluster) == "RUNNING"), 60,
             f"job {job} running")
    assert run_ham("cancel", job, env=env).returncode == 0
    out, err = waiting.communicate(timeout=120)
    assert waiting.returncode == 1, err
    assert f"ham: job {job} CANCELLED, exit code 1" in err


def _state(job: str, cluster: dict[str, str]) -> str:
    return subprocess.run(["squeue", "-h", "-j", job, "-o", "%T"], capture_output=True,
                          text=True, env={**os.environ, **cluster}).stdout.strip()
