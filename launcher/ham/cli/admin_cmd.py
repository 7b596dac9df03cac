"""`ham admin`: site integration for administrators."""

from __future__ import annotations

import os
from pathlib import Path

import click

from ham import settings, sitedoc
from ham.errors import EnvironmentProblem, UsageError


@click.group("admin", help="Site integration: modulefiles (and see `ham config template`).")
def command() -> None:
    pass


@command.command("modulefile", help="""Print a modulefile for this HAM installation. It puts
on PATH a directory that holds only `ham` (<prefix>/share/ham/bin, made by `pip install`), so
users keep their own python3 and pip, and sets HAM_SITE_CONFIG to the site file; nothing else.
Settings belong in the site file, which HAM reads at every command: none of your own
environment or user file goes into the module. The site file must exist and be valid.

\b
  ham admin modulefile --format lua > /etc/lmod/modulefiles/ham/0.1.0.lua
  ham admin modulefile --format tcl > /etc/environment-modules/modulefiles/ham/0.1.0""")
@click.option("--format", "fmt", type=click.Choice(["lua", "tcl"]), default="lua",
              show_default=True, help="Lmod (lua) or Environment Modules (tcl).")
@click.option("--site-config", type=click.Path(dir_okay=False),
              default=str(settings.SITE_FILE), show_default=True,
              help="Site settings file the module points at.")
def modulefile(fmt: str, site_config: str) -> None:
    site = Path(os.path.abspath(site_config))
    if not site.is_file():
        raise UsageError(f"site file {site} does not exist: write it first (`ham config "
                         f"template > {site}`, then set shared_root) or name it with "
                         f"--site-config")
    # Validated alone: not with the admin's own user file or HAM_* variables.
    settings.load({"HAM_SITE_CONFIG": str(site), "HAM_USER_CONFIG": os.devnull})
    bin_dir = sitedoc.module_bin_dir()
    if not os.access(bin_dir / "ham", os.X_OK):
        raise EnvironmentProblem(f"{bin_dir / 'ham'} is missing: HAM installed with `pip "
                                 f"install -e` has none; install it with `pip install` "
                                 f"(docs/admin.md, Install)")
    click.echo(sitedoc.modulefile(fmt, bin_dir, site), nl=False)
