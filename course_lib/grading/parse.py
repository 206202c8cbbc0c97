"""Read an untrusted notebook file: its shape and types are checked before anything looks inside.

A submission can be any bytes. Before nbformat (or anything else) walks it, ``parse`` makes sure it
is JSON (a UTF-8 byte order mark before it is ignored, and noted: see ``BOM``; a RecursionError
while decoding is a refusal, not a crash), that its outputs are gone (they are never graded), that
nothing in it nests deeper than ``MAX_DEPTH`` (nbformat's validator and ``deepcopy`` recurse), that
its code is not longer than the grader reads (``MAX_CELL_SOURCE`` per cell, ``MAX_CODE_SOURCE`` in
all: counted before anything parses it), that it is a version-4 notebook nbformat accepts, that it
holds a reasonable number of code cells, and that every metadata value the grader reads has the type
it expects. What fails becomes ``InvalidSubmission`` with a message that says what to do.
"""

from __future__ import annotations

import json
import warnings

import nbformat
from nbformat import NotebookNode
from nbformat.v4.rwbase import rejoin_lines
from nbformat.validator import normalize

from course_lib.grading.canonical import Lesson, course_meta
from course_lib.i18n import ENGLISH, known, translate


class InvalidSubmission(ValueError):
    """The file cannot be graded as this lesson; the message says why and what to do."""


# Learner-facing messages, whole sentences (one place, for the translation).
MESSAGES = {
    "not_json": (
        "not a notebook: the file is not valid JSON ({error}). Submit the .ipynb file saved by "
        "JupyterLab."
    ),
    "bom": (
        "the file starts with a byte order mark (BOM), which some editors add and JupyterLab "
        "cannot open; the grader ignored it and read the notebook after it. Save the notebook "
        "from JupyterLab (or with an editor set to UTF-8 without BOM) before you submit again."
    ),
    "too_deep": (
        "not a notebook the grader can read: its JSON is nested more than {limit} levels deep. "
        "Re-download the course notebook and copy your answers into it."
    ),
    "no_version": (
        "not a notebook: the JSON has no nbformat version. Submit the .ipynb file saved by "
        "JupyterLab."
    ),
    "wrong_version": (
        "wrong notebook format: nbformat {version}, the course uses nbformat 4. Open the "
        "course's own notebook in JupyterLab 3 or later, redo the exercises there and save."
    ),
    "corrupted": (
        "corrupted notebook: {error}. Re-download the course notebook and copy your answers "
        "into it."
    ),
    "too_many_cells": (
        "the notebook has {count} code cells, more than the {limit} the grader runs. Delete "
        "the cells you added for experiments, save and submit again."
    ),
    "cell_too_long": (
        "code cell {cell} holds {count} characters, more than the {limit} the grader reads in "
        "one cell. Move data into a file of its own (or build it with code), save and submit "
        "again."
    ),
    "code_too_long": (
        "the notebook's code cells hold more than the {limit} characters the grader reads in "
        "one notebook. Delete the cells you added for experiments, save and submit "
        "again."
    ),
    "wrong_lesson": (
        "wrong lesson: this file is {claimed} but was submitted as {slug}. Submit it as "
        "{claimed_file}, and submit your {slug} notebook under its name."
    ),
    "not_this_lesson": (
        "wrong lesson: this notebook has none of the cells of {slug}. Submit the course's "
        "{slug}.ipynb with your answers in it."
    ),
    "metadata_ignored": (
        "the course metadata of the notebook was not the course's (it must hold text where the "
        "course puts an exercise id or a lesson name) and was ignored"
    ),
    "cell_metadata_ignored": (
        "the course metadata of cell {cell} was not the course's (it must hold text where the "
        "course puts an exercise id or a lesson name) and was ignored"
    ),
}

MAX_DEPTH = 40  # metadata nested deeper than this is not a notebook JupyterLab wrote
MAX_CODE_CELLS = 2000
# What the grader reads of a notebook's code (characters, counted in the raw JSON before anything
# parses it): the course's longest cell holds under 3,000, its longest lesson under 25,000.
MAX_CELL_SOURCE = 50_000
MAX_CODE_SOURCE = 250_000
COURSE_TEXT_KEYS = ("exercise", "check", "notebook")
# UTF-8's byte order mark. JSON's RFC 8259 (8.1) lets a parser ignore it; nbformat and Jupyter
# Server refuse it ("Notebook does not appear to be JSON", "Unreadable Notebook"). The grader
# ignores it, grades the notebook after it and notes it (JupyterLab cannot open the file): the
# mark carries no content, and refusing would cost the learner their answers for an editor's
# habit (Notepad's, PowerShell 5's ``Out-File``).
BOM = b"\xef\xbb\xbf"


