"""The SPANK plugin on the test cluster (loaded by tests/cluster-up.sh with its root on the
shared root): the prolog makes the job directory, the job sees HAM_JOB_DIR,
the epilog removes intermediate data and the runners' node-local directories even when every
process of the job was SIGKILLed."""

from __future__ import annotations

import getpass
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from tests.conftest import CLUSTER_DIR
from tests.integration.conftest import run_ham, session_dir, wait_finished, wait_for
from tests.integration.test_non_root import USER, as_user


def plugstack_arg(name: str) -> Path:
    """An argument of the plugin's line in the plugstack that tests/cluster-up.sh wrote."""
    args = (CLUSTER_DIR / "plugstack.conf").read_text().split()
    return Path(next(arg.removeprefix(f"{name}=") for arg in args if arg.startswith(f"{name}=")))


def spank_root() -> Path:
    return plugstack_arg("root")


def runners_local_dir() -> Path:
    """The user's directory in the nodes' node-local one, as the epilog (local=) knows it."""
    return plugstack_arg("local") / f"ham-{getpass.getuser()}"


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
    job_dir = spank_root() / getpass.getuser() / job_id
    text = out.read_text()
    assert f"DIR={job_dir}" in text
    assert f"MODE=700 OWNER={getpass.getuser()}" in text
    # The epilog runs right after the job ends.
    wait_for(lambda: not (job_dir / "staging").exists(), 10, "the epilog")
    assert not (job_dir / "staging").exists()
    assert not (job_dir / "jobs" / "j" / "intermediate").exists()
    assert (job_dir / "jobs" / "j" / "logs" / "attempt.node1.syslog").read_text() == "log\n"


def test_epilog_removes_runner_directories_of_any_job(cluster, tmp_path):
    """The task runners' node-local directories (runner_local_dir) of a job that did not ask
    for --ham (`ham run` in a plain salloc) are removed by the epilog too when the job's
    processes were SIGKILLed: here a batch script that makes one as a runner would, then dies."""
    out = tmp_path / "job.out"
    script = ("#!/bin/bash\n"
              f'top="{runners_local_dir()}"; d="$top/$SLURM_JOB_ID/job_1_0001.abcd1234/g0-p0"\n'
              '# as the runner shell makes them: the top private\n'
              'mkdir -p "$d" && chmod 700 "$top" && echo x > "$d/job.xml" && echo "MADE=$d"\n'
              "kill -KILL $$\n")
    r = subprocess.run(["sbatch", "--parsable", "-N1", "-o", str(out)], input=script,
                       capture_output=True, text=True, env=cluster, check=True)
    job_id = r.stdout.strip()
    wait_finished(job_id)
    node_local = runners_local_dir() / job_id
    assert f"MADE={node_local}/job_1_0001.abcd1234/g0-p0" in out.read_text()
    wait_for(lambda: not node_local.exists(), 10, "the epilog")
    assert runners_local_dir().is_dir(), "the user's directory stays"


def test_ham_run_uses_the_spank_directory(cluster, tmp_path):
    out = tmp_path / "job.out"
    script = ("#!/bin/bash\n"
              'ham_python="$1"\n'
              '"$ham_python" -m ham run -- sh -c \'echo "INNER=$HAM_JOB_DIR"\'\n')
    r = subprocess.run(["sbatch", "--parsable", f"--ham={spank_root()}", "-N1", "-o", str(out),
                        "/dev/stdin", sys.executable], input=script, capture_output=True,
                       text=True, env=cluster, check=True)
    job_id = r.stdout.strip()
    info = wait_finished(job_id)
    text = out.read_text()
    assert info.exit_code == 0, text
    assert f"INNER={spank_root() / getpass.getuser() / job_id}\n" in text


