"""HPC habits without a cluster: array specs and the array variables in the batch script, the
default job name, mail options, and the sizing warning's wording."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from ham import arrays, sizing
from ham.api import default_job_name
from ham.errors import UsageError


@pytest.mark.parametrize("spec, ids", [("0-2", [0, 1, 2]), ("1,3,5", [1, 3, 5]),
                                       ("0-10:5", [0, 5, 10]), ("1-3%2", [1, 2, 3]),
                                       ("4", [4]), ("2-3,1", [1, 2, 3])])
def test_array_specs(spec, ids):
    assert arrays.task_ids(spec) == ids


@pytest.mark.parametrize("spec", ["", "a-b", "3-1", "0-4:0", "1-3%x", "1,,2"])
def test_bad_array_specs_are_one_line(spec):
    with pytest.raises(UsageError) as e:
        arrays.task_ids(spec)
    assert "\n" not in str(e.value) and "--array" in str(e.value)


def test_array_variables_expand_in_the_script_and_nothing_else_does():
    word = "in/$SLURM_ARRAY_TASK_ID/${SLURM_ARRAY_JOB_ID}-$HOME $(rm -rf /)"
    quoted = arrays.shell_word(word)
    out = subprocess.run(["bash", "-c", f"printf %s {quoted}"], capture_output=True, text=True,
                         env={"SLURM_ARRAY_TASK_ID": "7", "SLURM_ARRAY_JOB_ID": "41",
                              "HOME": "/h", "PATH": os.environ["PATH"]}).stdout
    assert out == "in/7/41-$HOME $(rm -rf /)"
    assert arrays.shell_word("plain 'word'") == "'plain '\"'\"'word'\"'\"''"
    assert arrays.shell_word("$SLURM_ARRAY_TASK_ID") == '"${SLURM_ARRAY_TASK_ID}"'
    assert arrays.expand("out/$SLURM_ARRAY_TASK_ID", 2) == "out/2"
    assert not arrays.uses_variables("$SLURM_ARRAY_TASK_IDX")


@pytest.mark.parametrize("command, name", [
    (["hadoop", "jar", "/x/hadoop-mapreduce-examples-3.4.2.jar", "wordcount", "a", "b"], "ham-wordcount"),
    (["hadoop", "jar", "app.jar", "org.example.MyJob", "in", "out"], "ham-MyJob"),
    (["yarn", "jar", "/x/hadoop-streaming-3.4.2.jar", "-input", "a"], "ham-hadoop-streaming"),
    (["bash", "run.sh"], "ham-bash"),
])
def test_default_job_names(command, name):
    assert default_job_name(command) == name


def ham(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "ham", *args], capture_output=True, text=True,
                          env={**os.environ, **env})


def test_submit_dry_run_of_an_array_with_mail(tmp_path):
    for i in range(2):
        (tmp_path / "in" / str(i)).mkdir(parents=True)
    (tmp_path / "app.jar").write_bytes(b"PK\x05\x06" + b"\0" * 18)  # an empty zip
    r = ham("submit", "--dry-run", "--array", "0-1", "--mail-type", "END,FAIL", "--mail-user",
            "me@example.org", "--", "hadoop", "jar", str(tmp_path / "app.jar"), "Main",
            str(tmp_path / "in" / "$SLURM_ARRAY_TASK_ID"), HAM_SHARED_ROOT=str(tmp_path))
    assert r.returncode == 0, r.stderr
    for line in ("#SBATCH --array=0-1", "#SBATCH --mail-type=END,FAIL",
                 "#SBATCH --mail-user=me@example.org", "#SBATCH --job-name=ham-Main",
                 f"#SBATCH --output={os.getcwd()}/ham-%A_%a.out"):
        assert line in r.stdout.splitlines(), r.stdout
    assert '/in/"${SLURM_ARRAY_TASK_ID}"' in r.stdout
    r = ham("submit", "--wait", "--array", "0-1", "--", "true", HAM_SHARED_ROOT=str(tmp_path))
    assert r.returncode == 2 and "--wait" in r.stderr and len(r.stderr.strip().splitlines()) == 1
    # A task without its input is refused before anything is submitted.
    examples = tmp_path / "hadoop-mapreduce-examples-3.4.2.jar"  # its programs' paths are known
    examples.write_bytes((tmp_path / "app.jar").read_bytes())
    r = ham("submit", "--dry-run", "--array", "0-2", "--", "hadoop", "jar", str(examples),
            "wordcount", str(tmp_path / "in" / "$SLURM_ARRAY_TASK_ID"),
            str(tmp_path / "out" / "$SLURM_ARRAY_TASK_ID"), HAM_SHARED_ROOT=str(tmp_path))
    assert r.returncode == 2 and "in/2" in r.stderr, r.stderr


def test_the_sizing_warning_names_the_fix():
    said = sizing.warning(1, 32, "cn01")
    assert said and "1 of cn01's 32 CPUs" in said and "--exclusive" in said and "-c 32" in said
    assert sizing.warning(32, 32, "cn01") is None
    assert sizing.warning(None, 32, "cn01") is None
    assert sizing.allocated_cpus({"SLURM_JOB_CPUS_PER_NODE": "4(x3)"}) == 4
    assert sizing.allocated_cpus({"SLURM_CPUS_ON_NODE": "2", "SLURM_JOB_CPUS_PER_NODE": "4"}) == 2
