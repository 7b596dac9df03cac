"""What tasks see and how failures count, on the 3-node cluster, each compared with what YARN and
Hadoop's local runner do: `mapreduce.{map,reduce}.env` in the tasks' environment, maps failing
within and beyond `mapreduce.map.failures.maxpercent`, and a node whose attempts fail
blacklisted for the job."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

from tests.integration.test_runtime import MAPPER, REDUCER, STREAMING
from tests.integration.test_runtime_faults import output_counts
from tests.integration.test_yarn_semantics import local_run

# Each task writes one line, keyed by its kind, with the variables the job set for maps and
# reduces (unset: "-"); the rest of the job is a word count.
ENV_NAMES = ("HAM_T_MAP", "HAM_T_REDUCE", "HAM_T_BOTH", "HAM_T_KEYED")
SHOW_ENV = ("import os as _os\n"
            "print('{kind}:' + '|'.join(_os.environ.get(n, '-') for n in {names!r}) + '\\t1')\n")
ENV_MAPPER = MAPPER.replace("import sys\n", "import sys\n" + SHOW_ENV.format(
    kind="map", names=ENV_NAMES), 1)
# The reducer prints its line at the end (its input is sorted; a line first would be summed).
ENV_REDUCER = REDUCER + SHOW_ENV.format(kind="reduce", names=ENV_NAMES)

ENV_KEYS = ("-D", "mapreduce.map.env=HAM_T_MAP=m1,HAM_T_BOTH=for-maps",
            "-D", "mapreduce.reduce.env=HAM_T_REDUCE=r1,HAM_T_BOTH=for-reduces",
            # Hadoop 3's one-variable form (MRJobConfig.MAP_ENV + "." + name)
            "-D", "mapreduce.map.env.HAM_T_KEYED=k1")


def streaming(d: Path, out: str, *generic: str, cmdenv: str | None = None) -> list[str]:
    """The streaming job: generic options (-D) first, as streaming wants them."""
    return ["hadoop", "jar", str(STREAMING), *generic, "-files", "mapper.py,reducer.py",
            *(("-cmdenv", cmdenv) if cmdenv else ()),
            "-mapper", "python3 mapper.py", "-reducer", "python3 reducer.py",
            "-input", str(d / "in"), "-output", str(d / out)]


def write_inputs(d: Path, n: int) -> None:
    (d / "in").mkdir()
    (d / "shared").mkdir()
    for i in range(n):
        (d / "in" / f"f{i}").write_text(" ".join(f"w{(i * 5 + j) % 13}" for j in range(200 + i)) + "\n")


def summed(out: Path) -> dict[str, int]:
    """The output's key/count lines, counts of a key in several part files added up."""
    counts: dict[str, int] = {}
    for part in sorted(out.glob("part-*")):
        for line in part.read_text().splitlines():
            key, n = line.split("\t")
            counts[key] = counts.get(key, 0) + int(n)
    return counts


def ham_run(d: Path, env: dict[str, str], *cmd: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "ham", "run", "-N", "3", "--", *cmd], cwd=d,
                          env={**env, "HAM_SHARED_ROOT": str(d / "shared")}, capture_output=True,
                          text=True, timeout=600)


def test_map_and_reduce_env_reach_the_tasks(cluster, tmp_path):
    """Every map sees mapreduce.map.env (both forms) and not the reduce's, every reduce sees
    mapreduce.reduce.env and not the map's, as YARN sets each container's environment from
    them. Hadoop's local runner ignores both keys (its tasks are threads of the client): the
    same job there gives the same word counts with every variable unset."""
    d = tmp_path
    write_inputs(d, 3)
    (d / "mapper.py").write_text(ENV_MAPPER)
    (d / "reducer.py").write_text(ENV_REDUCER)
    r = ham_run(d, cluster, *streaming(d, "out", *ENV_KEYS, "-D", "mapreduce.job.reduces=2"))
    assert r.returncode == 0, r.stderr[-3000:]
    local_run(d, cluster, streaming(d, "local", *ENV_KEYS, "-D", "mapreduce.job.reduces=2"))
    ham_out, local_out = summed(d / "out"), summed(d / "local")
    ham_env = {k: v for k, v in ham_out.items() if ":" in k}
    local_env = {k: v for k, v in local_out.items() if ":" in k}
    # 3 maps' lines, summed by the reduce that got the key; one line per reduce (2).
    assert ham_env == {"map:m1|-|for-maps|k1": 3, "reduce:-|r1|for-reduces|-": 2}, ham_out
    assert local_env == {"map:-|-|-|-": 3, "reduce:-|-|-|-": 2}, local_out
    words = {k: v for k, v in ham_out.items() if ":" not in k}
    assert words and words == {k: v for k, v in local_out.items() if ":" not in k}


