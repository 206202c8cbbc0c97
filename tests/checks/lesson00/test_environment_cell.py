"""Lesson 00's environment cell: it names every package the lessons import, asks for the versions
pyproject.toml pins, and stops with an error naming a package that is not installed."""

from __future__ import annotations

import importlib.metadata
import re
import sys
from pathlib import Path

import pytest
from packaging.specifiers import SpecifierSet
from solution_cells import cell_sources, run_source

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[3]
# The packages the lessons import (lesson 06's calculator is asteval, lesson 08 is mcp).
IMPORTED_BY_LESSONS = ("openai", "anthropic", "mcp", "pydantic", "jsonschema", "asteval")
INSTALLED_VERSION = importlib.metadata.version


def run_environment_cell(version=INSTALLED_VERSION) -> dict:
    """The cell's names, run with ``version`` standing in for ``importlib.metadata.version``."""
    namespace: dict = {}
    importlib.metadata.version = version
    try:
        run_source(cell_sources("00_welcome")["w00-env"], "00_welcome:w00-env", namespace)
    finally:
        importlib.metadata.version = INSTALLED_VERSION
    return namespace


def pinned() -> dict[str, str]:
    data = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    found = (re.fullmatch(r"([A-Za-z0-9_.\-]+)(.*)", d) for d in data["project"]["dependencies"])
    return {m.group(1).lower(): m.group(2) for m in found if m}


def test_the_cell_passes_in_the_course_environment_and_checks_every_imported_package():
    expected = run_environment_cell()["EXPECTED"]
    assert set(IMPORTED_BY_LESSONS) <= set(expected)


def test_each_checked_prefix_lies_in_the_range_pyproject_pins():
    expected = run_environment_cell()["EXPECTED"]
    outside = {
        package: prefix
        for package, prefix in expected.items()
        if not SpecifierSet(pinned()[package]).contains(prefix + "999")
    }
    assert outside == {}


@pytest.mark.parametrize("absent", IMPORTED_BY_LESSONS)
def test_a_missing_package_stops_the_cell_with_an_error_naming_it(absent):
    def version(package: str) -> str:
        if package == absent:
            raise importlib.metadata.PackageNotFoundError(package)
        return INSTALLED_VERSION(package)

    with pytest.raises(RuntimeError, match=rf"Not installed: {absent}\. Re-run the setup"):
        run_environment_cell(version)
