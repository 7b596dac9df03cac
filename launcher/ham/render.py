"""Pure renderers: plans in, text out (so --dry-run prints exactly what would run)."""

from __future__ import annotations

import re
import shlex
from importlib.resources import files
from typing import Any
from xml.sax.saxutils import escape

import jinja2

from ham import arrays
from ham.errors import UsageError

_env = jinja2.Environment(
    loader=jinja2.FileSystemLoader(str(files("ham.templates"))),
    undefined=jinja2.StrictUndefined,
    keep_trailing_newline=True,
    autoescape=False,
)
# Every value that lands in XML goes through |xml, in a shell line through |shquote, in a
# .properties file through |propquote.
# \r as a character reference: a parser turns a literal \r (and \r\n) into \n.
_env.filters["xml"] = lambda v: escape(str(v), {'"': "&quot;", "'": "&apos;", "\r": "&#13;"})
# What XML 1.0 cannot carry at all, not even as a character reference (its Char production):
# control characters other than tab, newline and carriage return, lone surrogates, U+FFFE/FFFF.
NOT_XML = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
_env.filters["shquote"] = lambda v: shlex.quote(str(v))


def luaquote(value: object) -> str:
    """A Lua double-quoted string literal that evaluates to exactly value."""
    out = str(value).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{out}"'


def tclquote(value: object) -> str:
    """A Tcl double-quoted word that evaluates to exactly value (no $var, no [command])."""
    out = str(value)
    for ch in "\\$[]\"":
        out = out.replace(ch, "\\" + ch)
    return '"' + out.replace("\n", "\\n") + '"'


def propquote(value: object) -> str:
    """A value for a Java .properties line (log4j.properties) that loads as exactly value."""
    out = str(value).replace("\\", "\\\\")
    for raw, escaped in (("\n", "\\n"), ("\r", "\\r"), ("\t", "\\t"), ("\f", "\\f")):
        out = out.replace(raw, escaped)
    return "\\" + out if out[:1] == " " else out


_env.filters["luaquote"] = luaquote
_env.filters["propquote"] = propquote
_env.filters["tclquote"] = tclquote
_env.filters["shjoin"] = lambda v: shlex.join([str(x) for x in v])
_env.filters["shjoin_array"] = lambda v: arrays.shell_join([str(x) for x in v])


def render(template: str, **context: Any) -> str:
    return _env.get_template(template).render(**context)


def hadoop_xml(properties: dict[str, Any]) -> str:
    """A Hadoop *-site.xml with the given properties, in order; every name and value parses back
    exactly, and one XML cannot hold is refused (UsageError) rather than written broken."""
    for name, value in properties.items():
        for what, text in (("name", str(name)), ("value", str(value))):
            if bad := NOT_XML.search(text):
                raise UsageError(
                    f"the {what} of Hadoop property {str(name)!r} has character "
                    f"U+{ord(bad.group()):04X} at position {bad.start()}, which a Hadoop XML "
                    f"configuration cannot hold: remove it (or encode the value, e.g. in base64)")
    return render("site.xml.j2", properties=properties)