def say(key: str, lang: str | None = None, /, **values: object) -> str:
    """The message ``key`` in ``lang`` (default: the language spoken now)."""
    return translate(MESSAGES, key, lang, **values)


def edition(nb: NotebookNode) -> str:
    """The edition a notebook was made from (its ``course.lang``), English if it names none the
    course knows: what the grader says to this learner speaks it (``course_lib.i18n``)."""
    course = nb.metadata.get("course")
    lang = course.get("lang") if isinstance(course, dict) else None
    return known(lang) or ENGLISH


def parse(raw: bytes, lesson: Lesson) -> tuple[NotebookNode, list[str]]:
    """The notebook, checked for shape and type before anything looks inside it, and the repairs
    made to its metadata; ``InvalidSubmission`` when it is not a notebook of ``lesson``."""
    bom = raw.startswith(BOM)
    data = _load_json(raw[len(BOM) :] if bom else raw)
    if not isinstance(data, dict) or "nbformat" not in data:
        raise InvalidSubmission(say("no_version"))
    version = data.get("nbformat")
    if type(version) is not int or version != 4:
        raise InvalidSubmission(say("wrong_version", version=shown(version)))
    _drop_outputs(data)  # never graded, so never a reason to refuse (or to recurse into)
    _check_code_size(data)  # before anything parses the code (nbformat, ast, fingerprints)
    if _deeper_than(data, MAX_DEPTH):
        raise InvalidSubmission(say("too_deep", limit=MAX_DEPTH))
    _repair_cell_ids(data)
    try:
        with warnings.catch_warnings():  # missing cell ids are repaired below
            warnings.simplefilter("ignore")
            _, data = normalize(data, strip_invalid_metadata=True)
        nb = rejoin_lines(nbformat.from_dict(data))  # "source" may be stored as a list of lines
        repairs = clean_metadata(nb)
        nbformat.validate(nb)
    except MemoryError:  # the grader's limit (``analysis``), not a corrupted file
        raise
    except Exception as exc:  # noqa: BLE001 (whatever a malformed file makes nbformat raise)
        first_line = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise InvalidSubmission(say("corrupted", error=first_line[:200])) from None
    lang = edition(nb)  # the notebook is read: the rest speaks its edition
    if bom:
        repairs.insert(0, say("bom", lang))
    count = sum(cell.cell_type == "code" for cell in nb.cells)
    if count > MAX_CODE_CELLS:
        raise InvalidSubmission(say("too_many_cells", lang, count=count, limit=MAX_CODE_CELLS))
    claimed = course_meta(nb).get("notebook")
    if claimed is not None and claimed != lesson.slug:
        raise InvalidSubmission(
            say(
                "wrong_lesson",
                lang,
                claimed=shown(claimed),
                slug=shown(lesson.slug),
                claimed_file=shown(f"{claimed}.ipynb"),
            )
        )
    if claimed is None and not _looks_like(nb, lesson):
        raise InvalidSubmission(say("not_this_lesson", lang, slug=shown(lesson.slug)))
    return nb, repairs


def shown(value: object) -> str:
    """A value from the file, quoted and cut short, for a message."""
    text = repr(value)
    return text if len(text) <= 80 else text[:79] + "…"


def _load_json(raw: bytes) -> object:
    try:
        return json.loads(raw.decode("utf-8"))
    except RecursionError:
        raise InvalidSubmission(say("too_deep", limit=MAX_DEPTH)) from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        error = f"{exc.__class__.__name__}: {str(exc)[:120]}"
        raise InvalidSubmission(say("not_json", error=error)) from None


def _drop_outputs(data: dict) -> None:
    cells = data.get("cells")
    for cell in cells if isinstance(cells, list) else ():
        if isinstance(cell, dict) and cell.get("cell_type") == "code":
            cell["outputs"] = []
            cell["execution_count"] = None


