"""The YARN-less runtime on the 3-node cluster: unmodified `hadoop jar` jobs through `ham run`
inside an allocation give output byte-identical to Hadoop's local runner, spread over all nodes.

All reference jobs run in one local-runner script and all HAM jobs in one allocation, to keep
the suite fast; each test then checks one job."""

from __future__ import annotations

import filecmp
import json
import math
import os
import re
import subprocess
import sys
import textwrap
import xml.etree.ElementTree as ET
import zipfile
from pathlib import Path

import pytest

from ham.slurm import time_limit_seconds
from tests.conftest import MAPREDUCE_JARS, TOOLS_JARS
from tests.integration.conftest import side_by_side

EXAMPLES = next(MAPREDUCE_JARS.glob("hadoop-mapreduce-examples-*.jar"), None)
STREAMING = next(TOOLS_JARS.glob("hadoop-streaming-*.jar"), None)
JOBCLIENT_TESTS = next(MAPREDUCE_JARS.glob("hadoop-mapreduce-client-jobclient-*-tests.jar"), None)

MAPPER = """#!/usr/bin/env python3
import sys
for line in sys.stdin:
    for word in line.split():
        print(f"{word}\\t1")
"""
REDUCER = """#!/usr/bin/env python3
import sys
current, total = None, 0
for line in sys.stdin:
    word, n = line.rstrip("\\n").split("\\t")
    if word != current and current is not None:
        print(f"{current}\\t{total}")
        total = 0
    current = word
    total += int(n)
if current is not None:
    print(f"{current}\\t{total}")
"""


def jobs_script(data: Path, out: Path, hadoop: str = "command hadoop") -> str:
    """The same jobs for the local runner and for HAM; only `hadoop` and the output differ.
    Each job's client output follows a `### name` line (see job_log)."""
    return textwrap.dedent(f"""\
        set -e
        hadoop() {{ {hadoop} "$@"; }}
        job() {{ echo "### $1" >&2; }}
        cd {data}
        job wordcount
        hadoop jar {EXAMPLES} wordcount -D mapreduce.job.reduces=3 {data}/text {out}/wordcount
        job grep
        hadoop jar {EXAMPLES} grep {data}/text {out}/grep 'w1[0-9]*'
        job teragen
        hadoop jar {EXAMPLES} teragen -D mapreduce.job.maps=4 20000 {out}/teragen
        job terasort
        hadoop jar {EXAMPLES} terasort -D mapreduce.job.reduces=3 {out}/teragen {out}/terasort
        job teravalidate
        hadoop jar {EXAMPLES} teravalidate {out}/terasort {out}/teravalidate
        job teragen-6
        hadoop jar {EXAMPLES} teragen -D mapreduce.job.maps=6 120000 {out}/teragen-6
        job terasort-spills
        hadoop jar {EXAMPLES} terasort -D mapreduce.task.io.sort.mb=2 -D mapreduce.job.reduces=2 \
            {out}/teragen-6 {out}/terasort-spills
        job pi
        hadoop jar {EXAMPLES} pi 4 1000 > {out}/pi.txt
        job streaming
        hadoop jar {STREAMING} -files mapper.py,reducer.py -D mapreduce.job.reduces=2 \\
            -mapper 'python3 mapper.py' -reducer 'python3 reducer.py' \\
            -input {data}/text -output {out}/streaming
        job wordcount-v1-compressed
        hadoop jar {EXAMPLES} wordcount -D mapreduce.fileoutputcommitter.algorithm.version=1 \
            -D mapreduce.map.output.compress=true -D mapreduce.job.reduces=2 \
            {data}/text {out}/wordcount-v1-compressed
        job empty
        hadoop jar {EXAMPLES} wordcount {data}/empty {out}/empty
        job archives-maponly
        hadoop jar {STREAMING} -archives scripts.zip#s -D mapreduce.job.reduces=0 \\
            -mapper 'python3 s/mapper.py' -input {data}/text -output {out}/archives-maponly
        job sleep
        hadoop jar {JOBCLIENT_TESTS} sleep -m 100 -r 1 -mt 1 -rt 1
        job dfsio-write
        hadoop jar {JOBCLIENT_TESTS} TestDFSIO -D test.build.data={out}/dfsio -write -nrFiles 3 -size 2MB
        job dfsio-read
        hadoop jar {JOBCLIENT_TESTS} TestDFSIO -D test.build.data={out}/dfsio -read -nrFiles 3 -size 2MB
        """)


