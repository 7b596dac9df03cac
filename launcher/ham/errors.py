"""Typed errors. Library code raises these with a message that says how to fix the problem;
the CLI turns them into a one-line message and an exit code in one place (cli/main.py)."""

from __future__ import annotations

# Exit codes, documented in `ham --help`.
EXIT_OK = 0
EXIT_FAILED = 1  # the job or a check failed
EXIT_USAGE = 2  # bad command line, settings or input
EXIT_SLURM = 3  # Slurm refused or is unreachable
EXIT_INTERRUPTED = 130


class HamError(Exception):
    """Base class: `str(err)` is the one-line message shown to the user."""

    exit_code = EXIT_FAILED


class UsageError(HamError):
    """Bad input: a flag, a path, a command after `--`."""

    exit_code = EXIT_USAGE


class SettingsError(UsageError):
    """An unknown key or a bad value in a settings file, the environment or a flag."""


class EnvironmentProblem(HamError):
    """Something the machine lacks: Java, Hadoop, the shared root."""

    exit_code = EXIT_USAGE


class CommandError(HamError):
    """An external command failed; carries everything needed to diagnose it."""

    exit_code = EXIT_FAILED

    def __init__(self, argv: list[str], returncode: int, stdout: str, stderr: str, hint: str = ""):
        self.argv = argv
        self.returncode = returncode
        self.stdout = stdout
        self.stderr = stderr
        # The message without the hint, for callers that know the hint does not apply.
        self.detail = (f"`{' '.join(argv[:3])}{' ...' if len(argv) > 3 else ''}` exited "
                       f"{returncode}: {_telling_line(stderr or stdout)}")
        super().__init__(f"{self.detail}{'; ' + hint if hint else ''}")


def _telling_line(output: str) -> str:
    """The line of a command's output that says what went wrong: its first error line, else
    its last line, never a usage hint (`Try "sbatch --help" ...` follows the real message)."""
    lines = [x for x in (y.strip() for y in output.splitlines())
             if x and not x.startswith(("Try '", 'Try "'))]
    errors = [x for x in lines if "error" in x.lower()]
    return (errors or lines or ["no output"])[0 if errors else -1]


class SlurmError(HamError):
    """Slurm refused a request or printed something we could not parse."""

    exit_code = EXIT_SLURM
