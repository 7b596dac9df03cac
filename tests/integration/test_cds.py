"""Class-data sharing for the task runners (setting runner_cds, ham/cds.py) on real jobs: the
runners start with the archive (with -Xshare:on a runner whose archive does not map fails to
start, so the job could not succeed), the jars come before the job's conf/ in their class path,
the output is the same; an archive that does not map (here damaged) never fails a job; with
runner_cds = "off" nothing of it. For the client JVM (client_cds): a real `hadoop jar` maps
Hadoop's and HAM's driver classes from its archive, and with client_cds = "off" from none."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

from tests.integration.conftest import run_ham
from tests.integration.test_hadoop_and_doctor import write_corpus

DEFAULT_OPTS = "-XX:+UseSerialGC -XX:TieredStopAtLevel=1 -XX:NewRatio=1"


def runner_conf(shared_root: Path) -> dict[str, str]:
    site = next(shared_root.glob("*/*/conf/mapred-site.xml"))
    return {p.findtext("name"): p.findtext("value") for p in ET.parse(site).iter("property")}


def wordcount(tmp_path: Path, shared_root: Path, cluster: dict[str, str], jars: dict[str, Path],
              out: str, **env: str) -> dict[str, str]:
    shared_root.mkdir()
    r = run_ham("run", "-N", "3", "--", "hadoop", "jar", str(jars["examples"]), "wordcount",
                str(tmp_path / "in"), str(tmp_path / out), cwd=tmp_path,
                env={**cluster, "HAM_SHARED_ROOT": str(shared_root), **env})
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    return runner_conf(shared_root)


def client_classes(tmp_path: Path, cluster: dict[str, str], jars: dict[str, Path], name: str,
                   **env: str) -> dict[str, str]:
    """The classes the client JVM of a wordcount loaded, each with where from (-Xlog:class+load;
    with -Xshare:on the JVM does not start unless the archives it is given map)."""
    log = tmp_path / f"{name}.classes"
    shared_root = tmp_path / name
    shared_root.mkdir()
    r = run_ham("run", "-N", "1", "--", "hadoop", "jar", str(jars["examples"]), "wordcount",
                str(tmp_path / "in"), str(tmp_path / f"out-{name}"), cwd=tmp_path,
                env={**cluster, "HAM_SHARED_ROOT": str(shared_root), **env,
                     "HADOOP_CLIENT_OPTS": f"-Xshare:on -Xlog:class+load=info:file={log}"})
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    loaded = {}
    for line in log.read_text().splitlines():
        name_, _, source = line.split("] ", 1)[-1].partition(" source: ")
        loaded[name_] = source
    return loaded


def test_client_shares_classes_from_its_archive(cluster, tmp_path, hadoop_jars):
    write_corpus(tmp_path / "in")
    on = client_classes(tmp_path, cluster, hadoop_jars, "on")
    shared = [c for c, source in on.items() if source == "shared objects file"]
    # Hadoop's client and job submission, and HAM's driver, from the archive (the JDK's default
    # archive holds none of them).
    assert "org.apache.hadoop.mapreduce.JobSubmitter" in shared
    assert sum(c.startswith("io.github.ham.mapreduce.driver.") for c in shared) > 20, shared
    assert len(shared) > 3000 and len(shared) > 10 * (len(on) - len(shared)), len(shared)
    # The job's own classes are not in it: they come from its jar.
    assert "shared objects file" not in on["org.apache.hadoop.examples.WordCount"]

    off = client_classes(tmp_path, cluster, hadoop_jars, "off", HAM_CLIENT_CDS="off")
    assert not [c for c, source in off.items() if c.startswith(("org.apache.hadoop.", "io.github"))
                and source == "shared objects file"]
    part = "part-r-00000"
    assert (tmp_path / "out-on" / part).read_bytes() == (tmp_path / "out-off" / part).read_bytes()


def test_runners_share_classes_from_the_archive(cluster, tmp_path, hadoop_jars):
    write_corpus(tmp_path / "in")
    on = tmp_path / "on"
    conf = wordcount(tmp_path, on, cluster, hadoop_jars, "out-on",
                     HAM_RUNNER_JAVA_OPTS=f"{DEFAULT_OPTS} -Xshare:on")
    opts = conf["ham.runner.java.opts"]
    archive = Path(opts.split("-XX:SharedArchiveFile=")[1].split()[0])
    assert archive.is_file() and archive.name.startswith("runner-"), opts
    classpath = conf["ham.runner.classpath"].split(":")
    jars = [i for i, e in enumerate(classpath) if e.endswith(".jar")]
    job_conf = classpath.index(str(next(on.glob("*/*/conf"))))
    assert jars[0] == 0 and job_conf > jars[-1], classpath

    # Damaged (as another Java or rebuilt jars would leave it unmappable): runners start
    # without it, the job runs.
    good = archive.read_bytes()
    try:
        archive.write_bytes(good[:100_000])
        wordcount(tmp_path, tmp_path / "damaged", cluster, hadoop_jars, "out-damaged")
    finally:
        archive.write_bytes(good)

    off = tmp_path / "off"
    conf = wordcount(tmp_path, off, cluster, hadoop_jars, "out-off", HAM_RUNNER_CDS="off")
    assert "SharedArchiveFile" not in conf["ham.runner.java.opts"]
    assert conf["ham.runner.classpath"].split(":")[0].endswith("/conf")
    assert not list(off.glob("*/.cds"))
    part = "part-r-00000"
    for out in ("out-on", "out-damaged"):
        assert (tmp_path / out / part).read_bytes() == (tmp_path / "out-off" / part).read_bytes()