def job_log(log: str, job: str) -> str:
    """The client output of one job of jobs_script."""
    return log.split(f"### {job}\n", 1)[1].split("\n### ", 1)[0]


def counters(log: str, job: str) -> dict[str, int]:
    """The counters the client printed at the end of one job ("\t\tMap input records=100")."""
    return {m.group(1): int(m.group(2))
            for m in re.finditer(r"^\t\t([A-Za-z][^=\n]*)=(\d+)$", job_log(log, job), re.M)}


@pytest.fixture(scope="module")
def runs(cluster, tmp_path_factory):
    base = tmp_path_factory.mktemp("runtime")
    data = base / "data"
    (data / "text").mkdir(parents=True)
    for i in range(4):
        words = [f"w{(i * 13 + j * j) % 37}" for j in range(3000)]
        (data / "text" / f"f{i}.txt").write_text("\n".join(" ".join(words[k:k + 10])
                                                          for k in range(0, len(words), 10)) + "\n")
    (data / "mapper.py").write_text(MAPPER)
    (data / "reducer.py").write_text(REDUCER)
    (data / "empty").mkdir()  # a job with 0 input splits
    with zipfile.ZipFile(data / "scripts.zip", "w") as z:  # for -archives
        z.writestr("mapper.py", MAPPER)
    shared = base / "shared"
    shared.mkdir()
    env = {**cluster, "HAM_SHARED_ROOT": str(shared)}
    # Reference: Hadoop's local runner, through the bundled client with no HADOOP_CONF_DIR.
    ref = base / "local"
    local_env = {k: v for k, v in env.items() if k != "HADOOP_CONF_DIR"}
    ham_out = base / "ham"
    local, r = side_by_side(
        ["bash", "-c", jobs_script(data, ref, f"{sys.executable} -m ham hadoop")],
        [sys.executable, "-m", "ham", "run", "-N", "3", "--retention", "all", "--",
         "bash", "-c", jobs_script(data, ham_out)],
        timeout=900, reference_kw={"env": local_env}, ham_kw={"env": env})
    assert local.returncode == 0, local.stderr[-3000:]
    local_log = local.stderr
    assert r.returncode == 0, r.stderr[-5000:]
    return {"local": ref, "ham": ham_out, "log": r.stderr, "local_log": local_log,
            "shared": shared}


def same_tree(a: Path, b: Path) -> None:
    names = sorted(p.name for p in a.iterdir() if p.name.startswith("part-"))
    assert names, f"no part files in {a}"
    assert names == sorted(p.name for p in b.iterdir() if p.name.startswith("part-"))
    for name in names:
        assert filecmp.cmp(a / name, b / name, shallow=False), f"{name} differs"
    assert (b / "_SUCCESS").exists()


def concatenated(d: Path) -> bytes:
    return b"".join(p.read_bytes() for p in sorted(d.glob("part-*")))


@pytest.mark.parametrize("job", ["wordcount", "grep", "streaming", "wordcount-v1-compressed",
                                 "archives-maponly"])
def test_output_identical_to_local_runner(runs, job):
    same_tree(runs["local"] / job, runs["ham"] / job)


@pytest.mark.parametrize("job", ["teragen", "terasort"])
def test_tera_output_identical_in_order(runs, job):
    # The local runner forces one map (LocalClientProtocolProvider sets mapreduce.job.maps=1), so
    # teragen's files and terasort's sampled partition points differ; the data, in order, may not.
    ham = runs["ham"] / job
    assert (ham / "_SUCCESS").exists()
    if job == "teragen":
        assert len(list(ham.glob("part-m-*"))) == 4
    else:
        assert len(list(ham.glob("part-r-*"))) == 3
    assert concatenated(runs["local"] / job) == concatenated(ham)


