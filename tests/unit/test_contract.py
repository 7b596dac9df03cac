"""The contract between the launcher (Python), the Java runtime and the SPANK plugin (C): one
set of configuration keys and defaults, job-directory names and status-record fields. The Java
side prints its own (io.github.ham.mapreduce.Contract), the plugin its own (ham_contract);
each check fails when a name changes on one side only."""

from __future__ import annotations

import json
import re
import subprocess

import pytest

from ham import contract, jobs, report, session
from ham.settings import BY_KEY
from tests.conftest import DIST, HADOOP_CP, REPO


@pytest.fixture(scope="module")
def java() -> dict:
    # Contract is test code (mapreduce/src/test), not in the jar HAM ships.
    classes = REPO / "mapreduce" / "target" / "test-classes"
    out = subprocess.run(["java", "-cp", f"{classes}:{DIST / 'ham-mapreduce.jar'}:{HADOOP_CP}",
                          "io.github.ham.mapreduce.Contract"],
                         capture_output=True, text=True, check=True).stdout
    return json.loads(out)


@pytest.fixture(scope="module")
def c_plugin() -> dict:
    plugins = REPO / "slurm-plugins"
    subprocess.run(["make", "-s", "-C", str(plugins), "ham_contract"], check=True)
    return json.loads(subprocess.run([str(plugins / "ham_contract")], capture_output=True,
                                     text=True, check=True).stdout)


def python_constants(names: list[str]) -> dict[str, object]:
    return {n: getattr(contract, n) for n in names if hasattr(contract, n)}


def test_configuration_keys_the_launcher_renders_are_the_runtimes(java):
    rendered = ["JOB_DIR", "DRIVER_HOST", "DRIVER_BIND_HOST", "NETWORK", "RUNNER_JAVA",
                "RUNNER_CLASSPATH", "RUNNER_JAVA_OPTS", "RUNNERS_PER_NODE", "RUNNER_WARM_IDLE_MS",
                "RUNNER_LOCAL_DIR", "SRUN", "LUSTRE_ROOT",
                "LUSTRE_FILE_STRIPES", "LUSTRE_OUTPUT_STRIPE", "LUSTRE_MAP_OUTPUT_STRIPE"]
    assert python_constants(rendered) == {n: java["keys"][n] for n in rendered}
    assert contract.FRAMEWORK_NAME == java["values"]["FRAMEWORK_NAME"]
    # The lustre:// classes the launcher registers in core-site.xml exist under those names.
    assert python_constants(list(java["classes"])) == java["classes"]


def test_defaults_shared_with_the_runtime(java):
    for key, value in contract.DEFAULTS.items():
        assert java["defaults"][key] == value, key
    # The settings users see carry the same defaults.
    assert BY_KEY["runner_java_opts"].default == java["defaults"][contract.RUNNER_JAVA_OPTS]
    assert str(BY_KEY["runners_per_node"].default) == java["defaults"][contract.RUNNERS_PER_NODE]
    assert str(BY_KEY["runner_warm_idle_ms"].default) == \
        java["defaults"][contract.RUNNER_WARM_IDLE_MS]
    assert BY_KEY["map_output_stripe"].default == \
        java["defaults"][contract.LUSTRE_MAP_OUTPUT_STRIPE]
    assert BY_KEY["runner_local_dir"].default == java["defaults"][contract.RUNNER_LOCAL_DIR]


def test_client_jvm_property_the_launcher_sets(java):
    """Setting client_unjar = always passes the property the bundle's HamRunJar reads."""
    assert python_constants(list(java["client"])) == java["client"]
    assert session.CLIENT_UNJAR_OPTS["always"] == \
        f"-D{java['client']['CLIENT_UNJAR_PROPERTY']}=always"


def test_environment_variables(java):
    assert python_constants(list(java["env"])) == java["env"]


def test_job_directory_names(java, c_plugin):
    layout = java["layout"]
    names = ("JOBS", "LOGS", "INTERMEDIATE_DIR", "WORK", "STATUS", "HISTORY", "RESUMABLE",
             "HELD_OUTPUT", "RESUME_MANIFEST", "JOB_CONF", "APP_LOGS")
    assert python_constants(list(names)) == {n: layout[n] for n in names}
    # A session with a resumable job is kept whole by the launcher and by the SPANK epilog.
    assert contract.RESUMABLE == c_plugin["RESUMABLE"]
    # What is removed after a job: the runtime, the launcher and the SPANK epilog agree.
    assert list(contract.JOB_INTERMEDIATE) == layout["INTERMEDIATE"] \
        == c_plugin["JOB_INTERMEDIATE"]
    assert list(contract.SESSION_INTERMEDIATE) == c_plugin["SESSION_INTERMEDIATE"]
    assert contract.JOBS == c_plugin["JOBS"]


