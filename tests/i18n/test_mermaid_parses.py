"""Every Mermaid diagram of every edition's notebooks is read by Mermaid's own parser, so a
translated label never breaks a diagram the reader sees.

Needs node and a folder whose ``node_modules`` holds ``mermaid`` and ``jsdom``, named by
``COURSE_MERMAID_DIR``; made once with ``npm i mermaid jsdom`` in that folder. Skipped without
them: the course runs offline and its tests install nothing.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = Path(__file__).with_name("mermaid_parse.mjs")
MERMAID_DIR = Path(os.environ.get("COURSE_MERMAID_DIR", "/nonexistent"))
DIAGRAM = re.compile(r"^```mermaid\n(?P<code>.*?)^```", re.M | re.S)

pytestmark = pytest.mark.skipif(
    shutil.which("node") is None
    or not all((MERMAID_DIR / "node_modules" / name).is_dir() for name in ("mermaid", "jsdom")),
    reason="needs node and COURSE_MERMAID_DIR with node_modules/mermaid and jsdom",
)


def diagrams() -> list[tuple[str, str]]:
    """(where, code) of every diagram in the English and translated notebooks."""
    found = []
    for path in sorted([*ROOT.glob("notebooks/*.ipynb"), *ROOT.glob("notebooks/*/*.ipynb")]):
        for cell in nbformat.read(path, as_version=4).cells:
            if cell.cell_type == "markdown":
                for match in DIAGRAM.finditer(cell.source):
                    where = f"{path.relative_to(ROOT)} {cell.get('id')}"
                    found.append((where, match["code"]))
    return found


def parse(codes: list[str]) -> list[str | None]:
    """Mermaid's error for each diagram, or None when it parses."""
    done = subprocess.run(
        ["node", "--input-type=module", "-e", SCRIPT.read_text()],
        input=json.dumps(codes),
        capture_output=True,
        text=True,
        cwd=MERMAID_DIR,
        check=True,
    )
    return json.loads(done.stdout)


def test_every_diagram_of_every_edition_parses_with_mermaid():
    found = diagrams()
    assert any("zh-CN" in where and "sequenceDiagram" in code for where, code in found)
    results = zip(found, parse([code for _, code in found]), strict=True)
    errors = [f"{where}: {error}" for (where, _), error in results if error]
    assert not errors, "\n".join(errors)


def test_mermaid_refuses_a_label_that_would_change_the_diagrams_syntax():
    semicolon, bracket, fine = parse(
        [
            "sequenceDiagram\n    C->>M: 问题; 连同工具\n",
            "flowchart LR\n    A -->|否(no)| B\n",
            "sequenceDiagram\n    C->>M: 问题，连同工具\n",
        ]
    )
    assert semicolon and bracket and fine is None


def test_every_diagram_of_the_readmes_and_docs_parses_with_mermaid():
    """GitHub draws a page's diagrams with Mermaid: one it cannot parse shows as an error box."""
    pages = sorted([*ROOT.glob("README*.md"), *ROOT.glob("docs/*.md")])
    found = [
        (str(page.relative_to(ROOT)), match["code"])
        for page in pages
        for match in DIAGRAM.finditer(page.read_text(encoding="utf-8"))
    ]
    assert any(where == "docs/architecture.md" for where, _ in found)
    results = zip(found, parse([code for _, code in found]), strict=True)
    errors = [f"{where}: {error}" for (where, _), error in results if error]
    assert not errors, "\n".join(errors)
