from __future__ import annotations

import pytest

from ham import jobpaths
from ham.errors import UsageError

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
