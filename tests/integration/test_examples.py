"""examples/ run as their users would run them, on the real 3-node test cluster.

Each test drives one example directory exactly as its README says (sbatch, salloc, `ham submit
--wait`, `ham run`, setup.sh) and checks the real output against counts computed in Python.
All jobs share one small text corpus; the Java example is built once per session."""

from __future__ import annotations

import collections
import json
import os
import re
import shutil
import string
import subprocess
import sys
import time
import tomllib
import zipfile
import zlib
from pathlib import Path

import pytest

from tests.conftest import REPO, SHARE
from tests.integration.conftest import install_ham

pytestmark = pytest.mark.integration

EXAMPLES = REPO / "examples"
TIMEOUT = 600

# A small corpus with mixed case, punctuation around words and punctuation-only tokens, so
# plain (whitespace) and normalised (case-folded, stripped) word counts differ.
VOCABULARY = ("The the THE quick brown fox jumps over lazy dog. Hadoop, Slurm and Lustre: it's a "
              "\"shared\" file-system! (YARN?) no-YARN; MapReduce's 42 tasks -- & theory other "
              "Theatre, them. (the) a b I x").split()


def write_corpus(directory: Path) -> str:
    directory.mkdir(parents=True)
    texts = []
    for i in range(3):
        lines = [" ".join(VOCABULARY[(i * 31 + n * 7 + k * k) % len(VOCABULARY)]
                          for k in range(1 + (n % 13))) for n in range(400)]
        text = "\n".join(lines) + "\n"
        (directory / f"part{i}.txt").write_text(text)
        texts.append(text)
    return "".join(texts)


def plain_counts(text: str) -> collections.Counter:
    """Hadoop's example wordcount: whitespace-separated tokens, as they are."""
    return collections.Counter(text.split())


def normalised_counts(text: str, min_length: int = 1) -> collections.Counter:
    """The streaming and Java examples: lower-cased, surrounding punctuation stripped."""
    words = (t.strip(string.punctuation).lower() for t in text.split())
    return collections.Counter(w for w in words if len(w) >= min_length)


def read_counts(out_dir: Path, reversed_columns: bool = False) -> collections.Counter:
    counts: collections.Counter = collections.Counter()
    parts = sorted(out_dir.glob("part-*"))
    assert parts, f"no part-* files in {out_dir}"
    for part in parts:
        for line in part.read_text().splitlines():
            a, b = line.split("\t")
            word, n = (b, a) if reversed_columns else (a, b)
            assert word not in counts, f"{word!r} appears twice in {out_dir}"
            counts[word] = int(n)
    assert (out_dir / "_SUCCESS").exists()
    return counts


def assert_ran_on_ham(log: str, shared: str | Path, jobs: int = 1) -> None:
    """The jobs ran on HAM's task runners across the allocation, not in a local runner: each
    job the client ran has a status record written by HAM's driver, SUCCEEDED, with its
    attempts on the cluster's nodes."""
    ids = re.findall(r"Running job: (job_\d+_\d+)", log)
    assert len(ids) == jobs, log[-3000:]
    for job_id in ids:
        record = next(Path(shared).glob(f"*/*/jobs/{job_id}/status.json"))
        status = json.loads(record.read_text())
        assert status["state"] == "SUCCEEDED" and status["attempts"], status
        assert {a["node"] for a in status["attempts"]} <= {"node1", "node2", "node3"}
    assert "LocalJobRunner" not in log


@pytest.fixture(scope="module")
def data(tmp_path_factory) -> dict:
    base = tmp_path_factory.mktemp("examples")
    text = write_corpus(base / "corpus")
    return {"base": base, "corpus": base / "corpus", "text": text}


@pytest.fixture(scope="module")
def user_env(cluster, data) -> dict[str, str]:
    """A user's environment: the cluster, a shared root, and `ham` on PATH (this interpreter's,
    so the examples run the HAM under test; sbatch carries PATH to the nodes)."""
    bin_dir = data["base"] / "bin"
    bin_dir.mkdir()
    (bin_dir / "ham").write_text(f'#!/bin/sh\nexec "{sys.executable}" -m ham "$@"\n')
    (bin_dir / "ham").chmod(0o755)
    shared = data["base"] / "shared"
    shared.mkdir()
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("HAM_", "HADOOP_", "SLURM_"))}
    env.update(cluster)
    env.update({"PATH": f"{bin_dir}:{os.environ['PATH']}", "HAM_SHARED_ROOT": str(shared),
                "HAM_USER_CONFIG": "/dev/null"})
    return env


