"""`ham history-server`: Hadoop's JobHistoryServer over your (or every user's) HAM jobs."""

from __future__ import annotations

import click

from ham import history, settings


@click.command("history-server", help="""Run Hadoop's JobHistoryServer (web UI and REST API)
over the finished HAM jobs under the shared root, until Ctrl-C. It lists jobs with their tasks,
attempts, counters, configuration and attempts' logs, as for YARN jobs:
http://HOST:PORT/jobhistory and http://HOST:PORT/ws/v1/history/mapreduce/jobs. Jobs that finish while it runs appear within
seconds. Its own files (configuration, the jobs it has taken in, its log) are in
<shared_root>/<user>/.history (--all-users: <shared_root>/.history).""")
# Not 0 (any free port): the server is then reached at the port asked for, which must be known.
@click.option("--port", type=click.IntRange(1, 65535), default=19888, show_default=True,
              help="Port of the web UI and REST API.")
@click.option("--bind", default="127.0.0.1", show_default=True,
              help="Address to listen on. Anyone who reaches it sees the jobs: keep it on "
                   "localhost or a login node.")
@click.option("--all-users", is_flag=True,
              help="Every user's jobs (a site's server; run it as a user who can read them).")
@click.option("--dir", "home", help="Where the server keeps its files.")
@click.option("--shared-root", help="Override setting shared_root.")
def command(port: int, bind: str, all_users: bool, home: str | None,
            shared_root: str | None) -> None:
    resolved = settings.load(flags={"shared_root": shared_root})
    server = history.plan(resolved, port, bind, all_users, home)

    def ready(s: history.Server) -> None:
        click.echo(f"JobHistoryServer: {s.url}/jobhistory  (REST: {s.url}/ws/v1/history)")
        whose = s.shared / s.user if s.user else f"every user under {s.shared}"
        click.echo(f"jobs of: {whose}; Ctrl-C stops it")

    raise SystemExit(history.serve(resolved, server, ready))
