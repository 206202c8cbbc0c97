"""Whether the objects a check called were the learner's own, judged here from the facts the
driver reported (``course_lib.origins``), in the grader's terms.

For each target, the driver reports the module and source file of the target itself, the files
of the notebook's functions its code reaches, and every ``course_lib`` object it reaches. The
grader decides:

- **borrowed** (zero) when the target itself is code of ``course_lib.reference`` or
  ``course_lib.checks`` (however the notebook found it), when a notebook function it reaches
  was rebuilt from their code (its file is theirs), or when its code reaches one of their
  objects that the lesson's own cells do not use, or that is the course's version of the
  exercise's target (a class whose methods come from the reference registry);
- **flagged** when the target was not written in a cell of this notebook: code run from a
  string, or a module the notebook did not define.

Cells are recognised by the names IPython gives them (``.../ipykernel_<pid>/<hash>.py``). A
notebook that replaces the driver can forge all of this; then only the source analysis
(``borrowing``, ``routes``) and the similarity flags remain.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from course_lib.grading.routes import guarded

CELL_FILE = re.compile(r"(?:^|[\\/])ipykernel_\d+[\\/]\d+\.py$|^<ipython-input-")
GUARDED_FILE = re.compile(r"[\\/]course_lib[\\/](reference|checks)[\\/]")
NOTEBOOK_MODULE = "__main__"
# Phrases for the flags (whole phrases, one place, for the translation).
OUTSIDE = {
    "string": "{target} was not written in a cell: it was made by code run from a string",
    "module": "{target} comes from the module {module}, not from a cell of this notebook",
}


@dataclass
class Judgement:
    """What one exercise's targets showed: the first borrowed object (a phrase), if any, and
    the flags."""

    borrowed: str | None = None
    flags: list[str] = field(default_factory=list)


def judge(
    reports: dict[str, Any], targets: Iterable[str], lesson_names: frozenset[str]
) -> Judgement:
    """Judge the driver's ``reports`` (target name -> origins) for one exercise. ``targets`` are
    the names the exercise asks for; ``lesson_names`` the names of the guarded objects the
    lesson's own cells use (``lesson_names``)."""
    wanted = frozenset(targets)
    judgement = Judgement()
    for target in sorted(reports):
        report = reports[target]
        if not isinstance(report, dict):
            continue
        borrowed = _borrowed(target, report, wanted, lesson_names)
        if borrowed and judgement.borrowed is None:
            judgement.borrowed = borrowed
        elif not borrowed:
            flag = _outside(target, report)
            if flag:
                judgement.flags.append(flag)
    return judgement


def lesson_names(lesson_uses: Iterable[str]) -> frozenset[str]:
    """The top-level names of the guarded objects the lesson uses (``ToolRegistry``,
    ``validate_arguments``, ``loop``), from ``borrowing``'s resolved origins."""
    return frozenset(origin.rsplit(".", 1)[-1] for origin in lesson_uses if guarded(origin))


def _borrowed(
    target: str, report: dict[str, Any], wanted: frozenset[str], allowed: frozenset[str]
) -> str | None:
    module, file = _text(report.get("module")), _text(report.get("file"))
    if guarded(module) or GUARDED_FILE.search(file):
        return f"{module if guarded(module) else _shown_file(file)} (as {target})"
    for path in _texts(report.get("files")):
        if GUARDED_FILE.search(path):
            return f"{_shown_file(path)} (rebuilt as a function of the notebook)"
    for entry in report.get("reached") or []:
        if not isinstance(entry, dict):
            continue
        where, name = _text(entry.get("module")), _text(entry.get("name"))
        if not (guarded(where) or GUARDED_FILE.search(_text(entry.get("file")))):
            continue
        top = name.split(".")[0] or where.rsplit(".", 1)[-1]
        if top not in allowed or top in wanted:
            return f"{where}.{name}" if name else where
    return None


def _outside(target: str, report: dict[str, Any]) -> str | None:
    module, file = _text(report.get("module")), _text(report.get("file"))
    if not module and not file:
        return None  # not code (a dict, a string): nothing to say where it was written
    if module and module != NOTEBOOK_MODULE:
        return OUTSIDE["module"].format(target=target, module=module)
    if file and not CELL_FILE.search(file):
        return OUTSIDE["string"].format(target=target)
    return None


def _shown_file(path: str) -> str:
    """A guarded file as ``course_lib/reference/x.py`` (no scratch or install paths)."""
    match = GUARDED_FILE.search(path)
    if match is None:
        return path
    return "course_lib/" + path[match.start() :].replace("\\", "/").split("/course_lib/", 1)[-1]


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _texts(value: Any) -> list[str]:
    return [item for item in value if isinstance(item, str)] if isinstance(value, list) else []