def run(argv: list, env: dict[str, str], cwd: Path, timeout: float = TIMEOUT):
    return subprocess.run([str(a) for a in argv], env=env, cwd=cwd, capture_output=True,
                          text=True, timeout=timeout)


def sbatch(script: Path, args: list, env: dict[str, str], cwd: Path) -> tuple[int, str]:
    """Submit a batch script as a user would (`sbatch [-o ...] script args`) and wait for it by
    polling sacct every second (`sbatch --wait` polls ever more slowly, up to 32 s). Returns
    the job's exit code and its output file."""
    r = run(["sbatch", "--parsable", "-o", cwd / "job-%j.out", script, *args], env, cwd)
    assert r.returncode == 0, r.stderr
    job_id = r.stdout.strip().split(";")[0]
    deadline = time.monotonic() + TIMEOUT
    while time.monotonic() < deadline:
        q = run(["sacct", "-X", "-n", "-P", "-j", job_id, "-o", "State,ExitCode"], env, cwd)
        fields = q.stdout.strip().split("|")
        if len(fields) == 2 and fields[0].split()[0] not in ("PENDING", "RUNNING", "REQUEUED",
                                                              "SUSPENDED", "COMPLETING"):
            code, signal = (int(x) for x in fields[1].split(":"))
            log = cwd / f"job-{job_id}.out"
            return (128 + signal if signal else code), log.read_text() if log.exists() else ""
        time.sleep(1)
    run(["scancel", job_id], env, cwd)
    pytest.fail(f"batch job {job_id} did not finish in {TIMEOUT} s")


def job_records(shared: Path) -> list[dict]:
    return [json.loads(p.read_text()) for p in shared.glob("*/*/ham.json")]


# -- batch: hand-written sbatch scripts ------------------------------------------------------

def test_batch_wordcount_sbatch(data, user_env, tmp_path):
    out = tmp_path / "wordcount"
    code, log = sbatch(EXAMPLES / "batch" / "wordcount.sbatch", [data["corpus"], out], user_env,
                       tmp_path)
    assert code == 0, log[-3000:]
    expected = plain_counts(data["text"])
    assert read_counts(out) == expected
    assert len(list(out.glob("part-r-*"))) == 3  # REDUCES default
    assert "on 3 nodes" in log
    assert_ran_on_ham(log, user_env["HAM_SHARED_ROOT"])
    top = log.split("== the ten most frequent words\n")[1].splitlines()[0]
    word, n = top.split("\t")
    assert int(n) == max(expected.values()) and expected[word] == int(n)


def test_batch_terasort_sbatch(data, user_env, tmp_path):
    rows = 20000
    out = tmp_path / "tera"
    # The script's other calling convention: ROWS and OUT in the environment.
    code, log = sbatch(EXAMPLES / "batch" / "terasort.sbatch", [],
                       {**user_env, "ROWS": str(rows), "OUT": str(out)}, tmp_path)
    assert code == 0, log[-3000:]
    assert_ran_on_ham(log, user_env["HAM_SHARED_ROOT"], jobs=3)
    assert "terasort output is sorted" in log

    def records(pattern: str) -> list[bytes]:
        blob = b"".join(p.read_bytes() for p in sorted(out.glob(pattern)))
        assert len(blob) % 100 == 0
        return [blob[i:i + 100] for i in range(0, len(blob), 100)]

    generated = records("teragen/part-m-*")
    sorted_ = records("terasort/part-r-*")
    assert len(generated) == rows and len(list(out.glob("terasort/part-r-*"))) == 3
    assert [r[:10] for r in sorted_] == sorted(r[:10] for r in generated)
    assert sorted(sorted_) == sorted(generated)
    # TeraValidate's checksum is the 128-bit sum of every record's CRC32, printed in hex.
    checksum = sum(zlib.crc32(rec) for rec in generated)
    assert (out / "teravalidate" / "part-r-00000").read_text() == f"checksum\t{checksum:x}\n"
    # One job directory per `ham run` in the script, each exited 0.
    mine = [rec for rec in job_records(Path(user_env["HAM_SHARED_ROOT"]))
            if str(out) in " ".join(rec["command"])]
    assert len(mine) == 3 and all(rec["exit_code"] == 0 for rec in mine)


# -- interactive: salloc + eval "$(ham env)" ----------------------------------------------