def test_epilog_cleans_a_real_ham_job_whose_processes_were_all_sigkilled(cluster, tmp_path):
    """A streaming job through `ham run` in a `--ham` batch job, every process of it (batch
    script, ham run and its reaper, the hadoop client, srun, the runners) SIGKILLed by Slurm
    mid-job: nothing of HAM can clean up, the epilog does. (With ham.resumable=false: a
    resumable job's data is kept by the epilog, see test_resume.py.)"""
    from tests.integration.test_runtime_faults import setup_data, streaming_cmd
    from tests.integration.test_runtime_recovery import held_mapper

    d = setup_data(tmp_path, "")
    release = d / "release"  # never created: map 0 holds the job in its map phase
    (d / "mapper.py").write_text(held_mapper(release))
    script = "#!/bin/bash\nexec \"$@\"\n"
    r = subprocess.run(["sbatch", "--parsable", "--ham", "-N3", "-o", str(d / "job.out"),
                        "/dev/stdin", sys.executable, "-m", "ham", "run", "--",
                        *streaming_cmd(d, "out", "-D", "ham.resumable=false")],
                       input=script, capture_output=True, text=True, cwd=d, check=True,
                       env={**cluster, "HAM_SHARED_ROOT": str(spank_root())})
    job_id = r.stdout.strip()
    job_dir = spank_root() / getpass.getuser() / job_id
    try:
        # Maps 1 and 2 wrote their output to the shared file system; map 0 is held.
        try:
            wait_for(lambda: len(list(job_dir.glob("jobs/*/intermediate/attempt_*/file.out")))
                     >= 2, 180, "two map outputs")
        except AssertionError as e:
            queue = subprocess.run(["squeue", "-a"], env=cluster, capture_output=True, text=True)
            output = (d / "job.out").read_text()[-3000:] if (d / "job.out").exists() else ""
            raise AssertionError(f"{e}\n{queue.stdout}\n{output}") from None
        assert list((job_dir / "staging").rglob("job.xml"))
        # The runners work on their nodes (runner_local_dir): SIGKILLed, they cannot remove it.
        node_local = runners_local_dir() / job_id
        assert list(node_local.glob("job_*/g*-p*/job.xml"))
        subprocess.run(["scancel", "--full", "--signal=KILL", job_id], env=cluster, check=True)
        wait_finished(job_id, 120)
    finally:
        subprocess.run(["scancel", job_id], env=cluster, check=False)
    wait_for(lambda: not (job_dir / "staging").exists(), 30, "the epilog")
    for leftover in ("staging", "tmp", "local"):
        assert not (job_dir / leftover).exists(), leftover
    wait_for(lambda: not node_local.exists(), 30, "the epilog on the nodes")
    assert not list(job_dir.glob("jobs/*/intermediate")) and not list(job_dir.glob("jobs/*/work"))
    # What the user needs afterwards stays: the configuration, the logs and the status record.
    assert (job_dir / "conf" / "mapred-site.xml").exists()
    assert list(job_dir.glob("jobs/*/logs/attempt_*_m_000001_0.*.syslog"))
    assert list(job_dir.glob("jobs/*/status.json"))
    # The record ends KILLED and the output directory the job created goes: done by the driver's
    # shutdown hook if it got a SIGTERM first (the kernel sends one when `ham run` dies), else
    # by the first `ham status` (tests/unit/test_settle.py checks that path).
    r = subprocess.run([sys.executable, "-m", "ham", "status", "--json", job_id],
                       env={**cluster, "HAM_SHARED_ROOT": str(spank_root())}, capture_output=True,
                       text=True, check=True)
    record = json.loads(r.stdout)[0]["hadoop_jobs"][0]
    assert record["state"] == "KILLED" and record["finish_time"], record
    assert not (d / "out").exists()


