"""Documents generated from the settings schema, so they cannot drift from it: the commented
site file (`ham config template`), the Markdown reference in docs/admin.md (`ham config
reference`) and the modulefiles (`ham admin modulefile`)."""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

from ham import __version__, render
from ham.settings import SCHEMA


def _toml(value: object) -> str:
    return json.dumps(value)  # JSON strings and integers are valid TOML


def site_template() -> str:
    lines = ["# HAM site settings (TOML, flat keys). Install as /etc/ham/ham.toml or point",
             "# $HAM_SITE_CONFIG at it. Users override these in ~/.config/ham/ham.toml,",
             "# with HAM_<KEY> environment variables and with command-line flags.", ""]
    for s in SCHEMA:
        lines += ["# " + line for line in textwrap.wrap(s.help, 92)]
        lines += [f"# {s.key} = {_toml(s.default)}", ""]
    return "\n".join(lines)


def reference_table() -> str:
    rows = ["| key | default | meaning |", "|---|---|---|"]
    for s in SCHEMA:
        shown = _toml(s.default) if isinstance(s.default, bool) else s.default
        default = f"`{shown}`" if s.default not in ("",) else ""
        rows.append(f"| `{s.key}` | {default} | {s.help} |")
    return "\n".join(rows) + "\n"


def module_bin_dir() -> Path:
    """The directory `module load ham` puts on PATH: <prefix>/share/ham/bin, which `pip install`
    fills with `ham` alone (launcher/module-bin/ham, running <prefix>/bin/ham), so that the
    module gives users none of the other programs of HAM's installation, its python3 and pip."""
    return Path(sys.prefix) / "share" / "ham" / "bin"


def modulefile(fmt: str, bin_dir: Path, site_config: Path) -> str:
    """A modulefile that puts bin_dir on PATH and sets HAM_SITE_CONFIG, and nothing else."""
    return render.render(f"modulefile.{fmt}.j2", version=__version__, bin_dir=str(bin_dir),
                         site_config=str(site_config))