def test_interactive_walkthrough_in_salloc(data, user_env, tmp_path):
    out = tmp_path / "out"
    r = run(["salloc", "-N", "3", "bash", EXAMPLES / "interactive" / "walkthrough.sh",
             data["corpus"], out], user_env, tmp_path)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    # wordcount, and grep's search and sort jobs
    assert_ran_on_ham(r.stderr, user_env["HAM_SHARED_ROOT"], jobs=3)
    assert read_counts(out / "wordcount") == plain_counts(data["text"])
    grep = collections.Counter()
    for line in data["text"].splitlines():
        grep.update(re.findall(r"[^ ]*[Tt]he[^ ]*", line))
    assert read_counts(out / "grep", reversed_columns=True) == grep
    assert "== the ten most frequent words" in r.stdout
    assert "cleaned up; HAM_JOB_DIR=unset" in r.stdout
    job_dir = Path(re.search(r"^job directory: (.*)$", r.stdout, re.M).group(1))
    assert job_dir.parent.parent == Path(user_env["HAM_SHARED_ROOT"])
    assert not (job_dir / "staging").exists()  # --cleanup applied retention 'logs'


# -- streaming: Python mapper/reducer through `ham submit --wait` --------------------------

def test_streaming_python_wordcount(data, user_env, tmp_path):
    out = tmp_path / "out"
    r = run(["bash", EXAMPLES / "streaming" / "run.sh", data["corpus"], out,
             "-o", tmp_path / "job-%j.out"], user_env, tmp_path)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    assert_ran_on_ham(r.stdout + r.stderr, user_env["HAM_SHARED_ROOT"])
    assert re.search(r"ham: job \d+ COMPLETED, exit code 0", r.stdout + r.stderr)
    assert len(list(out.glob("part-0*"))) == 3  # streaming writes part-NNNNN (old API)
    assert read_counts(out) == normalised_counts(data["text"])


def test_streaming_scripts_work_in_a_plain_pipe(data):
    """The README's try-it-without-Hadoop pipeline gives the same counts."""
    d = EXAMPLES / "streaming"
    mapped = subprocess.run([sys.executable, d / "mapper.py"], input=data["text"],
                            capture_output=True, text=True, check=True).stdout
    shuffled = "".join(sorted(mapped.splitlines(keepends=True)))
    reduced = subprocess.run([sys.executable, d / "reducer.py"], input=shuffled,
                             capture_output=True, text=True, check=True).stdout
    got = collections.Counter({w: int(n) for w, n in (x.split("\t") for x in reduced.splitlines())})
    assert got == normalised_counts(data["text"])


# -- java-wordcount: a Maven project with a lib/ dependency in the job jar -----------------

@pytest.fixture(scope="session")
def java_project(tmp_path_factory) -> Path:
    """A copy of examples/java-wordcount, built once (offline from ~/.m2 if it can be)."""
    project = tmp_path_factory.mktemp("java") / "java-wordcount"
    shutil.copytree(EXAMPLES / "java-wordcount", project, ignore=shutil.ignore_patterns("target"))
    r = subprocess.run(["mvn", "-q", "-B", "-o", "package"], cwd=project, capture_output=True,
                       text=True, timeout=TIMEOUT)
    if r.returncode != 0:  # a dependency not in ~/.m2 yet: fetch it once
        r = subprocess.run(["mvn", "-q", "-B", "package"], cwd=project, capture_output=True,
                           text=True, timeout=TIMEOUT)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    return project


def test_java_wordcount_fat_jar(data, user_env, java_project, tmp_path):
    jar = java_project / "target" / "ham-wordcount-1.0.jar"
    with zipfile.ZipFile(jar) as z:
        names = set(z.namelist())
    assert "lib/commons-lang-2.6.jar" in names
    assert not any(n.startswith("org/apache/hadoop/") for n in names)  # Hadoop is provided
    # The mapper's StringUtils can only come from the job jar's lib/: Hadoop does not ship it.
    assert not list((SHARE / "common" / "lib").glob("commons-lang-2*.jar"))
    out = tmp_path / "out"
    r = run(["bash", java_project / "run.sh", data["corpus"], out,
             "-D", "mapreduce.job.reduces=2", "-D", "wordcount.min.length=2"], user_env, tmp_path)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    assert_ran_on_ham(r.stdout + r.stderr, user_env["HAM_SHARED_ROOT"])
    expected = normalised_counts(data["text"], min_length=2)
    assert read_counts(out) == expected
    assert len(list(out.glob("part-r-*"))) == 2
    assert f"words counted: {sum(expected.values())}" in r.stdout
    assert re.search(r"Combine input records=\d+", r.stderr)


# -- site-admin: site file + modulefiles ------------------------------------------------------

