"""`ham`: the entry point, logging set-up and the one place errors become exit codes."""

from __future__ import annotations

import logging
import os
import sys

import click

from ham import __version__
from ham.errors import EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE, HamError

HELP = """Run Hadoop MapReduce jobs on Slurm allocations with a shared file system, no YARN.

\b
  ham submit -N 4 -t 1:00:00 -- hadoop jar app.jar ARGS   batch job (sbatch)
  ham run -- hadoop jar app.jar ARGS                       in (or as) an allocation
  eval "$(ham env)"                                        in an interactive salloc shell
  ham doctor                                               is this machine ready?

Settings come from, later winning: defaults, the site file ($HAM_SITE_CONFIG or
/etc/ham/ham.toml), the user file (~/.config/ham/ham.toml), HAM_* environment
variables and command-line flags. `ham config show` lists them.

\b
Exit codes:
  0    success
  1    the job or a check failed (`run`/`submit --wait` return the job's own code)
  2    bad command line, settings or input (nothing was submitted)
  3    Slurm refused the request or did not answer
  130  interrupted
"""

LOG_LEVELS = {"debug": logging.DEBUG, "info": logging.INFO, "warning": logging.WARNING,
              "error": logging.ERROR, "critical": logging.CRITICAL}


@click.group(help=HELP, context_settings={"help_option_names": ["-h", "--help"],
                                          "max_content_width": 100})
@click.version_option(__version__, "-V", "--version", prog_name="ham")
@click.option("-v", "--verbose", count=True, help="More log output (-vv for debug).")
def cli(verbose: int) -> None:
    level = {0: logging.WARNING, 1: logging.INFO}.get(verbose, logging.DEBUG)
    wanted = os.environ.get("HAM_LOG_LEVEL", "")
    # Looked up in a fixed table, not getattr(logging, ...): that also finds functions.
    level = LOG_LEVELS.get(wanted.lower(), level)
    logging.basicConfig(level=level, format="ham: %(levelname)s: %(message)s", stream=sys.stderr)
    if wanted and wanted.lower() not in LOG_LEVELS:
        # A typo in a log level must not stop the command, nor pass unnoticed.
        logging.getLogger(__name__).warning("HAM_LOG_LEVEL=%s is ignored: use one of %s", wanted,
                                            ", ".join(LOG_LEVELS))


def _register() -> None:
    from ham.cli import (admin_cmd, config_cmd, doctor_cmd, env_cmd, hadoop_cmd, history_cmd,
                         run_cmd, status_cmd, submit_cmd)

    for module in (admin_cmd, config_cmd, doctor_cmd, env_cmd, history_cmd, run_cmd, submit_cmd):
        cli.add_command(module.command)
    for cmd in (*hadoop_cmd.COMMANDS_BY_NAME.values(), hadoop_cmd.examples_jar):
        cli.add_command(cmd)
    for cmd in (status_cmd.status, status_cmd.logs, status_cmd.cancel, status_cmd.cleanup,
                status_cmd.report_cmd):
        cli.add_command(cmd)


_register()


def main(argv: list[str] | None = None) -> None:
    """Run the CLI; every HamError ends as `ham: error: <one line>` and its exit code."""
    try:
        rv = cli.main(args=argv, prog_name="ham", standalone_mode=False)
    except HamError as exc:
        click.echo(f"ham: error: {exc}", err=True)
        sys.exit(exc.exit_code)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except click.ClickException as exc:
        # `ham`, `ham config` with no subcommand: click 8.2+ raises this usage error, whose
        # message is the help (click 8.1 printed it and exited 0). Help, as for --help.
        if isinstance(exc, getattr(click.exceptions, "NoArgsIsHelpError", ())):
            click.echo(exc.format_message())
            sys.exit(EXIT_OK)
        # One line, like every other HAM error; `--help` has the details.
        hint = f" (see `{exc.ctx.command_path} --help`)" if getattr(exc, "ctx", None) else ""
        click.echo(f"ham: error: {exc.format_message()}{hint}", err=True)
        sys.exit(EXIT_USAGE if exc.exit_code == 2 else exc.exit_code)
    except (click.exceptions.Abort, KeyboardInterrupt):
        click.echo("ham: interrupted", err=True)
        sys.exit(EXIT_INTERRUPTED)
    sys.exit(rv if isinstance(rv, int) else 0)