def test_maps_reusing_a_sort_buffer_sort_as_hadoop_does(runs):
    """A runner's next map takes the sort buffer of its previous one, leftovers and all
    (HamMapOutputBuffer): 6 maps of 2 MB on 3 runners with a 2 MB buffer, so every map spills
    twice and the second one wraps around the buffer; sorted, the data is the local runner's."""
    out = runs["ham"] / "terasort-spills"
    assert len(list(out.glob("part-r-*"))) == 2
    assert concatenated(out) == concatenated(runs["local"] / "terasort-spills")
    job = re.search(r"Running job: (job_\S+)", job_log(runs["log"], "terasort-spills")).group(1)
    syslogs = [p.read_text() for p in runs["shared"].glob(f"*/*/jobs/{job}/logs/attempt_*_m_*.syslog")]
    assert len(syslogs) == 6
    reused = [t for t in syslogs if "sort.mb: 2 (the sort buffer of the runner's previous map)" in t]
    assert reused, "no map reused a sort buffer"
    assert all("Finished spill 1" in t for t in reused)


def test_job_with_zero_splits(runs):
    ham = runs["ham"] / "empty"
    assert (ham / "_SUCCESS").exists()
    assert concatenated(ham) == concatenated(runs["local"] / "empty") == b""


def test_teravalidate_checksum_matches(runs):
    text = (runs["ham"] / "teravalidate" / "part-r-00000").read_text()
    assert "checksum" in text and "error" not in text
    assert text == (runs["local"] / "teravalidate" / "part-r-00000").read_text()


def test_pi_estimate_matches(runs):
    def estimate(path: Path) -> str:
        return next(line for line in path.read_text().splitlines() if "Estimated value" in line)
    assert estimate(runs["local"] / "pi.txt") == estimate(runs["ham"] / "pi.txt")


def test_client_output_looks_like_yarn(runs):
    log = runs["log"]
    # Progress lines as YARN prints them (the first one seen depends on how fast tasks start).
    progress = re.findall(r"INFO mapreduce\.Job: {2}map (\d+)% reduce (\d+)%", log)
    assert len(progress) >= 2 and ("100", "100") in progress, progress
    assert "Launched map tasks=100" in log  # the sleep job: 100 maps, no JVM start per task
    assert "Job Counters" in log


