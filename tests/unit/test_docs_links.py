"""Every relative link in the documentation resolves: the file or directory exists, and an
anchor (`page.md#heading`, `#heading`) names a heading of that page as GitHub slugs it. No
network: links with a scheme (https:, mailto:) are not followed."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PAGES = sorted({REPO / "README.md", REPO / "bench" / "README.md", *REPO.glob("docs/*.md"),
                *REPO.glob("examples/**/*.md")})

FENCE = re.compile(r"^(```|~~~).*?^\1[ \t]*$", re.M | re.S)
CODE_SPAN = re.compile(r"(`+)(?!`).*?(?<!`)\1(?!`)", re.S)
LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]*)>?(?:\s+\"[^\"]*\")?\s*\)")
HEADING = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*?)[ \t]*#*[ \t]*$", re.M)
HTML_ANCHOR = re.compile(r"<a\s+(?:name|id)=\"([^\"]+)\"", re.I)


def _prose(text: str) -> str:
    """The text without fenced code blocks (where links and headings are not links or
    headings)."""
    return FENCE.sub("", text)


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: the rendered text (no code marks, link targets or
    emphasis), lower case, without punctuation but `-` and `_`, spaces as `-`."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)
    text = text.replace("`", "")
    text = re.sub(r"<[^>]+>", "", text)
    text = re.sub(r"[*~]", "", text)
    text = text.strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(page: Path) -> set[str]:
    text = _prose(page.read_text())
    seen: dict[str, int] = {}
    out = set(HTML_ANCHOR.findall(text))
    for _, heading in HEADING.findall(text):
        base = slug(heading)
        n = seen.get(base, 0)
        seen[base] = n + 1
        out.add(base if n == 0 else f"{base}-{n}")
    return out


def links(page: Path) -> list[str]:
    text = CODE_SPAN.sub("", _prose(page.read_text()))
    return [m.group(1) for m in LINK.finditer(text)]


def test_slugs_as_github_makes_them():
    assert slug("Native: `docker/cluster.sh`") == "native-dockerclustersh"
    assert slug("Lustre: `lustre://` and stripe layouts") == "lustre-lustre-and-stripe-layouts"
    assert slug("The `hadoop` command outside a job") == "the-hadoop-command-outside-a-job"
    assert slug("Interactive users (salloc)") == "interactive-users-salloc"
    assert slug("Switching from Intel's Hadoop Adapter for Lustre (HAL)") == \
        "switching-from-intels-hadoop-adapter-for-lustre-hal"


def test_the_pages_are_there():
    names = {p.relative_to(REPO).as_posix() for p in PAGES}
    assert {"README.md", "bench/README.md", "docs/user-guide.md", "docs/admin.md",
            "docs/from-yarn.md", "docs/guarantees.md", "docs/development.md"} <= names


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(REPO).as_posix())
def test_relative_links_and_anchors_resolve(page):
    broken = []
    for target in links(page):
        if not target or re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I):
            continue  # a URL (https:, mailto:): not checked here
        path, _, anchor = target.partition("#")
        dest = (page.parent / path).resolve() if path else page
        if not dest.exists():
            broken.append(f"{target}: no such file")
        elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
            broken.append(f"{target}: no heading with anchor #{anchor} in "
                          f"{dest.relative_to(REPO).as_posix()}")
    assert not broken, f"{page.relative_to(REPO)}: " + "; ".join(broken)
