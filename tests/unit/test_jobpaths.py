from __future__ import annotations

import pytest

from ham import jobpaths
from ham.errors import UsageError
from ham.fspaths import Resolver

EX = "/opt/x/hadoop-mapreduce-examples-3.4.2.jar"
STREAMING = "lib/hadoop-streaming-3.4.2.jar"


@pytest.mark.parametrize("command, inputs, output", [
    (["hadoop", "jar", EX, "wordcount", "a", "b", "out"], ["a", "b"], "out"),
    (["hadoop", "jar", EX, "wordcount", "-D", "mapreduce.job.reduces=2", "-Dx=y", "-libjars",
      "l.jar", "in", "out"], ["in"], "out"),
    (["hadoop", "jar", EX, "grep", "in", "out", "dfs[a-z.]+"], ["in"], "out"),
    (["hadoop", "jar", EX, "teragen", "-D", "mapreduce.job.maps=3", "1000", "gen"], [], "gen"),
    (["hadoop", "jar", EX, "randomtextwriter", "-outFormat", "C", "rt"], [], "rt"),
    (["hadoop", "jar", EX, "pi", "2", "10"], [], None),
    (["hadoop", "jar", EX, "wordcount"], [], None),
    (["hadoop", "jar", STREAMING, "-files", "m.py", "-input", "a,b", "-input", "c",
      "-output", "o", "-mapper", "m.py"], ["a", "b", "c"], "o"),
    (["hadoop", "jar", "mine.jar", "in", "out"], [], None),
    # The job picks its own file system (HAL's core-site.xml, -fs, -D fs.defaultFS): not ours.
    (["hadoop", "jar", EX, "wordcount", "-conf", "hal.xml", "in", "out"], [], None),
    (["hadoop", "jar", EX, "wordcount", "-D", "fs.defaultFS=lustre:///", "in", "out"], [], None),
    (["hadoop", "jar", EX, "wordcount", "-fs", "lustre:///", "in", "out"], [], None),
    (["bash", "job.sh"], [], None),
])
def test_paths_of_known_jobs(command, inputs, output):
    paths = jobpaths.paths_of(command)
    assert (paths.inputs, paths.output) == (inputs, output)


def test_missing_input_and_existing_output_are_refused(tmp_path):
    (tmp_path / "in").mkdir()
    (tmp_path / "done").mkdir()
    ok = ["hadoop", "jar", EX, "wordcount", "in", "file://" + str(tmp_path / "new")]
    jobpaths.check(ok, str(tmp_path))
    with pytest.raises(UsageError, match="input path does not exist: nope"):
        jobpaths.check(["hadoop", "jar", EX, "wordcount", "in", "nope", "new"], str(tmp_path))
    with pytest.raises(UsageError, match="output path already exists: done"):
        jobpaths.check(["hadoop", "jar", EX, "wordcount", "in", "done"], str(tmp_path))


def test_globs_other_file_systems_and_jobs_that_start_later(tmp_path):
    (tmp_path / "part-1").write_text("x")
    run = ["hadoop", "jar", EX, "wordcount"]
    jobpaths.check([*run, "part-*", "out"], str(tmp_path))
    with pytest.raises(UsageError, match="does not exist: log-"):
        jobpaths.check([*run, "log-*", "out"], str(tmp_path))
    jobpaths.check([*run, "hdfs://nn/in", "hdfs://nn/out"], str(tmp_path))
    jobpaths.check([*run, "not-yet", "out"], str(tmp_path), inputs_may_appear=True)


def test_lustre_paths_resolve_under_the_root(tmp_path):
    """filesystem = lustre: /a is <root>/a, relative paths are under <root>/user/<name>, and
    file:// paths are files as they are."""
    root, cwd = tmp_path / "root", tmp_path / "cwd"
    (root / "user" / "alice" / "in").mkdir(parents=True)
    (root / "data").mkdir()
    (root / "data" / "done").mkdir()
    cwd.mkdir()
    r = Resolver("lustre", str(root), str(cwd), "alice")
    assert r.local("in") == str(root / "user/alice/in")
    assert r.local("/data/x") == str(root / "data/x")
    assert r.local("lustre:///data/x") == str(root / "data/x")
    assert r.local("lustre:///../../etc") == str(root / "etc")
    assert r.local("file:///etc/hosts") == "/etc/hosts"
    assert r.local("hdfs://nn/x") is None
    assert Resolver(cwd=str(cwd)).local("lustre:///x") is None  # no root: not checked
    wc = ["hadoop", "jar", EX, "wordcount"]
    jobpaths.check([*wc, "in", "/user/alice/in", "out"], str(cwd), resolver=r)
    with pytest.raises(UsageError, match=f"relative paths are taken from {root}/user/alice"):
        jobpaths.check([*wc, "nope", "out"], str(cwd), resolver=r)
    with pytest.raises(UsageError, match="output path already exists: /data/done"):
        jobpaths.check([*wc, "in", "/data/done"], str(cwd), resolver=r)
