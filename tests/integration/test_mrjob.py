"""A Python MapReduce library from PyPI that drives Hadoop Streaming through the `hadoop`
command, used as its documentation says, inside `ham run`: mrjob's hadoop runner finds `hadoop`
and the streaming jar by searching $HADOOP_HOME (as on a Hadoop cluster), stages its files with
`hadoop fs` and runs `hadoop jar hadoop-streaming-*.jar`. The only option beyond `-r hadoop` is
its own --hadoop-tmp-dir: mrjob's default scratch space is hdfs:///user/<name>/tmp/mrjob, which
HAM refuses in one line. The job's output must equal mrjob's local mode (`-r local`), on both
Hadoop versions."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

from tests.integration.conftest import hadoop_settings
from tests.integration.test_examples import write_corpus

# mrjob's word frequency example, as its documentation has it.
MR_WORD_FREQ_COUNT = textwrap.dedent('''\
    import re

    from mrjob.job import MRJob

    WORD_RE = re.compile(r"[\\w']+")


    class MRWordFreqCount(MRJob):

        def mapper(self, _, line):
            for word in WORD_RE.findall(line):
                yield word.lower(), 1

        def combiner(self, word, counts):
            yield word, sum(counts)

        def reducer(self, word, counts):
            yield word, sum(counts)


    if __name__ == '__main__':
        MRWordFreqCount.run()
    ''')


def mrjob(d, env, *args):
    return subprocess.run([sys.executable, "mr_word_freq_count.py", *args], cwd=d, env=env,
                          capture_output=True, text=True, timeout=600)


def parts(directory) -> list[str]:
    return sorted(line for p in sorted(directory.glob("part-*"))
                  for line in p.read_text().splitlines())


@pytest.mark.parametrize("version", ["3.4.2", "3.3.5"])
def test_mrjob_hadoop_runner_equals_its_local_mode(cluster, tmp_path, version, request):
    site = request.getfixturevalue("hadoop_335") if version == "3.3.5" else None
    d = tmp_path
    write_corpus(d / "in")
    (d / "mr_word_freq_count.py").write_text(MR_WORD_FREQ_COUNT)
    (d / "shared").mkdir()
    plain = {k: v for k, v in os.environ.items() if not k.startswith(("HADOOP_", "HAM_"))}
    local = mrjob(d, plain, "-r", "local", "--output-dir", str(d / "local-out"), str(d / "in"))
    assert local.returncode == 0, local.stderr[-3000:]

    env = {**plain, **cluster, **hadoop_settings(version, site), "HAM_SHARED_ROOT": str(d / "shared")}
    r = subprocess.run([sys.executable, "-m", "ham", "run", "-N", "3", "--", sys.executable,
                        "mr_word_freq_count.py", "-r", "hadoop",
                        "--hadoop-tmp-dir", f"file://{d / 'mrjob-tmp'}",
                        "--output-dir", f"file://{d / 'ham-out'}", str(d / "in")],
                       cwd=d, env=env, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-5000:]
    home = site or "mapreduce/target/dist"
    # mrjob found Hadoop and the streaming jar by convention, under $HADOOP_HOME.
    assert "Found hadoop binary: " in r.stderr and f"{home}/bin/hadoop" in r.stderr
    assert f"{home}/share/hadoop/tools/lib/hadoop-streaming-{version}.jar" in r.stderr
    assert "Running job: job_" in r.stderr  # a MapReduce job on HAM, not mrjob's local mode
    assert parts(d / "ham-out") == parts(d / "local-out") and parts(d / "ham-out")
    # Its scratch space was removed by mrjob, as on a Hadoop cluster.
    assert not any((d / "mrjob-tmp").iterdir())


def test_mrjob_default_hdfs_scratch_space_is_refused_in_one_line(cluster, tmp_path):
    d = tmp_path
    write_corpus(d / "in")
    (d / "mr_word_freq_count.py").write_text(MR_WORD_FREQ_COUNT)
    (d / "shared").mkdir()
    env = {**os.environ, **cluster, "HAM_SHARED_ROOT": str(d / "shared")}
    r = subprocess.run([sys.executable, "-m", "ham", "run", "-N", "1", "--", sys.executable,
                        "mr_word_freq_count.py", "-r", "hadoop", str(d / "in")],
                       cwd=d, env=env, capture_output=True, text=True, timeout=600)
    assert r.returncode != 0
    said = [line for line in r.stderr.splitlines() if "HAM has no HDFS" in line]
    assert len(said) == 1 and "hdfs:/user/" in said[0] and "file://" in said[0], r.stderr[-3000:]
