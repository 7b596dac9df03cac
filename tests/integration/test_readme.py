"""README's first job, as the README has it: its commands are read from README.md itself and
run in a login shell on the test cluster, with only its two site paths (the scratch directory
for the shared root, the project directory with the books) replaced by directories of the
cluster's shared root. So the front page cannot drift from what works."""

from __future__ import annotations

import os
import re
import subprocess
from collections import Counter
from pathlib import Path

from tests.conftest import REPO

SCRATCH = "/lustre/scratch/$USER/ham"
PROJECT = "/lustre/proj"


def first_job_block() -> str:
    """The code block of README's "The first job" section."""
    text = (REPO / "README.md").read_text()
    section = text.split("\n## The first job\n", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"^```\n(.*?)^```$", section, re.S | re.M)
    assert len(blocks) == 1, blocks
    return blocks[0]


def test_the_first_job_runs_as_written(cluster, tmp_path):
    block = first_job_block()
    assert SCRATCH in block and PROJECT in block, block  # the two paths this test replaces
    books = tmp_path / "proj" / "books"
    books.mkdir(parents=True)
    # A few "books": text with repeated words, so the top ten has clear winners and ties.
    words = "the cat sat on the mat and the dog sat by the door of the house".split()
    for i in range(5):
        (books / f"book{i}.txt").write_text("\n".join(" ".join(words[j:] + words[:j][: i + 1])
                                                      for j in range(len(words))) + "\n")
    script = block.replace(SCRATCH, str(tmp_path / "scratch")).replace(PROJECT, str(books.parent))
    env = {**cluster, "PATH": f"{REPO / '.venv' / 'bin'}:{os.environ['PATH']}",
           "HOME": str(tmp_path)}
    env.pop("HAM_SHARED_ROOT", None)
    r = subprocess.run(["bash", "-e", "-c", script], cwd=tmp_path, env=env, capture_output=True,
                       text=True, timeout=900)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    counts = Counter(w for f in books.iterdir() for w in f.read_text().split())
    # The ten lines README's last command prints: count descending, then word.
    top = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:10]
    assert r.stdout.splitlines()[-10:] == [f"{w}\t{n}" for w, n in top], r.stdout[-2000:]
    job_id = re.search(r"^(\d+)$", r.stdout, re.M).group(1)  # submit printed the Slurm job id
    assert (tmp_path / f"ham-{job_id}.out").is_file()
    assert (books.parent / "books-wc" / "_SUCCESS").is_file()
    assert list(Path(tmp_path / "scratch").glob(f"*/{job_id}/jobs/job_*"))
