"""Documents generated from the settings schema, so they cannot drift from it: the commented
site file (`ham config template`), the Markdown reference in docs/admin.md (`ham config
reference`) and the modulefiles (`ham admin modulefile`)."""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

from ham import __version__, render
from ham.settings import SCHEMA, Settings


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
        default = f"`{s.default}`" if s.default not in ("",) else ""
        rows.append(f"| `{s.key}` | {default} | {s.help} |")
    return "\n".join(rows) + "\n"


def modulefile(fmt: str, settings: Settings, site_config: Path) -> str:
    return render.render(f"modulefile.{fmt}.j2", version=__version__,
                         bin_dir=str(Path(sys.executable).parent), site_config=str(site_config),
                         java_home=settings["java_home"], hadoop_home=settings["hadoop_home"])