def test_spank_setting_gives_ham_submit_jobs_the_plugins_directory_and_epilog(cluster, tmp_path):
    """Setting spank = true in the site file: `ham submit` asks for --ham itself. The plugin's
    prolog makes the job directory (its user_init exports HAM_SHARED_ROOT, which nothing else
    sets here) and, after every process of the job was SIGKILLed, its epilog removes the
    intermediate data."""
    site = tmp_path / "site.toml"
    site.write_text(f'spank = true\nshared_root = "{spank_root()}"\n')
    env = {k: v for k, v in os.environ.items() if not k.startswith("HAM_")}
    env.update(cluster, HAM_SITE_CONFIG=str(site), HAM_USER_CONFIG="/dev/null")
    env.pop("HAM_SHARED_ROOT", None)
    out = tmp_path / "job.out"
    command = ('echo "ROOT=$HAM_SHARED_ROOT DIR=$HAM_JOB_DIR"; mkdir "$HAM_JOB_DIR/staging/mine"; '
               'touch "$HAM_JOB_DIR/staging/mine/f"; sleep 600')
    dry = run_ham("submit", "--dry-run", "-N", "1", "--", "sh", "-c", command, env=env)
    assert f"#SBATCH --ham={spank_root()}\n" in dry.stdout, dry.stdout + dry.stderr
    r = run_ham("submit", "-N", "1", "-o", str(out), "--", "sh", "-c", command, env=env,
                cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    job_id = r.stdout.strip()
    job_dir = spank_root() / getpass.getuser() / job_id
    try:
        wait_for(lambda: (job_dir / "staging" / "mine" / "f").exists(), 120, "the job's file")
        subprocess.run(["scancel", "--full", "--signal=KILL", job_id], env=cluster, check=True)
        wait_finished(job_id, 120)
    finally:
        subprocess.run(["scancel", job_id], env=cluster, check=False)
    assert f"ROOT={spank_root()} DIR={job_dir}\n" in out.read_text()
    wait_for(lambda: not (job_dir / "staging").exists(), 30, "the epilog")
    assert (job_dir / "conf" / "mapred-site.xml").exists()  # `ham run` used the prolog's


def test_spank_setting_without_the_plugin_is_refused_in_one_line(cluster, tmp_path):
    """A cluster whose plugstack.conf does not load the plugin (here: the test cluster's
    slurm.conf without PlugStackConfig, read by the real sbatch and salloc): `ham submit` and
    `ham run -N` say so in one line naming the setting, and nothing reaches Slurm."""
    conf = tmp_path / "etc"
    conf.mkdir()
    text = Path(cluster["SLURM_CONF"]).read_text()
    (conf / "slurm.conf").write_text("".join(line for line in text.splitlines(keepends=True)
                                             if not line.startswith("PlugStackConfig=")))
    site = tmp_path / "site.toml"
    site.write_text(f'spank = true\nshared_root = "{tmp_path}"\n')
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("HAM_")}, **cluster,
           "SLURM_CONF": str(conf / "slurm.conf"), "HAM_SITE_CONFIG": str(site),
           "HAM_USER_CONFIG": "/dev/null"}
    env.pop("HAM_SHARED_ROOT", None)
    for command, slurm_cmd in (("submit", "sbatch"), ("run", "salloc")):
        r = run_ham(command, "-N", "1", "-J", "spank-refused", "--", "true", env=env, cwd=tmp_path)
        assert r.returncode == 2 and r.stderr.count("\n") == 1, r.stderr
        assert r.stderr.startswith(f"ham: error: setting spank is true (site file {site}) but "
                                   f"{slurm_cmd} has no --ham option"), r.stderr
    jobs = subprocess.run(["sacct", "-n", "-X", "-P", "-o", "JobName", "--name", "spank-refused"],
                          capture_output=True, text=True, env=cluster).stdout
    assert "spank-refused" not in jobs


def test_a_directory_the_job_names_is_made_and_cleaned_as_its_user(cluster):
    """slurmd runs the prolog and epilog as root; in a directory the job names (--ham=DIR, not
    plugstack's root=) they act as the job's user: where the user may not write, no directory
    is made (root could), the job runs without one, and the node is not drained (a failed
    prolog drains it); where the user may, it is made and cleaned as before. A DIR that does
    not exist is refused by sbatch itself, in one line."""
    base = session_dir("ham-spank-user-")
    base.chmod(0o755)
    closed, open_ = base / "closed", base / "open"
    closed.mkdir(mode=0o755)  # root's; hamuser may read, not write
    open_.mkdir()
    open_.chmod(0o1777)
    env = {"SLURM_CONF": cluster["SLURM_CONF"], "PATH": os.environ["PATH"]}
    script = ('echo "DIR=${HAM_JOB_DIR:-none}"; '
              '[ -z "$HAM_JOB_DIR" ] || mkdir -p "$HAM_JOB_DIR/staging/s"')
    jobs = {}
    for name, root in (("closed", closed), ("open", open_)):
        r = as_user(["sbatch", "--parsable", f"--ham={root}", "-N1", "-o", f"{open_}/{name}.out",
                     "--wrap", script], env, base)
        assert r.returncode == 0, r.stderr
        jobs[name] = r.stdout.strip()
    for name, job_id in jobs.items():
        assert wait_finished(job_id).exit_code == 0, (open_ / f"{name}.out").read_text()
    assert (open_ / "closed.out").read_text() == "DIR=none\n"
    assert not (closed / USER).exists()
    job_dir = open_ / USER / jobs["open"]
    assert (open_ / "open.out").read_text() == f"DIR={job_dir}\n"
    assert job_dir.owner() == USER and (open_ / USER).owner() == USER
    wait_for(lambda: not (job_dir / "staging").exists(), 10, "the epilog")
    states = subprocess.run(["sinfo", "-h", "-N", "-o", "%N %T"], env=cluster, check=True,
                            capture_output=True, text=True).stdout
    assert "drain" not in states, states

    missing = base / "missing"
    r = as_user(["sbatch", "--parsable", f"--ham={missing}", "-N1", "--wrap", "true"], env, base)
    assert r.returncode != 0 and not r.stdout.strip(), r.stdout
    assert f"ham: --ham={missing}: no such directory" in r.stderr, r.stderr
    shutil.rmtree(base)