def test_warm_runner_registry(java):
    """`ham run`'s end stops the parked runners the runtime registers (launcher/ham/warm.py)."""
    warm = java["warm"]
    names = ("DIR", "PARKED", "PARKED_CLOSED", "SUFFIX", "STOP")
    assert {n: getattr(contract, "WARM_" + n) for n in names} == {n: warm[n] for n in names}
    assert contract.WARM_DIR.split("/")[0] in contract.SESSION_INTERMEDIATE


def test_runner_local_directories(java, c_plugin):
    """The runners' node-local directories are named alike where they are made (the runtime)
    and where a killed runner's are removed (the SPANK epilog)."""
    assert contract.RUNNER_LOCAL_PREFIX == java["workdirs"]["LOCAL_PREFIX"] \
        == c_plugin["LOCAL_PREFIX"]


def test_resume_entry_point(java):
    assert contract.RESUME_CLASS == java["resume"]["CLASS"]
    assert contract.RESUME_CHANGED == java["resume"]["CHANGED"]


def test_status_record_fields(java):
    status = java["status"]
    assert list(contract.STATUS_JOB_FIELDS) == status["JOB_FIELDS"]
    assert list(contract.STATUS_COUNT_FIELDS) == status["COUNT_FIELDS"]
    assert list(contract.STATUS_ATTEMPT_FIELDS) == status["ATTEMPT_FIELDS"]
    sample = java["sample_status"]
    assert sorted(sample) == sorted(contract.STATUS_JOB_FIELDS)
    assert all(sorted(a) == sorted(contract.STATUS_ATTEMPT_FIELDS) for a in sample["attempts"])


def test_launcher_reads_what_the_runtime_writes(java):
    """The readers behind `ham status`, `ham report` and `ham run`'s last line, on a record
    written by the runtime's own writer (2 maps: one failed once then succeeded, one half done)."""
    sample = java["sample_status"]
    summary = jobs.JobSummary(slurm_job_id="1", job_dir="/x", slurm_state="RUNNING",
                              hadoop_jobs=[sample])
    assert jobs.progress_text(summary) == \
        "RUNNING map 75% reduce 0% (1/2 maps, 0/1 reduces, 1 failed)"
    bars = report.bars(sample)
    assert [(b.node, b.state, b.start, b.end) for b in bars] == [
        ("node1", "FAILED", 1.0, 2.0), ("node2", "RUNNING", 1.0, 6.0),
        ("node3", "SUCCEEDED", 3.0, 6.0)]
    assert bars[0].attempt == "attempt_1700000000000_0007_m_000000_0"


def test_every_runtime_key_is_documented(java):
    """docs/architecture.md lists each key the runtime reads, with its default."""
    text = (REPO / "docs" / "architecture.md").read_text()
    rows = {m.group(1): m.group(0) for m in re.finditer(r"^\| `([a-z.]+)`.*$", text, re.M)}
    for name, key in java["keys"].items():
        assert key in rows, f"{key} ({name}) missing from docs/architecture.md"
        default = java["defaults"].get(key)
        if default is not None:
            assert f"`{default}`" in rows[key], f"{key}: default {default} not in {rows[key]}"


def test_job_keys_table_is_current():
    """docs/job-keys.md is what the runtime's classification prints (which fails on any key of
    mapred-default.xml, or that a deprecated name stands for, without a rule), deprecated
    names (Hadoop's own table) included."""
    table = subprocess.run(["java", "-cp", f"{DIST / 'ham-mapreduce.jar'}:{HADOOP_CP}",
                            "io.github.ham.mapreduce.client.JobKeys"],
                           capture_output=True, text=True, check=True).stdout
    doc = (REPO / "docs" / "job-keys.md").read_text()
    assert doc.split("<!-- keys:start -->\n")[1].split("<!-- keys:end -->")[0] == table
    assert table.count("\n") > 200
    # Hadoop's deprecated names, each with the key it stands for and that key's rule.
    assert "| `mapred.reduce.tasks` | `mapreduce.job.reduces` | honoured |" in table
    assert "| `mapred.job.queue.name` | `mapreduce.job.queuename` | ignored |" in table
