"""Commands about the user's jobs from a login shell (`ham mapred job -list`, `ham yarn logs`):
when they get the login configuration, and what it holds; Hadoop job ids where Slurm ids go."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from ham import jobs, loginconf, render
from ham.jobdir import JobDir


def props(path: Path) -> dict[str, str]:
    return {p.findtext("name"): p.findtext("value") for p in ET.parse(path).getroot().iter("property")}


@pytest.mark.parametrize("command, args, wanted", [
    ("mapred", ["job", "-list"], True),
    ("mapred", ["--loglevel", "WARN", "job", "-status", "job_1_0001"], True),
    ("yarn", ["application", "-list"], True),
    ("yarn", ["logs", "-applicationId", "application_1_0001"], True),
    ("yarn", ["--debug", "app", "-list"], True),
    ("hadoop", ["fs", "-ls", "/"], False),
    ("mapred", ["classpath"], False),
    ("yarn", ["jar", "x.jar"], False),
])
def test_commands_about_jobs_get_it_outside_a_job(command, args, wanted):
    assert loginconf.needed(command, args, {}) is wanted


def test_a_ham_jobs_own_configuration_is_kept(tmp_path):
    (tmp_path / "mapred-site.xml").write_text(render.hadoop_xml({"mapreduce.framework.name": "ham"}))
    assert not loginconf.needed("mapred", ["job", "-list"], {"HADOOP_CONF_DIR": str(tmp_path)})
    # A site's YARN configuration is not HAM's: the job commands get the login configuration.
    (tmp_path / "mapred-site.xml").write_text(render.hadoop_xml({"mapreduce.framework.name": "yarn"}))
    assert loginconf.needed("mapred", ["job", "-list"], {"HADOOP_CONF_DIR": str(tmp_path)})
    (tmp_path / "mapred-site.xml").write_text("not xml")
    assert loginconf.needed("mapred", ["job", "-list"], {"HADOOP_CONF_DIR": str(tmp_path)})


def test_it_names_hams_framework_and_the_users_directory(tmp_path, monkeypatch):
    from ham import settings
    monkeypatch.setenv("HAM_SHARED_ROOT", str(tmp_path / "shared"))
    resolved = settings.load()
    bundle = tmp_path / "bundle"
    (bundle / "etc" / "hadoop").mkdir(parents=True)
    (bundle / "etc" / "hadoop" / "log4j.properties").write_text("log4j.rootLogger=WARN\n")
    env = {"XDG_CACHE_HOME": str(tmp_path / "cache")}
    out = loginconf.write(resolved, bundle, env)
    assert out == tmp_path / "cache" / "ham" / "login-conf"
    mapred = props(out / "mapred-site.xml")
    assert mapred["mapreduce.framework.name"] == "ham"
    # HAM's client looks for the user's sessions in ham.job.dir's parent.
    user_dir = Path(mapred["ham.job.dir"]).parent
    assert user_dir.parent == tmp_path / "shared" and not Path(mapred["ham.job.dir"]).exists()
    assert props(out / "core-site.xml")["fs.defaultFS"].startswith("file:")
    assert (out / "log4j.properties").is_file()
    assert not (tmp_path / "shared").exists() or not any((tmp_path / "shared").rglob("*.xml"))
    before = (out / "mapred-site.xml").stat().st_mtime_ns
    loginconf.write(resolved, bundle, env)
    assert (out / "mapred-site.xml").stat().st_mtime_ns == before, "unchanged: not rewritten"


@pytest.mark.parametrize("given, job", [("job_1764_0003", "job_1764_0003"),
                                        ("application_1764_0003", "job_1764_0003"),
                                        ("1234", None), ("job_x", None), ("job_1_2_3", None)])
def test_hadoop_job_ids(given, job):
    assert jobs.hadoop_job_id(given) == job


def test_a_session_answers_to_the_hadoop_jobs_it_ran(tmp_path, monkeypatch):
    monkeypatch.setenv("USER", "u")
    import getpass
    monkeypatch.setattr(getpass, "getuser", lambda: "u")
    for slurm_id, hadoop_job in (("41", "job_9_0001"), ("42", "job_9_0002")):
        (tmp_path / "u" / slurm_id / "jobs" / hadoop_job).mkdir(parents=True)
    found = [d.path.name for d in jobs.job_dirs(str(tmp_path), ["application_9_0002"])]
    assert found == ["42"]
    assert [d.path.name for d in jobs.job_dirs(str(tmp_path), ["job_9_0001", "42"])] == ["41", "42"]
    assert jobs.job_dirs(str(tmp_path), ["job_9_0003"]) == []
    assert isinstance(jobs.job_dirs(str(tmp_path))[0], JobDir)
