"""docs/performance.md's function-to-tool figures that do not depend on the machine are the
benchmark's output (issue 27: every number the docs quote comes from a benchmark).

The times are the machine's and are not checked here; the corpus size, each converter's JSON
bytes, ``title`` keys and correct count, and the bytes of our ``additionalProperties: false`` are
the same wherever ``benchmarks/bench_convert.py`` runs, so they are computed by its own
``judged`` and ``closed_bytes`` and compared with the page. A peer library's row is compared only
where the installed version is the one the page says it measured.
"""

from __future__ import annotations

import importlib.util
import re
import sys
import warnings
from importlib import metadata
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "performance.md"
# The page's row labels, and the benchmark's converter and library for each.
ROWS = {
    "course_lib `function_to_tool` (warm)": ("course_lib (ours)", None),
    "course_lib, caches cleared every round": ("course_lib (ours)", None),
    "pydantic `TypeAdapter(func).json_schema()`": ("pydantic TypeAdapter", "pydantic"),
    "langchain-core `convert_to_openai_tool`": (
        "langchain-core convert_to_openai_tool",
        "langchain-core",
    ),
    "transformers `get_json_schema`": ("transformers get_json_schema", "transformers"),
}


@pytest.fixture(scope="module")
def bench():
    script = ROOT / "benchmarks" / "bench_convert.py"
    spec = importlib.util.spec_from_file_location("bench_convert", script)
    module = importlib.util.module_from_spec(spec)
    path = list(sys.path)
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path[:] = path
    return module


def section(text: str) -> str:
    """The page's function-to-tool part: from its heading to the next bold heading."""
    start = text.index("**Function to tool**")
    return text[start : text.index("\n**", start + 1)]


def table(text: str) -> dict[str, list[str]]:
    """The rows of the first markdown table in ``text``, by their first cell."""
    rows = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("|") and not set(cells[0]) <= {"-", ":"} and cells[0] != "converter":
            rows[cells[0]] = cells[1:]
    return rows


def measured_versions(text: str) -> dict[str, str]:
    """The library versions the page's first paragraph says it measured with."""
    return dict(re.findall(r"([a-z][\w-]*) (\d+\.\d+\.\d+)", text.split("\n\n")[1]))


def figures(part: str) -> dict[str, str]:
    """The figures of the section the benchmark computes, as the page writes them."""
    rows = table(part)
    found = {"corpus": re.search(r"`benchmarks/corpus\.py`, (\d+) functions", part).group(1)}
    found["all"] = re.search(r"the only converter right on all (\d+)", part).group(1)
    found["closed"] = re.search(r"([\d,]+) of our bytes are the top-level", part).group(1)
    for label, cells in rows.items():
        found[label] = " | ".join(cells[1:])  # JSON size, title keys, correct
    return found


def expected_figures(bench, versions: dict[str, str]) -> dict[str, str]:
    corpus = str(len(bench.CORPUS))
    expected = {"corpus": corpus, "all": corpus, "closed": f"{bench.closed_bytes():,}"}
    warnings.simplefilter("ignore")
    for page_label, (label, library) in ROWS.items():
        if library is not None and metadata.version(library) != versions.get(library):
            continue  # measured with another version: the page must be re-run, not this test
        size, titles, wrong = bench.judged(bench.CONVERTERS[label])
        expected[page_label] = f"{size:,} | {titles} | {len(bench.CORPUS) - len(wrong)}/{corpus}"
    return expected


def test_the_function_to_tool_figures_are_the_benchmarks(bench) -> None:
    text = PAGE.read_text(encoding="utf-8")
    shown = figures(section(text))
    assert set(table(section(text))) == set(ROWS), "the table's rows are not the converters"
    expected = expected_figures(bench, measured_versions(text))
    assert {k: shown[k] for k in expected} == expected, (
        "docs/performance.md's figures are not what benchmarks/bench_convert.py computes: re-run "
        "it and copy its output"
    )
    assert "course_lib `function_to_tool` (warm)" in expected  # ours is always compared


def test_the_reading_sees_a_changed_figure(bench) -> None:
    text = PAGE.read_text(encoding="utf-8")
    shown = figures(section(text))
    for old, new in [("51 functions", "43 functions"), ("| 21,718 |", "| 21,719 |")]:
        assert old in text
        assert figures(section(text.replace(old, new, 1))) != shown
    assert measured_versions(text)["pydantic"] == re.search(r"pydantic (\S+),", text).group(1)
