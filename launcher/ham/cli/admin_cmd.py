"""`ham admin`: site integration for administrators."""

from __future__ import annotations

import os

import click

from ham import settings, sitedoc


@click.group("admin", help="Site integration: modulefiles (and see `ham config template`).")
def command() -> None:
    pass


@command.command("modulefile", help="""Print a modulefile for this HAM installation: it puts
`ham` on PATH, sets HAM_SITE_CONFIG, and JAVA_HOME / HADOOP_HOME from the site settings.

\b
  ham admin modulefile --format lua > /etc/lmod/modulefiles/ham/0.1.0.lua
  ham admin modulefile --format tcl > /etc/environment-modules/modulefiles/ham/0.1.0""")
@click.option("--format", "fmt", type=click.Choice(["lua", "tcl"]), default="lua",
              show_default=True, help="Lmod (lua) or Environment Modules (tcl).")
@click.option("--site-config", type=click.Path(dir_okay=False),
              help="Site settings file the module points at (default: $HAM_SITE_CONFIG or "
                   "/etc/ham/ham.toml).")
def modulefile(fmt: str, site_config: str | None) -> None:
    env = dict(os.environ)
    if site_config:
        env["HAM_SITE_CONFIG"] = os.path.abspath(site_config)
    resolved = settings.load(env)
    click.echo(sitedoc.modulefile(fmt, resolved, settings.site_file(env)), nl=False)