def test_console_has_no_driver_lines_the_driver_log_has_them(runs, cluster):
    """As on YARN, the client prints progress, failed attempts and counters; what the driver
    does per task (and its IPC server's start-up) goes to the job directory's driver.log."""
    log = runs["log"]
    for driver_line in ("Assigned attempt_", "Attempt attempt_", "ipc.Server", "driver.",
                        "Auth successful", "Task java-opts"):
        assert driver_line not in log, driver_line
    session = next(p for p in runs["shared"].glob("*/*") if (p / "driver.log").exists())
    env = {**cluster, "HAM_SHARED_ROOT": str(runs["shared"])}
    r = subprocess.run([sys.executable, "-m", "ham", "logs", session.name, "--driver"],
                       env=env, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout.count("Assigned attempt_") >= 100 + 4 + 3  # sleep, terasort, wordcount...
    assert "ipc.Server" in r.stdout and "HAM umbilical" in r.stdout
    # Each job's tracking URL line names the commands that follow it (there is no web UI);
    # the allocation's (`ham status`) shows this session.
    # (Streaming's client prints it as "Tracking URL".)
    jobs = re.findall(r"Running job: (job_\d+_\d+)", log)
    urls = re.findall(r"(?:The url to track the job|Tracking URL): (.*)", log)
    assert len(set(jobs)) >= 12 and len(urls) >= len(set(jobs)), (jobs, urls)
    for url in urls:
        m = re.fullmatch(r"`ham status (\S+)` or `mapred job -status (job_\d+_\d+)`", url)
        assert m and m.group(1) == session.name and m.group(2) in jobs, url
    assert {re.search(r"job_\d+_\d+", url).group(0) for url in urls} == set(jobs)
    r = subprocess.run([sys.executable, "-m", "ham", "status", session.name], env=env,
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and str(session) in r.stdout, r.stdout + r.stderr


JOB_COUNTER = "org.apache.hadoop.mapreduce.JobCounter"
# The job counters the MRAppMaster reports for a job whose maps and reduces all succeed at their
# first attempt, with the names its client prints (JobCounter.properties); every map "other
# local", as YARN counts a map placed off its split's hosts (a shared file system has no locality).
YARN_JOB_COUNTERS = {
    "TOTAL_LAUNCHED_MAPS": "Launched map tasks",
    "TOTAL_LAUNCHED_REDUCES": "Launched reduce tasks",
    "OTHER_LOCAL_MAPS": "Other local map tasks",
    "SLOTS_MILLIS_MAPS": "Total time spent by all maps in occupied slots (ms)",
    "SLOTS_MILLIS_REDUCES": "Total time spent by all reduces in occupied slots (ms)",
    "MILLIS_MAPS": "Total time spent by all map tasks (ms)",
    "MILLIS_REDUCES": "Total time spent by all reduce tasks (ms)",
    "VCORES_MILLIS_MAPS": "Total vcore-milliseconds taken by all map tasks",
    "VCORES_MILLIS_REDUCES": "Total vcore-milliseconds taken by all reduce tasks",
    "MB_MILLIS_MAPS": "Total megabyte-milliseconds taken by all map tasks",
    "MB_MILLIS_REDUCES": "Total megabyte-milliseconds taken by all reduce tasks",
}


def job_records(shared: Path) -> list[tuple[Path, dict]]:
    """(job directory, status record) of every HAM job under a shared root."""
    return [(p.parent, json.loads(p.read_text())) for p in shared.glob("*/*/jobs/*/status.json")]


def job_writing(records: list[tuple[Path, dict]], output: str) -> dict:
    """The status record of the one job among records whose output directory is named output."""
    (record,) = [r for _, r in records if (r["output_dir"] or "").endswith("/" + output)]
    return record


def task_resources(job_dir: Path, kind: str) -> tuple[int, int, int]:
    """(memory.mb, vcores, yarn.scheduler.minimum-allocation-mb) of the job's maps (MAP) or
    reduces (REDUCE), from the job's configuration as the MRAppMaster reads them (1024 MB when
    memory.mb is unset: none of these jobs sets a heap to derive it from)."""
    conf = {p.findtext("name"): p.findtext("value")
            for p in ET.parse(job_dir / "job.xml").getroot().iter("property")}
    name = kind.lower()
    assert "-Xmx" not in (conf.get(f"mapreduce.{name}.java.opts") or ""), "memory from the heap"
    memory = int(conf.get(f"mapreduce.{name}.memory.mb") or -1)
    return (memory if memory > 0 else 1024, int(conf.get(f"mapreduce.{name}.cpu.vcores") or 1),
            int(conf.get("yarn.scheduler.minimum-allocation-mb") or 1024))


def check_job_counters(job_dir: Path, record: dict) -> None:
    """The ended job's JobCounters as the MRAppMaster adds them (TaskAttemptImpl,
    RMContainerAllocator): launched attempts = succeeded + failed + killed ones, every launched
    map other local; each attempt's time (its record's start to finish) in MILLIS, weighted by
    the task's memory.mb in MB_MILLIS, vcores in VCORES_MILLIS and slots of the minimum
    allocation in SLOTS_MILLIS; a counter nothing was added to is absent."""
    counters = record["counters"].get(JOB_COUNTER, {})
    expected = set()
    for kind, tasks in (("MAP", "MAPS"), ("REDUCE", "REDUCES")):
        attempts = [a for a in record["attempts"] if a["type"] == kind]
        states = [a["state"] for a in attempts]
        assert len(states) == states.count("SUCCEEDED") + states.count("FAILED") + \
            states.count("KILLED"), states
        millis = sum(a["finish"] - a["start"] for a in attempts)
        memory, vcores, slot = task_resources(job_dir, kind)
        want = {f"TOTAL_LAUNCHED_{tasks}": len(attempts),
                f"NUM_FAILED_{tasks}": states.count("FAILED"),
                f"NUM_KILLED_{tasks}": states.count("KILLED"), f"MILLIS_{tasks}": millis,
                f"MB_MILLIS_{tasks}": millis * memory, f"VCORES_MILLIS_{tasks}": millis * vcores,
                f"SLOTS_MILLIS_{tasks}": millis * math.ceil(memory / slot)}
        if kind == "MAP":
            want["OTHER_LOCAL_MAPS"] = len(attempts)
        for name, value in want.items():
            assert counters.get(name, 0) == value, (record["job_id"], name, counters)
            if attempts and (value or "MILLIS" in name):
                expected.add(name)
    assert set(counters) == expected, (record["job_id"], counters)


def test_job_counters_are_yarns(runs):
    """Every job's JobCounters are those the MRAppMaster reports, with its arithmetic
    (check_job_counters); wordcount's are YARN's full set for such a job, printed by the client
    under Hadoop's names with the values of the status record."""
    records = job_records(runs["shared"])
    assert len(records) >= 12
    for job_dir, record in records:
        check_job_counters(job_dir, record)
    record = job_writing(records, "wordcount")
    job = record["counters"][JOB_COUNTER]
    assert sorted(job) == sorted(YARN_JOB_COUNTERS)
    assert job["MB_MILLIS_MAPS"] == 1024 * job["MILLIS_MAPS"] > 0
    printed = counters(runs["log"], "wordcount")
    assert {name: printed.get(shown) for name, shown in YARN_JOB_COUNTERS.items()} == job


def test_task_resource_counters_are_yarns_and_each_tasks_own(runs):
    """The tasks' process-tree counters, which YARN's tasks take from the process tree of
    JVM_PID (the container script's): CPU time, physical and virtual memory, their per-phase
    peaks, printed by the client under Hadoop's names. A runner serves task after task, and
    each task's CPU time is its own: no more than the machine's cores could give in the
    attempts' own time (a runner's start-up and earlier tasks would exceed it)."""
    record = job_writing(job_records(runs["shared"]), "wordcount")
    tasks = record["counters"]["org.apache.hadoop.mapreduce.TaskCounter"]
    names = {"CPU_MILLISECONDS": "CPU time spent (ms)",
             "PHYSICAL_MEMORY_BYTES": "Physical memory (bytes) snapshot",
             "VIRTUAL_MEMORY_BYTES": "Virtual memory (bytes) snapshot",
             "MAP_PHYSICAL_MEMORY_BYTES_MAX": "Peak Map Physical memory (bytes)",
             "MAP_VIRTUAL_MEMORY_BYTES_MAX": "Peak Map Virtual memory (bytes)",
             "REDUCE_PHYSICAL_MEMORY_BYTES_MAX": "Peak Reduce Physical memory (bytes)",
             "REDUCE_VIRTUAL_MEMORY_BYTES_MAX": "Peak Reduce Virtual memory (bytes)"}
    assert all(tasks.get(name, 0) > 0 for name in names), tasks
    assert tasks["VIRTUAL_MEMORY_BYTES"] > tasks["PHYSICAL_MEMORY_BYTES"]
    jobs = record["counters"][JOB_COUNTER]
    assert tasks["CPU_MILLISECONDS"] <= (os.cpu_count() or 1) * (
        jobs["MILLIS_MAPS"] + jobs["MILLIS_REDUCES"]), (tasks, jobs)
    printed = counters(runs["log"], "wordcount")
    assert {name: printed.get(shown) for name, shown in names.items()} == \
        {name: tasks[name] for name in names}


# Jobs of jobs_script whose maps come from their input's splits (the local framework forces
# mapreduce.job.maps=1, so teragen's, sleep's and terasort-after-teragen's differ in number).
SPLIT_JOBS = ("wordcount", "grep", "streaming", "wordcount-v1-compressed", "archives-maponly",
              "pi", "empty")
# Counters both print whose values depend on the runtime, not the job: the JVM's garbage
# collection and heap, and the file system counters (the local runner's count every task's
# bytes into each later task's, all in one JVM; HAM's count the job's input and output, not
# the map outputs, which do not go through Hadoop's local file system: docs/from-yarn.md).
RUNTIME_COUNTERS = {"GC time elapsed (ms)", "Total committed heap usage (bytes)",
                    "FILE: Number of bytes read", "FILE: Number of bytes written"}
# grep's second job and pi read a temporary directory with a random number in its name, whose
# length (so the serialized splits' size) differs from run to run.
RANDOM_INPUT_PATHS = {"grep", "pi"}


@pytest.mark.parametrize("job", SPLIT_JOBS)
def test_counters_equal_the_local_runners(runs, job):
    """Every counter the local runner prints for the same job, HAM prints with the same value
    (records, bytes, groups, spills, shuffled and merged maps, input and output bytes), but
    those of RUNTIME_COUNTERS; those only HAM prints are YARN's (test_job_counters_are_yarns,
    test_task_resource_counters_are_yarns_and_each_tasks_own)."""
    ham, local = counters(runs["log"], job), counters(runs["local_log"], job)
    assert len(local) >= (3 if job == "empty" else 10), local
    skip = RUNTIME_COUNTERS | ({"Input split bytes"} if job in RANDOM_INPUT_PATHS else set())
    assert {k: ham.get(k) for k in local if k not in skip} == \
        {k: v for k, v in local.items() if k not in skip}


def test_cpu_counters_within_what_slurm_accounted_for_the_runners(runs, cluster):
    """The tasks' CPU time, read by Hadoop from the runner's process tree, is bounded by what
    the operating system accounted to the runners (Slurm's TotalCPU of the allocation's steps,
    from the processes' rusage): a counter that took the runner's whole CPU time rather than
    the task's share would exceed it. (Slurm's MaxRSS cannot bound the memory counters: it is
    sampled every 30 s and is empty for steps this short.)"""
    records = job_records(runs["shared"])
    task_cpu = sum(r["counters"].get("org.apache.hadoop.mapreduce.TaskCounter", {})
                   .get("CPU_MILLISECONDS", 0) for _, r in records)
    allocation = {job_dir.parents[1].name for job_dir, _ in records}  # <root>/<user>/<job id>/jobs
    assert len(allocation) == 1, allocation
    steps = subprocess.run(["sacct", "-n", "-P", "-j", allocation.pop(), "-o", "JobID,TotalCPU"],
                           env=cluster, capture_output=True, text=True, check=True).stdout
    runner_cpu = sum(cpu_millis(cpu) for step, cpu in
                     (line.split("|") for line in steps.splitlines())
                     if re.fullmatch(r"\d+\.\d+", step))
    assert 0 < task_cpu <= runner_cpu, (task_cpu, runner_cpu)
    for _, r in records:  # each task's memory: a JVM's, in bytes (not KB, not the machine's)
        tasks = r["counters"].get("org.apache.hadoop.mapreduce.TaskCounter", {})
        launched = sum(r[kind]["total"] for kind in ("maps", "reduces"))
        if launched:
            per_task = tasks["PHYSICAL_MEMORY_BYTES"] / launched
            assert 32 << 20 < per_task < os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")


def cpu_millis(total_cpu: str) -> int:
    """sacct's TotalCPU ([DD-][HH:]MM:SS.mmm) in milliseconds: its clock reads as a time limit
    does, then the fraction of a second."""
    clock, _, fraction = total_cpu.partition(".")
    return (time_limit_seconds(clock) or 0) * 1000 + round(float(f"0.{fraction or 0}") * 1000)


def test_each_job_took_the_runners_started_when_it_got_its_id(runs):
    """The driver starts a job's runners when the client asks for the job's id, while it stages
    the job; every job of the script (each its own client) took those runners and started no
    others: one generation each, as its status record counts them."""
    [session] = [p for p in runs["shared"].glob("*/*") if (p / "driver.log").exists()]
    driver_log = (session / "driver.log").read_text()
    records = [json.loads(p.read_text()) for p in session.glob("jobs/*/status.json")]
    with_tasks = [r for r in records if r["maps"]["total"] + r["reduces"]["total"] > 0]
    assert len(with_tasks) >= 10, [r["job_id"] for r in records]
    for r in with_tasks:
        assert f"Job {r['job_id']} takes the runners started when it got its id" in driver_log
        assert r["runner_launches"] == 1, (r["job_id"], r["runner_launches"])
    assert "before it was submitted" not in driver_log


def test_runners_know_their_steps_size_to_spread_their_first_calls(runs):
    """Each runner waits a random share of its step's spread before its first call
    (ConnectPacing: the step's runners over 0.1 ms each), sized by Slurm's count of the step's
    tasks: a runner that saw no such count (or another step's) would say another size."""
    steps = list(runs["shared"].glob("*/*/jobs/*/logs/runners.g*.log"))
    assert steps
    for log in steps:
        said = re.findall(r"Task runner (\S+) started; first call in (\d+) ms \(one of (\d+) "
                          r"runners of its step\)", log.read_text())
        # A runner's id is node/slot/pid; a warm runner claimed by a later job says it again
        # there, with the claim's slot: a runner is its node and pid.
        runners = {(runner.split("/")[0], runner.rsplit("/", 1)[1]) for runner, _, _ in said}
        assert runners, log
        assert {int(n) for _, _, n in said} == {len(runners)}, (log, said)  # 3 nodes' runners
        assert all(int(ms) <= len(runners) // 10 for _, ms, _ in said), said


def test_tasks_ran_on_all_three_nodes_with_logs(runs):
    logs = list(runs["shared"].glob("*/*/jobs/*/logs/attempt_*.syslog"))
    nodes = {p.name.split(".")[1] for p in logs}
    assert nodes == {"node1", "node2", "node3"}


def test_sleep_job_counters_match_the_local_runner(runs):
    """The sleep job writes no output: what it did is in its counters. The local runner runs it
    with the maps it forces (mapreduce.job.maps=1), HAM with the 100 asked for; per map, both
    read and wrote the same records and bytes, and every map output reached the reduce."""
    def splits(log: str) -> int:
        return int(re.search(r"number of splits:(\d+)", job_log(log, "sleep")).group(1))
    ham, local = counters(runs["log"], "sleep"), counters(runs["local_log"], "sleep")
    assert splits(runs["log"]) == 100 and ham["Launched map tasks"] == 100
    n = splits(runs["local_log"])
    for name in ("Map input records", "Map output records", "Map output bytes"):
        assert ham[name] > 0 and ham[name] * n == local[name] * 100, (name, ham[name], local[name])
    assert ham["Reduce input records"] == ham["Map output records"]
    assert local["Reduce input records"] == local["Map output records"]


def test_a_reduce_reads_its_map_outputs_with_several_fetchers(runs):
    """HamShuffle: the sleep job's reduce reads its 100 map outputs from the shared file system
    with mapreduce.reduce.shuffle.parallelcopies (5) fetchers, each map once (the counters above
    say every record arrived)."""
    job = re.search(r"Running job: (job_\S+)", job_log(runs["log"], "sleep")).group(1)
    syslog = "".join(p.read_text() for p in
                     runs["shared"].glob(f"*/*/jobs/{job}/logs/attempt_*_r_000000_*.syslog"))
    shuffled = re.findall(r"localfetcher#(\d+) about to shuffle output of map (attempt_\S+)",
                          syslog)
    assert len(shuffled) == 100 and len({m for _, m in shuffled}) == 100, len(shuffled)
    assert len({f for f, _ in shuffled}) == 5, sorted({f for f, _ in shuffled})


def test_testdfsio_writes_the_same_files_and_reads_them_all(runs):
    ham_data = runs["ham"] / "dfsio" / "io_data"
    local_data = runs["local"] / "dfsio" / "io_data"
    names = sorted(p.name for p in local_data.glob("test_io_*"))
    assert len(names) == 3
    assert sorted(p.name for p in ham_data.glob("test_io_*")) == names
    for name in names:
        assert (ham_data / name).stat().st_size == 2 * 1024 * 1024
        assert filecmp.cmp(ham_data / name, local_data / name, shallow=False), name
    for mode in ("write", "read"):
        def result(log: str) -> list[str]:
            return re.findall(r"(?:Number of files|Total MBytes processed): (\S+)",
                              job_log(log, f"dfsio-{mode}"))
        assert result(runs["log"]) == result(runs["local_log"]), mode
        assert result(runs["log"])[0] == "3" and float(result(runs["log"])[1]) == 6, mode


def job_logs(shared: Path, output: str) -> list[Path]:
    """The attempt syslogs of the HAM job that wrote `output` (its status record names it)."""
    for status in shared.glob("*/*/jobs/*/status.json"):
        record = json.loads(status.read_text())
        if (record.get("output_dir") or "").endswith("/" + output):
            return sorted(status.parent.glob("logs/attempt_*.syslog"))
    raise AssertionError(f"no job wrote {output}")


def test_compression_and_committer_v1_took_effect(runs):
    """Same output is not enough: the settings must have reached the tasks."""
    v1 = "".join(p.read_text() for p in job_logs(runs["shared"], "wordcount-v1-compressed"))
    default = "".join(p.read_text() for p in job_logs(runs["shared"], "wordcount"))
    assert "File Output Committer Algorithm version is 1" in v1
    assert "File Output Committer Algorithm version is 2" in default
    assert "version is 1" not in default
    # Map output compressed with the default codec (zlib), and smaller for it.
    assert "Got brand-new compressor [.deflate]" in v1
    assert "Got brand-new compressor" not in default
    compressed = counters(runs["log"], "wordcount-v1-compressed")["Map output materialized bytes"]
    plain = counters(runs["log"], "wordcount")["Map output materialized bytes"]
    assert compressed < 0.8 * plain, (compressed, plain)
