"""`ham config show`: every effective setting and where it came from."""

from __future__ import annotations

import json

import click

from ham import settings as settings_mod
from ham import sitedoc


@click.group("config", help="Inspect HAM's settings.")
def command() -> None:
    pass


@command.command("show", help="Print every effective setting, its value and where it came from "
                              "(default, site file, user file, environment, command line).")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def show(as_json: bool) -> None:
    resolved = settings_mod.load()
    if as_json:
        data = {k: {"value": resolved[k], "source": resolved.source(k)} for k in resolved}
        click.echo(json.dumps(data, indent=2))
        return
    width = max(len(k) for k in resolved)
    for key in resolved:
        value = resolved[key]
        click.echo(f"{key:<{width}}  {json.dumps(value):<40}  {resolved.source(key)}")


@command.command("template", help="Print a site settings file documenting every setting "
                                  "(all commented out, with defaults).")
def template() -> None:
    click.echo(sitedoc.site_template(), nl=False)


@command.command("reference", help="Print the settings reference as a Markdown table "
                                   "(the one in docs/admin.md).")
def reference() -> None:
    click.echo(sitedoc.reference_table(), nl=False)
