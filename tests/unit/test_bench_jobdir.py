"""Which job directory the bench reads a `ham run`'s records from (bench/hambench/jobs.py)."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

from hambench.jobs import job_dir_of  # noqa: E402


def test_the_directory_made_since_the_launch_not_an_earlier_clusters(tmp_path: Path) -> None:
    launch = time.time()
    old = tmp_path / "60"
    old.mkdir()
    os.utime(old, (launch - 3600, launch - 3600))  # an earlier cluster's job 60
    (tmp_path / "600").mkdir()  # another job, made since
    (tmp_path / "60.1").mkdir()
    assert job_dir_of(tmp_path, "60", launch) == tmp_path / "60.1"


def test_the_plain_name_when_nothing_was_made(tmp_path: Path) -> None:
    assert job_dir_of(tmp_path, "61", time.time()) == tmp_path / "61"
    (tmp_path / "61").mkdir()
    assert job_dir_of(tmp_path, "61", time.time() - 5) == tmp_path / "61"
