"""The drop-in Hadoop installation without a cluster: the bundle's bin scripts (one line for
each daemon-only subcommand, no Java started), HAM's front door to a site's scripts (a stand-in
site that prints what it was asked), the job's shims (hdfs:// refused, hostile paths), the
hdfs:// and /user/<name> checks, and the environment of a job and of `ham env`."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from ham import jobconf, nohdfs, shellenv
from ham.errors import UsageError
from ham.hadoop import SITE_FRONT_DOOR, Hadoop
from ham.jobdir import JobDir
from tests.conftest import DIST

# Every subcommand HAM refuses (libexec/ham-commands.sh), by the daemon it needs.
DAEMON_ONLY = {
    "hdfs": ["namenode", "datanode", "secondarynamenode", "journalnode", "zkfc", "balancer",
             "mover", "diskbalancer", "dfsrouter", "nfs3", "portmap", "httpfs", "sps",
             "dfsadmin", "haadmin", "fsck", "cacheadmin", "crypto", "ec", "storagepolicies",
             "snapshotDiff", "lsSnapshottableDir", "lsSnapshot", "fetchdt", "groups",
             "dfsrouteradmin", "debug", "oiv", "oiv_legacy", "oev", "getconf"],
    "yarn": ["resourcemanager", "nodemanager", "proxyserver", "timelineserver",
             "timelinereader", "router", "sharedcachemanager", "registrydns",
             "globalpolicygenerator", "applicationattempt", "container", "node", "queue",
             "top", "cluster", "rmadmin", "schedulerconf", "scmadmin", "routeradmin",
             "nodeattributes", "fs2cs", "daemonlog"],
    "mapred": ["historyserver", "hsadmin", "frameworkuploader", "minicluster", "queue",
               "archive-logs", "mradmin", "jobtracker", "tasktracker"],
    "hadoop": ["daemonlog", "registrydns"],
}
REFUSED = [(cmd, sub) for cmd, subs in DAEMON_ONLY.items() for sub in subs]


def run(argv, env=None, **kw) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(a) for a in argv], capture_output=True, text=True, timeout=60,
                          env=env, **kw)


@pytest.mark.parametrize("cmd,sub", REFUSED)
def test_daemon_only_subcommands_give_one_line(cmd, sub):
    r = run([DIST / "bin" / cmd, sub, "-x"], env={"PATH": "/usr/bin:/bin"})  # no java needed
    assert r.returncode == 1 and r.stdout == ""
    lines = r.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"ERROR: {cmd} {sub} "), r.stderr
    assert "HAM" in lines[0]


@pytest.mark.parametrize("option", ["--daemon", "--workers", "--hosts", "--hostnames"])
def test_daemon_options_give_one_line(option):
    r = run([DIST / "bin" / "hdfs", option, "start", "datanode"], env={"PATH": "/usr/bin:/bin"})
    assert r.returncode == 1 and len(r.stderr.splitlines()) == 1
    assert r.stderr.startswith(f"ERROR: {option}: HAM starts no Hadoop daemons")


def test_unknown_subcommand_and_usage():
    r = run([DIST / "bin" / "yarn", "frobnicate"])
    assert r.returncode == 1 and len(r.stderr.splitlines()) == 1
    assert "unknown command 'frobnicate'" in r.stderr
    r = run([DIST / "bin" / "mapred"])
    assert r.returncode == 1 and r.stdout.startswith("Usage: mapred [--config confdir]")


def test_hadoop_hands_old_subcommands_to_hdfs_and_mapred_as_apache_does():
    r = run([DIST / "bin" / "hadoop", "namenode"])
    assert r.returncode == 1
    assert r.stderr.splitlines()[:2] == [
        "WARNING: Use of this script to execute namenode is deprecated.",
        'WARNING: Attempting to execute replacement "hdfs namenode" instead.']
    assert r.stderr.splitlines()[-1].startswith("ERROR: hdfs namenode is an HDFS daemon")


def test_classpath_and_envvars_follow_the_layout(tmp_path):
    env = {"PATH": "/usr/bin:/bin", "HADOOP_CONF_DIR": str(tmp_path), "HADOOP_CLASSPATH": "/u.jar"}
    cp = run([DIST / "bin" / "hadoop", "classpath"], env=env).stdout.strip().split(":")
    share = DIST.resolve() / "share" / "hadoop"
    # The jars one by one (sorted, as class-data sharing needs one order), then the
    # directories, then HADOOP_CLASSPATH.
    jars = [p for p in cp if p.endswith(".jar")][:-1]
    assert cp[:len(jars)] == jars and cp[-1] == "/u.jar"
    assert cp[len(jars):-1] == [str(tmp_path), f"{share}/hdfs", f"{share}/yarn"]
    common_lib = [p for p in jars if p.startswith(f"{share}/common/lib/")]
    assert common_lib == sorted(common_lib) and jars[:len(common_lib)] == common_lib
    assert jars.index(common_lib[-1]) < min(i for i, p in enumerate(jars) if p.startswith(f"{share}/mapreduce/"))
    assert jars[-1] == str(DIST.resolve() / "ham-mapreduce.jar")
    assert not any("tools" in p for p in cp)  # as Apache's: the tools are not on it
    first = run([DIST / "bin" / "hadoop", "classpath"],
                env={**env, "HADOOP_USER_CLASSPATH_FIRST": "1"}).stdout.strip().split(":")
    assert first[0] == "/u.jar" and first[1:] == cp[:-1]
    envvars = run([DIST / "bin" / "hadoop", "envvars"], env=env).stdout
    assert f"HADOOP_TOOLS_HOME='{DIST.resolve()}'" in envvars
    assert "HADOOP_TOOLS_LIB_JARS_DIR='share/hadoop/tools/lib'" in envvars
    assert list((DIST / "share" / "hadoop" / "tools" / "lib").glob("hadoop-streaming-*.jar"))
    assert not (DIST / "lib").exists()


@pytest.fixture
def site(tmp_path) -> Path:
    """A stand-in site Hadoop whose bin scripts print what they were asked."""
    home = tmp_path / "site hadoop"
    (home / "bin").mkdir(parents=True)
    for cmd in ("hadoop", "mapred", "yarn", "hdfs"):
        script = home / "bin" / cmd
        script.write_text(f'#!/bin/sh\necho "SITE {cmd} $*"\necho "CP=$HADOOP_CLASSPATH"\n')
        script.chmod(0o755)
    return home


def front_door(site: Path, *args: str, env=None) -> subprocess.CompletedProcess[str]:
    return run([DIST / SITE_FRONT_DOOR, site, *args], env=env or {"PATH": "/usr/bin:/bin"})


def test_front_door_hands_the_rest_to_the_sites_scripts(site):
    r = front_door(site, "yarn", "--config", "/etc/x", "jar", "a b.jar", "$(id)")
    assert r.returncode == 0 and r.stdout.splitlines()[0] == "SITE yarn --config /etc/x jar a b.jar $(id)"
    assert front_door(site, "hdfs", "dfs", "-ls").stdout.startswith("SITE hdfs dfs -ls")


@pytest.mark.parametrize("args", [["hdfs", "namenode"], ["yarn", "--loglevel", "WARN", "node", "-list"],
                                  ["hdfs", "--daemon", "start", "datanode"]])
def test_front_door_refuses_what_needs_daemons(site, args):
    r = front_door(site, *args)
    assert r.returncode == 1 and r.stdout == "" and len(r.stderr.splitlines()) == 1
    assert r.stderr.startswith("ERROR: ")


def test_front_door_answers_yarn_application_with_hams_class(site):
    r = front_door(site, "yarn", "--loglevel", "WARN", "application", "-list",
                   env={"PATH": "/usr/bin:/bin", "HADOOP_CLASSPATH": "/u.jar"})
    out = r.stdout.splitlines()
    assert out[0] == "SITE hadoop --loglevel WARN io.github.ham.mapreduce.client.YarnApplications -list"
    assert out[1] == f"CP=/u.jar:{DIST.resolve() / 'ham-mapreduce.jar'}"


HOSTILE_HOME = "/opt/it's $(id) `id` ;&<x>"
# The settings core_site reads, for the default file system (file:///).
FILE_FS = {"filesystem": "file", "lustre_root": "", "file_stripes": ""}


def test_job_shims_refuse_hdfs_paths_and_pass_anything_else(tmp_path, site):
    jd = JobDir(tmp_path / "job dir")
    (jd.conf).mkdir(parents=True)
    jd.bin.mkdir()
    core = jobconf.core_site(FILE_FS, jd)
    assert core["fs.hdfs.impl"] == nohdfs.REFUSING_FS
    jobconf.write_conf(jd, core, {"a": "b"}, "INFO", Hadoop("site", site), DIST)
    shim = jd.bin / "yarn"
    assert run(["sh", "-n", shim]).returncode == 0
    for bad in ("hdfs:///user/x", "-Dmapreduce.input.fileinputformat.inputdir=hdfs://nn/x",
                "in,HDFS://nn/y"):
        r = run([shim, "jar", "a.jar", bad])
        assert r.returncode == 1 and r.stdout == "" and len(r.stderr.splitlines()) == 1
        assert r.stderr == f"ERROR: {bad}: {nohdfs.refusal('file:///')}\n"
    r = run([shim, "jar", "a b.jar", "$(id)", "hdfsx:/ok"])
    assert r.stdout.splitlines()[0] == "SITE yarn jar a b.jar $(id) hdfsx:/ok"


def test_shim_renders_hostile_homes(tmp_path):
    jd = JobDir(tmp_path / "job")
    jd.conf.mkdir(parents=True)
    jd.bin.mkdir()
    jobconf.write_conf(jd, jobconf.core_site(FILE_FS, jd), {}, "INFO",
                       Hadoop("bundled", Path(HOSTILE_HOME)), Path(HOSTILE_HOME))
    text = (jd.bin / "hadoop").read_text()
    assert run(["sh", "-n", jd.bin / "hadoop"]).returncode == 0
    r = run([jd.bin / "hadoop", "version"])
    assert f"{HOSTILE_HOME}/bin/hadoop" in r.stderr  # exec'd the path as one word
    assert "ham-hadoop-shim" in text


def test_refusal_names_the_scheme_to_use():
    assert "with file:// paths" in nohdfs.refusal("file:///")
    assert "with lustre:// or file:// paths" in nohdfs.refusal("lustre:///")
    with pytest.raises(UsageError, match=r"^hdfs://nn/in: HAM has no HDFS"):
        nohdfs.check(["hadoop", "jar", "x.jar", "hdfs://nn/in", "out"], "file:///")
    nohdfs.check(["hadoop", "jar", "x.jar", "in", "my-hdfs:/x", "--name=hdfsy"], "file:///")


def test_user_home_paths_under_file_scheme(tmp_path, monkeypatch):
    with pytest.raises(UsageError, match="/user/nobody-here does not exist: with fs.defaultFS file:///"):
        nohdfs.check_user_home(["hadoop", "jar", "x.jar", "/user/nobody-here/in", "out"], "file:///")
    nohdfs.check_user_home(["hadoop", "jar", "x.jar", "/user/nobody-here/in"], "lustre:///")
    nohdfs.check_user_home(["hadoop", "jar", "x.jar", "/users/x", "user/x"], "file:///")


def test_job_environment_is_a_hadoop_installations(tmp_path):
    jd = JobDir(tmp_path / "job")
    home = Path("/opt/hadoop-3.3.5")
    env = jobconf.job_environment({"PATH": "/usr/bin", "HADOOP_CLASSPATH": "/u.jar",
                                   "HADOOP_PREFIX": "/old", "HADOOP_HOME": "/old"},
                                  jd, Hadoop("site", home), "/b/ham-mapreduce.jar", "/jdk")
    assert env["HADOOP_HOME"] == env["HADOOP_MAPRED_HOME"] == env["HADOOP_PREFIX"] == str(home)
    assert "HADOOP_INSTALL" not in env  # only the names the user had
    assert env["HADOOP_CONF_DIR"] == str(jd.conf) and env["JAVA_HOME"] == "/jdk"
    assert env["HADOOP_CLASSPATH"] == "/b/ham-mapreduce.jar:/u.jar"
    assert env["PATH"] == f"{jd.bin}:{home}/bin:/usr/bin"


def test_ham_env_restores_what_it_changed():
    before = {"PATH": "/usr/bin:/bin", "HADOOP_PREFIX": "/old", "HADOOP_CLASSPATH": "/u.jar"}
    after = {**before, "HAM_JOB_DIR": "/j", "HADOOP_CONF_DIR": "/j/conf", "HADOOP_HOME": "/h",
             "HADOOP_PREFIX": "/h", "PATH": "/j/bin:/h/bin:/usr/bin:/bin",
             "HADOOP_CLASSPATH": "/ham.jar:/u.jar"}
    values = shellenv.exported(before, after)
    saved = json.loads(values[shellenv.RESTORE])
    assert saved == {"values": {"HAM_JOB_DIR": None, "HADOOP_CONF_DIR": None, "HADOOP_HOME": None,
                                "HADOOP_PREFIX": "/old"}, "path": ["/j/bin", "/h/bin"]}
    # The user puts something on PATH meanwhile; it stays.
    now = {**after, **values, "HAM_JAR": "/ham.jar", "PATH": "/mine:" + after["PATH"]}
    back = shellenv.restored(now)
    assert back["PATH"] == "/mine:/usr/bin:/bin" and back["HADOOP_PREFIX"] == "/old"
    assert back["HADOOP_HOME"] is None and back["HADOOP_CLASSPATH"] == "/u.jar"
    code = shellenv.applied(back, "sh")
    out = run(["sh", "-c", code + 'echo "${HADOOP_HOME-unset}|$HADOOP_PREFIX|$PATH"'],
              env={k: v for k, v in now.items()}).stdout.strip()
    assert out == "unset|/old|/mine:/usr/bin:/bin"


def test_a_site_hadoop_env_file_is_read_in_the_job(tmp_path, site):
    """Apache's scripts read hadoop-env.sh from HADOOP_CONF_DIR (the job's conf/ in a job)."""
    (site / "etc" / "hadoop").mkdir(parents=True)
    (site / "etc" / "hadoop" / "hadoop-env.sh").write_text(
        "export HADOOP_HEAPSIZE_MAX=2g\nHADOOP_CONF_DIR=/etc/elsewhere\n")
    hadoop = Hadoop("site", site)
    found = jobconf.site_env_file(hadoop, {})
    assert found == site / "etc" / "hadoop" / "hadoop-env.sh"
    assert jobconf.site_env_file(Hadoop("bundled", DIST), {}) is None
    jd = JobDir(tmp_path / "job")
    jd.conf.mkdir(parents=True)
    jd.bin.mkdir()
    jobconf.write_conf(jd, jobconf.core_site(FILE_FS, jd), {}, "INFO", hadoop, DIST, found)
    out = run(["bash", "-c", f'. "{jd.conf}/hadoop-env.sh"; echo "$HADOOP_HEAPSIZE_MAX $HADOOP_CONF_DIR"'])
    assert out.stdout.strip() == f"2g {jd.conf}"
