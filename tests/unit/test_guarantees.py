"""docs/guarantees.md: every row of the table names the tests that prove it, and every test it
names exists (a renamed or deleted test would otherwise leave a promise proved by nothing)."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PAGE = REPO / "docs" / "guarantees.md"
# `test_x.py`, `tests/unit/test_x.py`, `test_x.py::test_y` (with [params] or ::Class::test too)
PYTHON = re.compile(r"`(?:tests/(unit|integration)/)?(test_\w+\.py)((?:::\w+)*)")
JAVA = re.compile(r"\b(\w+Test)\.java\b")


def rows() -> list[str]:
    return [line for line in PAGE.read_text().splitlines()
            if line.startswith("| ") and not line.startswith(("| promise", "| ---"))]


def python_tests(name: str, where: str | None) -> list[Path]:
    dirs = [where] if where else ["unit", "integration"]
    return [p for d in dirs if (p := REPO / "tests" / d / name).exists()]


def test_every_row_names_a_test():
    assert len(rows()) >= 40
    for row in rows():
        proof = row.rstrip(" |").rsplit(" | ", 1)[-1]
        assert PYTHON.search(proof) or JAVA.search(proof), row[:200]


def test_every_named_test_exists():
    text = PAGE.read_text()
    named = PYTHON.findall(text)
    assert len(named) >= 40
    for where, name, functions in named:
        files = python_tests(name, where or None)
        assert files, f"{name} named in guarantees.md does not exist"
        for function in filter(None, functions.split("::")):
            assert any(re.search(rf"^\s*(?:def|class) {function}\b", f.read_text(), re.M)
                       for f in files), f"{name}::{function} named in guarantees.md does not exist"
    java = set(JAVA.findall(text))
    assert java
    for cls in java:
        assert list((REPO / "mapreduce" / "src" / "test").rglob(f"{cls}.java")), cls
