"""A module past 400 lines is a sign it holds two ideas (STYLE.md): split it along its seam, or
say in its docstring why it stays one, in a paragraph that opens with ``One module because``
and gives the reason. This holds for every module of ``course_lib`` and ``scripts``."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LIMIT = 400
JUSTIFICATION = re.compile(r"(?:^|\n\n)One module because (?P<reason>.+?)(?:\n\n|$)", re.S)


def line_count(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines())


def long_modules() -> list[str]:
    paths = [*(ROOT / "course_lib").rglob("*.py"), *(ROOT / "scripts").rglob("*.py")]
    return sorted(p.relative_to(ROOT).as_posix() for p in paths if line_count(p) > LIMIT)


def reason(source: str) -> str | None:
    """The reason the module's docstring gives for staying one module, if it gives one."""
    docstring = ast.get_docstring(ast.parse(source)) or ""
    found = JUSTIFICATION.search(docstring)
    return " ".join(found.group("reason").split()) if found else None


def test_every_long_module_says_why_it_stays_one() -> None:
    unjustified = {}
    for name in long_modules():
        said = reason((ROOT / name).read_text(encoding="utf-8"))
        if said is None or len(said.split()) < 12:
            unjustified[name] = line_count(ROOT / name)
    assert not unjustified, (
        f"modules over {LIMIT} lines with no 'One module because ...' paragraph (a reason of a "
        f"dozen words or more) in their docstring; split them or say why not: {unjustified}"
    )


@pytest.mark.parametrize(
    ("docstring", "expected"),
    [
        ("Does X.\n\nOne module because the two halves speak one protocol over one socket.", True),
        ("Does X.\n\nOne module because it is.", True),  # found; too short is judged above
        ("Does X. It is one module because it is long.", False),  # not a paragraph of its own
        ("Does X.\n\nSplit later.", False),
        ("", False),
    ],
)
def test_the_reading_finds_a_justification_only_where_one_is_written(docstring, expected) -> None:
    source = f'"""{docstring}"""\n\nx = 1\n'
    assert (reason(source) is not None) == expected


def test_the_count_sees_a_long_module_and_ignores_a_short_one(tmp_path: Path) -> None:
    long = tmp_path / "long.py"
    long.write_text('"""Long."""\n' + "x = 1\n" * LIMIT, encoding="utf-8")
    short = tmp_path / "short.py"
    short.write_text('"""Short."""\n' + "x = 1\n" * (LIMIT - 1), encoding="utf-8")
    assert line_count(long) > LIMIT >= line_count(short)
    assert reason(long.read_text(encoding="utf-8")) is None