# A map fails if its input file is named in FAIL_FILES (streaming exports map.input.file), or
# if it runs on the node named in FAIL_NODE.
FAILING = MAPPER.replace("import sys\n", """import os, sys
name = os.path.basename(os.environ.get('mapreduce_map_input_file', ''))
if name in os.environ.get('FAIL_FILES', '').split(','):
    sys.exit(f'{name} fails on purpose')
if os.environ.get('FAIL_NODE') and os.environ.get('SLURMD_NODENAME') == os.environ['FAIL_NODE']:
    sys.exit('this node fails on purpose')
""", 1)
MAPS = 10


def counts_of(d: Path, files: list[str]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for f in files:
        for w in (d / "in" / f).read_text().split():
            counts[w] = counts.get(w, 0) + 1
    return counts


def status_records(d: Path) -> list[dict]:
    """The session's Hadoop jobs' status records, in the order they were submitted."""
    paths = sorted((d / "shared").glob("*/*/jobs/*/status.json"), key=lambda p: p.parent.name)
    return [json.loads(p.read_text()) for p in paths]


def test_failed_maps_within_maxpercent_and_a_failing_node_blacklisted(cluster, tmp_path):
    """Three jobs in one allocation (each its own `hadoop jar`), each against YARN's rules:
    2 of 10 maps failing (one attempt each) with maxpercent 20 succeed, their output the word
    count of the 8 other files (the reduces skip the failed maps, as YARN's do; the local
    runner has no such key: a failed map fails its job); with maxpercent 10 the same job fails
    and leaves no output; maps that fail on node2 only, with one failure a node allowed
    (mapreduce.job.maxtaskfailures.per.tracker=1), get node2 blacklisted: no attempt starts
    there after its first failure, every map succeeds elsewhere, and the output is the local
    runner's. (YARN ignores blacklisting past 33% of the nodes by default, 1 of 3 here, so
    the job raises that threshold as a YARN user would.) A failed attempt costs nothing else:
    no other attempt of the job fails (a failed map's reporter thread once exited its runner,
    with the reduce it ran by then)."""
    d = tmp_path
    write_inputs(d, MAPS)
    (d / "mapper.py").write_text(FAILING)
    (d / "reducer.py").write_text(REDUCER)
    one_attempt = ("-D", "mapreduce.map.maxattempts=1", "-D", "mapreduce.map.speculative=false")
    within = streaming(d, "within", "-D", "mapreduce.map.failures.maxpercent=20", *one_attempt,
                       cmdenv="FAIL_FILES=f3,f7")
    beyond = streaming(d, "beyond", "-D", "mapreduce.map.failures.maxpercent=10", *one_attempt,
                       cmdenv="FAIL_FILES=f3,f7")
    node = streaming(d, "node", "-D", "mapreduce.job.maxtaskfailures.per.tracker=1",
                     "-D", "yarn.app.mapreduce.am.job.node-blacklisting.ignore-threshold-node-percent=50",
                     "-D", "mapreduce.map.speculative=false", cmdenv="FAIL_NODE=node2")
    script = "; ".join(f"{shlex.join(cmd)}; echo exit=$?" for cmd in (within, beyond, node))
    r = ham_run(d, cluster, "bash", "-c", script)
    exits = [line for line in r.stdout.splitlines() if line.startswith("exit=")]
    assert exits[0::2] == ["exit=0", "exit=0"] and exits[1] != "exit=0", (exits, r.stderr[-4000:])
    first, second, third = status_records(d)

    files = [f"f{i}" for i in range(MAPS)]
    assert output_counts(d / "within") == counts_of(d, [f for f in files if f not in ("f3", "f7")])
    assert first["state"] == "SUCCEEDED" and first["maps"]["failed"] == 2, first["maps"]
    failed = [a for a in first["attempts"] if a["state"] == "FAILED"]
    assert len(failed) == 2 and all("fails on purpose" in a["error"] for a in failed), failed

    assert second["state"] == "FAILED" and not (d / "beyond").exists(), second["errors"]

    local_run(d, cluster, streaming(d, "local", "-D", "mapreduce.map.speculative=false"))
    assert output_counts(d / "node") == output_counts(d / "local") == counts_of(d, files)
    assert third["state"] == "SUCCEEDED", third["errors"]
    on_node2 = [a for a in third["attempts"] if a["node"] == "node2" and a["type"] == "MAP"]
    node2_failures = [a for a in on_node2 if a["state"] == "FAILED"]
    assert node2_failures, f"no map ran on node2: {third['attempts']}"
    blacklisted_at = min(a["finish"] for a in node2_failures)
    assert all(a["start"] <= blacklisted_at for a in on_node2), on_node2
    assert not [a for a in on_node2 if a["state"] == "SUCCEEDED"], on_node2
    maps_done = {a["task"] for a in third["attempts"] if a["type"] == "MAP"
                 and a["state"] == "SUCCEEDED"}
    assert len(maps_done) == MAPS, third["attempts"]
