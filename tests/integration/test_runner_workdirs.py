"""Where tasks work: a node-local directory per runner (runner_local_dir, /tmp by default), as a
YARN container's working directory is node-local, removed when its runner exits; the shared
file system with runner_local_dir = "none"; and a name in /tmp that is not the user's refused in
one line. (The SPANK epilog's removal of a SIGKILLed runner's directory: test_spank.py.)"""

from __future__ import annotations

import getpass
import os
import re
import shutil
from pathlib import Path

from tests.integration.conftest import wait_for
from tests.integration.test_runtime import MAPPER, REDUCER
from tests.integration.test_task_env_and_failures import ham_run, streaming, summed, write_inputs
from tests.integration.test_yarn_semantics import local_run

# Each map also counts one line naming its current directory and whether the task's job.xml
# and the cache's link to mapper.py are in it, as a container's are.
CWD_MAPPER = MAPPER + ("import os\n"
                       "print('cwd:' + os.getcwd() + '|' + str(os.path.isfile('job.xml')) + '|'"
                       " + str(os.path.islink('mapper.py')) + '\\t1')\n")


def run_job(d: Path, env: dict[str, str]) -> tuple[str, dict[str, int]]:
    """The word count through `ham run -N 3`: its Slurm job id and the maps' directories."""
    write_inputs(d, 6)
    (d / "mapper.py").write_text(CWD_MAPPER)
    (d / "reducer.py").write_text(REDUCER)
    r = ham_run(d, env, *streaming(d, "out"))
    assert r.returncode == 0, r.stderr[-3000:]
    slurm_job = next((d / "shared" / getpass.getuser()).iterdir()).name
    local_run(d, env, streaming(d, "local"))
    ham, local = summed(d / "out"), summed(d / "local")
    # The same words as Hadoop's local runner; only the directories differ.
    assert {k: v for k, v in ham.items() if not k.startswith("cwd:")} == \
        {k: v for k, v in local.items() if not k.startswith("cwd:")}
    cwds = {k.removeprefix("cwd:"): v for k, v in ham.items() if k.startswith("cwd:")}
    assert sum(cwds.values()) == 6, cwds  # one line per map
    return slurm_job, cwds


def test_tasks_work_in_a_node_local_directory_that_goes_with_their_runner(cluster, tmp_path):
    slurm_job, cwds = run_job(tmp_path, cluster)
    node_local = Path(f"/tmp/ham-{getpass.getuser()}") / slurm_job
    pattern = re.compile(re.escape(str(node_local)) + r"/job_\d+_\d+\.[0-9a-f]{8}/g\d+-p\d+"
                         r"\|True\|True")
    assert all(pattern.fullmatch(c) for c in cwds), cwds
    assert len(cwds) == 3, "one directory per runner, each node's runner in its own"
    # Nothing of it is on the shared file system, and nothing is left once `ham run` returned
    # (its parked runners stopped, each taking its directory and then the empty parents).
    assert not any(c.startswith(str(tmp_path)) for c in cwds)
    wait_for(lambda: not node_local.exists(), 10, f"{node_local} removed")
    assert Path(f"/tmp/ham-{getpass.getuser()}").stat().st_mode & 0o777 == 0o700


def test_runner_local_dir_none_keeps_them_on_the_shared_file_system(cluster, tmp_path):
    slurm_job, cwds = run_job(tmp_path, {**cluster, "HAM_RUNNER_LOCAL_DIR": "none"})
    shared = tmp_path / "shared" / getpass.getuser() / slurm_job
    assert all(c.startswith(f"{shared}/") and c.endswith("|True|True") for c in cwds), cwds
    assert not (Path(f"/tmp/ham-{getpass.getuser()}") / slurm_job).exists()


def test_a_node_local_directory_that_is_not_the_users_fails_the_job_in_one_line(cluster,
                                                                              tmp_path):
    """A name in /tmp anyone could have made first: the runners refuse it rather than work in
    it, and the job fails at once with their line, not after its timeouts."""
    local = Path("/tmp") / f"ham-test-{tmp_path.name}"
    theirs = local / f"ham-{getpass.getuser()}"
    theirs.mkdir(parents=True)
    try:
        os.chown(theirs, 65534, 65534)  # nobody's
        write_inputs(tmp_path, 2)
        (tmp_path / "mapper.py").write_text(MAPPER)
        (tmp_path / "reducer.py").write_text(REDUCER)
        r = ham_run(tmp_path, {**cluster, "HAM_RUNNER_LOCAL_DIR": str(local)},
                    *streaming(tmp_path, "out"))
        assert r.returncode == 1, r.stderr[-3000:]
        assert re.search(re.escape(f"ham-runner: {theirs} on ") + r"node\d " + re.escape(
            "is not a directory of this user's; remove it or set the runners' node-local "
            "directory elsewhere (setting runner_local_dir, ham.runner.local.dir)"), r.stderr), \
            r.stderr[-3000:]
        assert "Traceback" not in r.stderr
        assert list(theirs.iterdir()) == [], "nothing made in someone else's directory"
        assert not (tmp_path / "out").exists()
    finally:
        shutil.rmtree(local)
