"""The self-check command the course prints, read from where a learner reads it."""

from __future__ import annotations

import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# Any spelling of the self-check: ``python3 -m course_lib check ...``, ``py -m ...``, ...
SELF_CHECK = re.compile(r"\b(?:python3?|py) -m course_lib check [^\s`]+")


def mentions(text: str) -> list[str]:
    return SELF_CHECK.findall(text)


def readme_mentions(root: Path = ROOT) -> list[str]:
    return mentions((root / "README.md").read_text(encoding="utf-8"))


def lesson_mentions(notebook: Path) -> list[str]:
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    return [found for cell in cells for found in mentions("".join(cell["source"]))]


def readme_self_check(root: Path = ROOT) -> str:
    """The one self-check command the README gives (every mention must be the same)."""
    found = set(readme_mentions(root))
    assert len(found) == 1, f"the README gives {len(found)} different self-checks: {found}"
    return found.pop()
