"""Which finished jobs `ham history-server` hands to the JobHistoryServer, and how it remembers
what it already has."""

from __future__ import annotations

import getpass
from xml.etree import ElementTree
from pathlib import Path

from ham import history


def finished_job(shared: Path, user: str, session: str, job: str) -> Path:
    done = shared / user / session / "jobs" / job / "history" / "done"
    done.mkdir(parents=True)
    for name in (f"{job}.summary", f"{job}_conf.xml", f"{job}-1-root-x-1-1-SUCCEEDED.jhist"):
        (done / name).write_text(name)
    return done


def server(shared: Path, user: str | None, home: Path) -> history.Server:
    s = history.Server(home, shared, user, "127.0.0.1", 19888)
    history.write_conf(s)
    return s


def test_a_job_is_published_once_with_the_jhist_last(tmp_path: Path) -> None:
    done = finished_job(tmp_path, "alice", "12", "job_1_0001")
    s = server(tmp_path, "alice", tmp_path / "alice" / ".history")
    assert list(history.finished_jobs(s)) == [done]
    history.publish(s, done)
    intermediate = sorted(p.name for p in (s.home / "intermediate" / "ham").iterdir())
    assert intermediate == sorted(p.name for p in done.iterdir())  # no _tmp left
    assert list(history.finished_jobs(s)) == []
    assert sorted(p.name for p in done.iterdir()) == intermediate  # the job's copy untouched


def test_a_users_server_and_the_sites_each_take_every_job(tmp_path: Path) -> None:
    done = finished_job(tmp_path, "alice", "12", "job_1_0001")
    mine = server(tmp_path, "alice", tmp_path / "alice" / ".history")
    site = server(tmp_path, None, tmp_path / ".history")
    history.publish(mine, done)
    assert list(history.finished_jobs(site)) == [done]


def test_the_sites_server_sees_a_user_who_appears_later(tmp_path: Path) -> None:
    site = server(tmp_path, None, tmp_path / ".history")
    assert list(history.finished_jobs(site)) == []
    done = finished_job(tmp_path, "bob", "7", "job_2_0001")
    assert list(history.finished_jobs(site)) == [done]
    assert ".history" not in [r.name for r in site.roots]


def test_plan_defaults_to_the_users_jobs(tmp_path: Path) -> None:
    s = history.plan({"shared_root": str(tmp_path)}, 19888, "127.0.0.1", False, None)
    assert s.roots == [tmp_path / getpass.getuser()]
    assert s.home == tmp_path / getpass.getuser() / ".history"
    site = history.plan({"shared_root": str(tmp_path)}, 19888, "127.0.0.1", True, None)
    assert site.home == tmp_path / ".history"


def test_a_jobs_aggregated_logs_are_linked_where_the_server_reads_them(tmp_path: Path) -> None:
    """The driver's application log directory (under the session's app-logs/), at the same
    place under the server's app-logs/ (its remote-app-log-dir); another job's is not."""
    done = finished_job(tmp_path, "alice", "12", "job_1_0001")
    app_logs = tmp_path / "alice" / "12" / "app-logs"
    mine = app_logs / "alice" / "bucket-logs-tfile" / "0001" / "application_1_0001"
    other = app_logs / "alice" / "bucket-logs-tfile" / "0002" / "application_1_0002"
    for d in (mine, other):
        d.mkdir(parents=True)
    (mine / "node1_-1").write_text("logs")
    s = server(tmp_path, None, tmp_path / ".history")
    history.publish(s, done)
    linked = s.home / "app-logs" / "alice" / "bucket-logs-tfile" / "0001" / "application_1_0001"
    assert linked.is_symlink() and (linked / "node1_-1").read_text() == "logs"
    assert not (s.home / "app-logs" / "alice" / "bucket-logs-tfile" / "0002").exists()
    yarn_site = {p.findtext("name"): p.findtext("value") for p in
                 ElementTree.parse(s.home / "conf" / "yarn-site.xml").getroot()}
    assert yarn_site == {"yarn.log-aggregation-enable": "true",
                         "yarn.nodemanager.remote-app-log-dir": (s.home / "app-logs").as_uri()}


def test_the_servers_log_uses_an_appender_on_its_class_path(tmp_path: Path) -> None:
    """The history server's JVM has no HAM jar: its server.log must not name HAM's appender
    (log4j would drop the appender and every line with it, on a stderr nobody reads)."""
    s = server(tmp_path, "alice", tmp_path / "alice" / ".history")
    props = (s.home / "conf" / "log4j.properties").read_text()
    assert "log4j.appender.driver=org.apache.log4j.FileAppender\n" in props
    assert "io.github.ham" not in props