def _check_code_size(data: dict) -> None:
    """Refuse a code cell longer than ``MAX_CELL_SOURCE``, or code longer than
    ``MAX_CODE_SOURCE`` in all, counted in the raw JSON (a source may be text or a list of
    lines; whatever else it is, nbformat refuses it later)."""
    cells = data.get("cells")
    total = 0
    code = 0
    for cell in cells if isinstance(cells, list) else ():
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        code += 1
        size = _source_size(cell.get("source"))
        if size > MAX_CELL_SOURCE:
            raise InvalidSubmission(
                say("cell_too_long", cell=code, count=size, limit=MAX_CELL_SOURCE)
            )
        total += size
        if total > MAX_CODE_SOURCE:
            raise InvalidSubmission(say("code_too_long", limit=MAX_CODE_SOURCE))


def _source_size(source: object) -> int:
    if isinstance(source, str):
        return len(source)
    if isinstance(source, list):
        return sum(len(line) for line in source if isinstance(line, str))
    return 0


def _deeper_than(data: object, limit: int) -> bool:
    """Whether ``data`` nests more than ``limit`` containers deep (without recursing)."""
    stack = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, dict | list):
            if depth > limit:
                return True
            items = value.values() if isinstance(value, dict) else value
            stack.extend((item, depth + 1) for item in items)
    return False


def clean_metadata(nb: NotebookNode) -> list[str]:
    """Make every metadata value the grader reads the type it expects, before anything reads it:
    a course block that is not a mapping, an exercise id, check id or lesson name that is not
    text (``{"exercise": {"id": ...}}``), tags that are not text. What is not the course's is
    dropped (the canonical values are put back later), and each drop is one repair line."""
    repairs = []
    lang = edition(nb)
    if _clean_course_block(nb):
        repairs.append(say("metadata_ignored", lang))
    for position, cell in enumerate(nb.cells):
        metadata = cell.get("metadata")
        if not isinstance(metadata, dict):
            cell["metadata"] = nbformat.NotebookNode()
            continue
        if _clean_course_block(cell):
            repairs.append(say("cell_metadata_ignored", lang, cell=position + 1))
        tags = metadata.get("tags")
        if tags is not None:
            kept = [tag for tag in tags if isinstance(tag, str)] if isinstance(tags, list) else []
            metadata["tags"] = kept
    return repairs


def _clean_course_block(node: NotebookNode) -> bool:
    """Drop a ``course`` block, or the keys of it, that are not what the course writes."""
    metadata = node.get("metadata", {})
    course = metadata.get("course")
    if course is None:
        return False
    if not isinstance(course, dict):
        del metadata["course"]
        return True
    bad = [key for key in COURSE_TEXT_KEYS if key in course and not isinstance(course[key], str)]
    for key in bad:
        del course[key]
    return bool(bad)


def _repair_cell_ids(data: dict) -> None:
    """Give missing, duplicated or non-text cell ids a deterministic new one (copy-paste
    duplicates ids; nbformat would invent random ones); before nbformat 4.5 (no ids), drop an
    id that is not text. Works on the raw JSON, before nbformat looks at the ids."""
    cells = data.get("cells")
    cells = [cell for cell in cells if isinstance(cell, dict)] if isinstance(cells, list) else []
    minor = data.get("nbformat_minor")
    if type(minor) is not int or minor < 5:
        for cell in cells:
            if "id" in cell and not isinstance(cell["id"], str):
                del cell["id"]
        return
    seen: set[str] = set()
    for position, cell in enumerate(cells):
        cell_id = cell.get("id")
        if not isinstance(cell_id, str) or not cell_id or cell_id in seen:
            prefix = cell_id if isinstance(cell_id, str) and cell_id else "cell"
            cell["id"] = f"{prefix}-{position}"[:64]
        seen.add(cell["id"])


def _looks_like(nb: NotebookNode, lesson: Lesson) -> bool:
    """Without the lesson metadata, recognise the lesson by its exercise cells (by id or tag)."""
    ids = {spec.exercise_cell_id for spec in lesson.exercises}
    exercise_ids = {spec.id for spec in lesson.exercises}
    return any(
        cell.get("id") in ids or course_meta(cell).get("exercise") in exercise_ids
        for cell in nb.cells
    )
