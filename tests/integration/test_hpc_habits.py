"""Habits of HPC users, on the test cluster: job arrays through `ham submit --array` (the task
id reaches the command), HAM's jobs recognisable in squeue and sacct (job name, and the Hadoop
job in the comment), and a job Slurm requeues (`scontrol requeue`, as preemption does) going on
from where its first run stopped."""

from __future__ import annotations

import re
import subprocess
from collections import Counter
from datetime import datetime

from tests.integration.conftest import wait_finished, wait_for
from tests.integration.test_resume import (HELD_FROM, MAPS, attempts_run, completed_maps, ham,
                                           held_maps_job, history, job_dir, status)
from tests.integration.test_resume import reference  # noqa: F401  (a fixture)
from tests.integration.test_runtime import same_tree


def sacct(cluster: dict[str, str], job_id: str, fields: str) -> list[list[str]]:
    out = subprocess.run(["sacct", "-X", "-P", "-n", "-j", job_id, "-o", fields], env=cluster,
                         capture_output=True, text=True, check=True).stdout
    return [line.split("|") for line in out.splitlines() if line]


def requeue_hold(cluster: dict[str, str], job_id: str) -> str:
    """"held" once a requeued job's first run has ended and Slurm holds it back (PENDING, its
    EligibleTime ahead: Reason=BeginTime); "started" once its second run began (the hold was
    over first); else "" (the first run is still COMPLETING)."""
    out = subprocess.run(["scontrol", "show", "job", "-o", job_id], env=cluster,
                         capture_output=True, text=True).stdout
    fields = dict(f.split("=", 1) for f in out.split() if "=" in f)
    state = fields.get("JobState")
    if state != "PENDING":
        # Right after the requeue the first run is COMPLETING (Restarts already 1).
        return "started" if fields.get("Restarts", "0") != "0" and state not in (
            "COMPLETING", "REQUEUED", "REQUEUE_HOLD", "REQUEUE_FED") else ""
    try:
        eligible = datetime.fromisoformat(fields.get("EligibleTime", ""))
    except ValueError:
        return ""
    return "held" if eligible > datetime.now() else ""


def test_array_tasks_each_run_the_command_with_their_id(cluster, tmp_path, hadoop_jars):
    """Three array tasks, three inputs, three outputs: each task's wordcount is its own input's.
    The job name names the program, the comment the Hadoop job (squeue's %k, sacct's Comment)."""
    d = tmp_path
    (d / "shared").mkdir()
    for i in range(3):
        (d / "in" / str(i)).mkdir(parents=True)
        (d / "in" / str(i) / "text").write_text(f"task{i} " * (i + 1) + "shared words shared\n")
    r = ham(d, cluster, "submit", "--array", "0-2", "-N", "1", "--", "hadoop", "jar",
            str(hadoop_jars["examples"]), "wordcount", str(d / "in" / "$SLURM_ARRAY_TASK_ID"),
            str(d / "out" / "$SLURM_ARRAY_TASK_ID"))
    assert r.returncode == 0, r.stderr
    array = r.stdout.strip()
    assert array.isdigit(), r.stdout
    # Every task ends (squeue -r lists them one by one while they run).
    def ended() -> list[list[str]] | None:
        rows = sacct(cluster, array, "JobID,State,JobName,Comment")
        tasks = [row for row in rows if re.fullmatch(rf"{array}_\d+", row[0])]
        return tasks if len(tasks) == 3 and all(t[1] not in ("PENDING", "RUNNING", "REQUEUED")
                                                  for t in tasks) else None
    tasks = wait_for(ended, 600, "the three array tasks to end")
    assert {t[1] for t in tasks} == {"COMPLETED"}, tasks
    assert {t[2] for t in tasks} == {"ham-wordcount"}, tasks
    # The driver names the Hadoop job in the Slurm job's comment (stored by sacct here,
    # AccountingStoreFlags=job_comment).
    assert all(re.fullmatch(r"ham job_\d+_\d+ word count", t[3]) for t in tasks), tasks
    for i in range(3):
        got = dict(line.split("\t") for line in
                   "".join(p.read_text() for p in sorted((d / "out" / str(i)).glob("part-r-*")))
                   .splitlines())
        want = Counter((d / "in" / str(i) / "text").read_text().split())
        assert {w: int(n) for w, n in got.items()} == want, (i, got)
        assert (d / f"ham-{array}_{i}.out").is_file()


def test_a_requeued_job_resumes_what_its_first_run_stopped(cluster, tmp_path, reference):
    """`ham submit --requeue`, then `scontrol requeue` once 6 of 12 maps are done (the others
    hold): Slurm stops the batch script (HAM stops the job where it is, keeping the finished
    maps) and starts it again under the same job id; that run resumes the stopped job instead
    of running the command from the start: only the 6 maps that did not finish run, and the
    output is the local runner's."""
    d, cmd = held_maps_job(tmp_path)
    r = ham(d, cluster, "submit", "--requeue", "-N", "3", "--", *cmd)
    assert r.returncode == 0, r.stderr
    first = r.stdout.strip()
    job = job_dir(d / "shared")
    wait_for(lambda: completed_maps(job) == HELD_FROM, 180, "the maps that do not hold")
    subprocess.run(["scontrol", "requeue", first], env=cluster, check=True)
    # Slurm holds a requeued batch job back for 120 s (its EligibleTime, set once the first run
    # has ended and the job is pending again): let it start now, but only once that hold is
    # set. The job is PENDING before its first run has ended, and a second run started then is
    # ended by the first run's end (FAILED at once, seen in CI).
    if wait_for(lambda: requeue_hold(cluster, first), 180, "the first run's end") == "held":
        subprocess.run(["scontrol", "update", f"JobId={first}", "StartTime=now"], env=cluster,
                       check=True)
    info = wait_finished(first, 900)  # requeued: REQUEUED, PENDING, RUNNING again, then ended
    assert info.state == "COMPLETED", info
    restarts = subprocess.run(["scontrol", "show", "job", first], env=cluster,
                              capture_output=True, text=True).stdout
    assert re.search(r"Restarts=1\b", restarts) or "Requeue=1" in restarts, restarts
    console = (d / f"ham-{first}.out").read_text()
    assert re.search(rf"was requeued \(restart 1\): resuming {job.name}", console), console[-3000:]
    same_tree(reference, d / "out")
    done = status(job)
    assert done["state"] == "SUCCEEDED" and done["run"] == 2, done
    maps_run = attempts_run(history(job, 2), "MAP", 2)
    assert len(maps_run) == MAPS - HELD_FROM, maps_run


def test_an_allocation_with_part_of_the_nodes_cpus_is_said_out_loud(cluster, tmp_path):
    """The test nodes have 2 CPUs each; `-N 1` gets one of them (one task of one CPU), so at
    most one runner per node: one WARNING names the numbers and the options that fix it, and
    with --exclusive (the whole node) there is none."""
    (tmp_path / "shared").mkdir()
    r = ham(tmp_path, cluster, "run", "-N", "1", "--", "true")
    assert r.returncode == 0, r.stderr
    said = [line for line in r.stderr.splitlines() if "WARNING" in line and "CPUs" in line]
    assert len(said) == 1 and "1 of node" in said[0] and "'s 2 CPUs" in said[0], r.stderr
    assert "--exclusive" in said[0] and "-c 2" in said[0]
    r = ham(tmp_path, cluster, "run", "-N", "1", "--slurm-arg=--exclusive", "--", "true")
    assert r.returncode == 0 and "CPUs" not in r.stderr, r.stderr
