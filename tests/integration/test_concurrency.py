"""Two jobs of one user at once, and a Slurm job id seen before (a restarted controller numbers
jobs from 1 again): no interference, nothing of the earlier job touched."""

from __future__ import annotations

import collections
import getpass
import json
import random
import subprocess
import sys
from pathlib import Path

from tests.integration.conftest import run_ham


def text(path: Path, seed: int, lines: int = 4000) -> None:
    rng = random.Random(seed)
    words = [f"w{seed}x{i}" for i in range(300)] + ["shared", "common"]
    path.write_text("".join(" ".join(rng.choices(words, k=8)) + "\n" for _ in range(lines)))


def expected_wordcount(*inputs: Path) -> str:
    """wordcount's output (StringTokenizer words, Text byte order, one reducer)."""
    counts = collections.Counter(w for p in inputs for w in p.read_text().split())
    return "".join(f"{w}\t{n}\n" for w, n in sorted(counts.items(), key=lambda kv: kv[0].encode()))


def wordcount(jar: Path, inputs: Path, out: Path) -> list[str]:
    return ["hadoop", "jar", str(jar), "wordcount", "-D", "mapreduce.input.fileinputformat.split.maxsize=40000",
            str(inputs), str(out)]


def test_two_jobs_of_one_user_at_once(cluster, shared_root, tmp_path, hadoop_jars):
    jobs = {}
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
        text(tmp_path / name / "part-0", seed=ord(name))
    env = {**cluster, "HAM_SHARED_ROOT": str(shared_root)}
    procs = {name: subprocess.Popen([sys.executable, "-m", "ham", "run", "-N", "3", "-J", f"twin-{name}", "--",
                                     *wordcount(hadoop_jars["examples"], tmp_path / name, tmp_path / f"out-{name}")],
                                    env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for name in ("a", "b")}
    for name, proc in procs.items():
        _, err = proc.communicate(timeout=600)
        assert proc.returncode == 0, err[-3000:]
        assert (tmp_path / f"out-{name}" / "part-r-00000").read_text() == \
            expected_wordcount(tmp_path / name / "part-0")
        jobs[name] = [json.loads(p.read_text()) for p in shared_root.glob("*/*/jobs/*/status.json")
                      if json.loads(p.read_text())["name"] == "word count" and
                      str(tmp_path / name) in p.parent.parent.parent.joinpath("ham.json").read_text()]
    # Each session had its own job directory and its own Hadoop job, and they overlapped in time.
    assert len(jobs["a"]) == len(jobs["b"]) == 1
    a, b = jobs["a"][0], jobs["b"][0]
    assert a["job_id"] != b["job_id"]
    assert a["start_time"] < b["finish_time"] and b["start_time"] < a["finish_time"], "did not overlap"
    assert len(list(shared_root.glob(f"{getpass.getuser()}/*/ham.json"))) == 2


def test_reused_slurm_job_id_gets_a_new_directory(cluster, shared_root, tmp_path, hadoop_jars):
    text(tmp_path / "in", seed=7)
    user_dir = shared_root / getpass.getuser()
    # Inside the allocation: leave a directory named after this very Slurm job id, as a job of
    # an earlier cluster life would have, then run two HAM sessions in the allocation.
    script = (f"mkdir -p {user_dir}/$SLURM_JOB_ID/jobs/job_old && echo keep > {user_dir}/$SLURM_JOB_ID/jobs/job_old/data "
              f"&& {sys.executable} -m ham run -- {' '.join(wordcount(hadoop_jars['examples'], tmp_path / 'in', tmp_path / 'o1'))} "
              f"&& {sys.executable} -m ham run -- {' '.join(wordcount(hadoop_jars['examples'], tmp_path / 'in', tmp_path / 'o2'))}")
    r = subprocess.run(["salloc", "-N", "2", "bash", "-c", script], capture_output=True, text=True, timeout=600,
                       env={**cluster, "HAM_SHARED_ROOT": str(shared_root)})
    assert r.returncode == 0, r.stderr[-3000:]
    [old] = list(user_dir.glob("*/jobs/job_old/data"))
    assert old.read_text() == "keep\n"
    slurm_id = old.parent.parent.parent.name
    assert sorted(p.name for p in user_dir.iterdir()) == [slurm_id, f"{slurm_id}.1", f"{slurm_id}.2"]
    for n, out in ((1, "o1"), (2, "o2")):
        assert (tmp_path / out / "part-r-00000").read_text() == expected_wordcount(tmp_path / "in")
        assert list((user_dir / f"{slurm_id}.{n}" / "jobs").glob("job_*/status.json"))
    # `ham status` lists all three directories of the id without mixing them up.
    status = run_ham("status", "--json", slurm_id, env={**cluster, "HAM_SHARED_ROOT": str(shared_root)})
    assert status.returncode == 0, status.stderr
    listed = {Path(s["job_dir"]).name: s for s in json.loads(status.stdout)}
    assert set(listed) == {slurm_id, f"{slurm_id}.1", f"{slurm_id}.2"}
    assert listed[f"{slurm_id}.1"]["exit_code"] == 0 and not listed[slurm_id]["hadoop_jobs"]
