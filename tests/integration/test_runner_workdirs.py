"""Where tasks work: a node-local directory per runner (runner_local_dir, /tmp by default; the
test cluster's own directory in env.sh, since its nodes share this host's /tmp), as a
YARN container's working directory is node-local, removed when its runner exits; the shared
file system with runner_local_dir = "none", and where the user's directory in /tmp is someone
else's. (The SPANK epilog's removal of a SIGKILLed runner's directory: test_spank.py.)"""

from __future__ import annotations

import getpass
import os
import re
import shlex
import shutil
from pathlib import Path

from tests.integration.test_runtime import MAPPER, REDUCER
from tests.integration.test_task_env_and_failures import ham_run, streaming, summed, write_inputs
from tests.integration.test_yarn_semantics import local_run

# Each map also counts one line naming its current directory and whether the task's job.xml
# and the cache's link to mapper.py are in it, as a container's are.
CWD_MAPPER = MAPPER + ("import os\n"
                       "print('cwd:' + os.getcwd() + '|' + str(os.path.isfile('job.xml')) + '|'"
                       " + str(os.path.islink('mapper.py')) + '\\t1')\n")


def run_job(d: Path, env: dict[str, str], expect_stderr: str | None = None, then: str = ""
            ) -> tuple[str, dict[str, int]]:
    """The word count through `ham run -N 3` (then the shell command `then` in the same
    allocation): its Slurm job id and the maps' directories. Its console has a WARN line
    matching expect_stderr, or none about the runners' directory."""
    write_inputs(d, 6)
    (d / "mapper.py").write_text(CWD_MAPPER)
    (d / "reducer.py").write_text(REDUCER)
    r = ham_run(d, env, "sh", "-c", shlex.join(streaming(d, "out")) + (f" && {then}" if then
                                                                        else ""))
    assert r.returncode == 0, r.stderr[-3000:]
    warned = re.search(r"WARN .*" + (expect_stderr or "ham.runner.local.dir"), r.stderr)
    assert bool(warned) == bool(expect_stderr), r.stderr[-3000:]
    slurm_job = next((d / "shared" / getpass.getuser()).iterdir()).name
    local_run(d, env, streaming(d, "local"))
    ham, local = summed(d / "out"), summed(d / "local")
    # The same words as Hadoop's local runner; only the directories differ.
    assert {k: v for k, v in ham.items() if not k.startswith("cwd:")} == \
        {k: v for k, v in local.items() if not k.startswith("cwd:")}
    cwds = {k.removeprefix("cwd:"): v for k, v in ham.items() if k.startswith("cwd:")}
    assert sum(cwds.values()) == 6, cwds  # one line per map
    return slurm_job, cwds


def user_dir(cluster: dict[str, str]) -> Path:
    """The user's directory in the nodes' node-local one (the test cluster's own, env.sh's
    HAM_RUNNER_LOCAL_DIR, as a site sets runner_local_dir; its SPANK epilog's local=)."""
    return Path(cluster["HAM_RUNNER_LOCAL_DIR"]) / f"ham-{getpass.getuser()}"


def test_tasks_work_in_a_node_local_directory_that_goes_with_their_runner(cluster, tmp_path):
    # Inside the allocation (before Slurm's epilog could remove anything): once the job's
    # parked runners' idle second is over, none of their directories is left.
    after = tmp_path / "after.txt"
    slurm_job, cwds = run_job(
        tmp_path, {**cluster, "HAM_RUNNER_WARM_IDLE_MS": "1000"},
        then=f'sleep 4; ls -A "{user_dir(cluster)}/$SLURM_JOB_ID" > {after} 2>&1; '
             f'echo $? >> {after}')
    assert after.read_text().endswith("No such file or directory\n2\n"), after.read_text()
    node_local = user_dir(cluster) / slurm_job
    pattern = re.compile(re.escape(str(node_local)) + r"/job_\d+_\d+\.[0-9a-f]{8}/g\d+-p\d+"
                         r"\|True\|True")
    assert all(pattern.fullmatch(c) for c in cwds), cwds
    assert len(cwds) == 3, "one directory per runner, each node's runner in its own"
    # Nothing of it is on the shared file system, and nothing is left once `ham run` returned
    # (its parked runners stopped, each taking its directory and then the empty parents).
    assert not any(c.startswith(str(tmp_path)) for c in cwds)
    assert not node_local.exists()
    assert user_dir(cluster).stat().st_mode & 0o777 == 0o700


def test_runner_local_dir_none_keeps_them_on_the_shared_file_system(cluster, tmp_path):
    slurm_job, cwds = run_job(tmp_path, {**cluster, "HAM_RUNNER_LOCAL_DIR": "none"})
    shared = tmp_path / "shared" / getpass.getuser() / slurm_job
    assert all(c.startswith(f"{shared}/") and c.endswith("|True|True") for c in cwds), cwds
    assert not (user_dir(cluster) / slurm_job).exists()


def test_a_node_local_directory_that_is_not_the_users_is_not_used(cluster, tmp_path):
    """A name in /tmp anyone could have made first (and only its owner can remove): the runners
    do not work in it, nor fail the job, but work in the job's directory on the shared file
    system and say so in a WARN line on the job's console."""
    local = Path("/tmp") / f"ham-test-{tmp_path.name}"
    theirs = local / f"ham-{getpass.getuser()}"
    theirs.mkdir(parents=True)
    try:
        os.chown(theirs, 65534, 65534)  # nobody's
        slurm_job, cwds = run_job(tmp_path, {**cluster, "HAM_RUNNER_LOCAL_DIR": str(local)},
                                  expect_stderr=re.escape(f"{theirs} is not a directory of this "
                                                          "user's on ") + r"node\d" + re.escape(
                                      "; this runner works in the job directory on the shared "
                                      "file system instead (setting runner_local_dir, "
                                      "ham.runner.local.dir)"))
        shared = tmp_path / "shared" / getpass.getuser() / slurm_job
        assert all(c.startswith(f"{shared}/") for c in cwds), cwds
        assert list(theirs.iterdir()) == [], "nothing made in someone else's directory"
    finally:
        shutil.rmtree(local)