def test_site_admin_setup(tmp_path):
    """README's site setup: HAM installed in PREFIX, then `setup.sh PREFIX` writes the site
    file, the modulefiles and the SPANK plugin there; rerun, it changes nothing."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("HAM_")}
    env["HAM_USER_CONFIG"] = "/dev/null"
    prefix = install_ham("opt-ham")
    setup = EXAMPLES / "site-admin" / "setup.sh"
    first = run(["bash", setup, prefix], env, tmp_path, timeout=120)
    assert first.returncode == 0, first.stdout + first.stderr
    site = prefix / "etc" / "ham" / "ham.toml"
    version = run([sys.executable, "-m", "ham", "--version"], env, tmp_path).stdout.split()[-1]
    lua = prefix / "modulefiles" / "lmod" / "ham" / f"{version}.lua"
    tcl = prefix / "modulefiles" / "tcl" / "ham" / version
    plugin = prefix / "lib" / "slurm" / "ham_spank.so"
    assert site.read_bytes() == (EXAMPLES / "site-admin" / "ham.toml").read_bytes()
    assert plugin.read_bytes() == (REPO / "slurm-plugins" / "ham_spank.so").read_bytes()
    before = {p: p.read_bytes() for p in (site, lua, tcl, plugin)}

    # Idempotent: a second run changes nothing.
    second = run(["bash", setup, prefix], env, tmp_path, timeout=120)
    assert second.returncode == 0, second.stdout + second.stderr
    assert second.stdout.count("unchanged") == 4, second.stdout
    assert {p: p.read_bytes() for p in before} == before

    # `ham config show` reports every value the sample sets, from the site file.
    settings = tomllib.loads(site.read_text())
    assert {"shared_root", "partition", "time_limit", "java_home", "spank"} <= settings.keys()
    shown = run([sys.executable, "-m", "ham", "config", "show"],
                {**env, "HAM_SITE_CONFIG": str(site)}, tmp_path)
    assert shown.returncode == 0, shown.stderr
    lines = {line.split()[0]: line for line in shown.stdout.splitlines()}
    for key, value in settings.items():
        assert json.dumps(value) in lines[key], lines[key]
        assert lines[key].rstrip().endswith(f"site file {site}"), lines[key]

    # The modulefiles put PREFIX's `ham` alone on PATH and point at the site file; the site
    # file's java_home is HAM's to read, not the module's to export.
    bin_dir = prefix / "share" / "ham" / "bin"
    assert sorted(os.listdir(bin_dir)) == ["ham"]
    assert f'prepend_path("PATH", "{bin_dir}")' in lua.read_text()
    assert f'setenv("HAM_SITE_CONFIG", "{site}")' in lua.read_text()
    assert f'prepend-path PATH "{bin_dir}"' in tcl.read_text()
    assert f'setenv HAM_SITE_CONFIG "{site}"' in tcl.read_text()
    assert "JAVA_HOME" not in lua.read_text() + tcl.read_text()
    assert f"  required {plugin} root={settings['shared_root']}\n" in first.stdout

    # An admin's edits to the site file survive a rerun; the modulefiles stay valid.
    site.write_text(site.read_text().replace('partition = "compute"', 'partition = "batch"'))
    third = run(["bash", setup, prefix, "--no-spank"], env, tmp_path, timeout=120)
    assert third.returncode == 0 and "kept" in third.stdout, third.stdout + third.stderr
    assert 'partition = "batch"' in site.read_text()
    assert "ham_spank.so" not in third.stdout
    bad = run(["bash", setup, prefix, "--spank-off"], env, tmp_path)
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1, bad.stderr
    assert "unknown argument '--spank-off'" in bad.stderr


def test_main_job_script_exits_with_the_jobs_status(cluster, tmp_path):
    """README's main-job command: its output is larger than a pipe buffer, so the summary at the
    end must not turn the job's success into a SIGPIPE failure (it exited 141 once)."""
    r = subprocess.run(["bash", str(EXAMPLES / "main-job.sh")], capture_output=True, text=True,
                       env={**os.environ, **cluster, "HAM_DEMO_DIR": str(tmp_path / "demo")},
                       timeout=TIMEOUT)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-3000:]
    out = tmp_path / "demo" / "out"
    counts = collections.Counter()
    for part in out.glob("part-r-*"):
        for line in part.read_text().splitlines():
            word, n = line.split("\t")
            counts[word] += int(n)
    # Hadoop skips input files whose names start with _ or . (__init__.py.txt among them).
    inputs = "".join(p.read_text() for p in (tmp_path / "demo" / "in").iterdir()
                     if not p.name.startswith(("_", ".")))
    # wordcount splits as java.util.StringTokenizer does, on ASCII white space only.
    assert counts == collections.Counter(w for w in re.split(r"[ \t\n\r\f]+", inputs) if w)
    top = r.stdout.split("== the ten most frequent words\n", 1)[1].splitlines()
    assert len(top) == 10
    word, n = top[0].split("\t")
    assert int(n) == max(counts.values()) == counts[word]
