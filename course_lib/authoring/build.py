"""Build ``notebooks/`` from ``solutions/``, and tell whether ``notebooks/`` is in sync.

A lesson with a translation (``translations/<lang>/NN_slug.po``) also gets its translated
solution notebook ``solutions/<lang>/`` and student notebook ``notebooks/<lang>/``: the same
cells, ids and code (``course_lib.i18n.edition``).

``build_notebook`` runs the steps of ``course_lib.authoring.steps`` on a copy of one solution
notebook; ``render`` turns a notebook into the exact text written to disk (the same input always
gives the same bytes). ``stale_notebooks`` compares what the build would write with what is on
disk and names the first differing cell, so ``build --check`` can say what to do.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import nbformat
from nbformat import NotebookNode

from course_lib.authoring.steps import STEPS, AuthoringError

REPO_ROOT = Path(__file__).resolve().parents[2]
SOLUTIONS = REPO_ROOT / "solutions"
NOTEBOOKS = REPO_ROOT / "notebooks"
TRANSLATIONS = REPO_ROOT / "translations"  # course_lib.i18n.catalog reads it from here


def build_notebook(solution: NotebookNode, name: str) -> NotebookNode:
    """The student version of ``solution`` (left untouched)."""
    nb = copy.deepcopy(solution)
    for step in STEPS:
        nb = step(nb, name)
    try:
        nbformat.validate(nb)
    except nbformat.ValidationError as exc:
        problem = f"the student version is not a valid notebook: {exc.message}"
        raise AuthoringError(name, problem) from None
    return nb


def render(nb: NotebookNode) -> str:
    """The file text: nbformat's own JSON layout (sorted keys, indent 1) plus a final newline."""
    text = nbformat.writes(nb)
    return text if text.endswith("\n") else text + "\n"


def read(path: Path) -> NotebookNode:
    """The notebook at ``path``; duplicate cell ids are an error, not silently renamed.

    (nbformat "repairs" a duplicate id with a random one, which would make builds differ.)
    """
    text = path.read_text(encoding="utf-8")
    seen: set[str] = set()
    for index, cell in enumerate(json.loads(text).get("cells", [])):
        cell_id = cell.get("id")
        if cell_id in seen:
            raise AuthoringError(path.stem, f"cell {index}: the id {cell_id!r} is used twice")
        if cell_id:
            seen.add(cell_id)
    return nbformat.reads(text, as_version=nbformat.NO_CONVERT)


def write_text(path: Path, text: str) -> None:
    """Write exactly ``text`` as UTF-8 with ``\\n`` line ends, whatever the platform."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8", newline="\n") as file:
        file.write(text)


def solution_paths(solutions: Path = SOLUTIONS) -> list[Path]:
    return sorted(solutions.glob("*.ipynb"))


def expected_files(
    solutions: Path = SOLUTIONS, notebooks: Path = NOTEBOOKS, translations: Path = TRANSLATIONS
) -> dict[Path, str]:
    """Every file the build writes, with its text: each student notebook, and for each lesson
    with a translation, its translated solution and student notebooks (``course_lib.i18n``)."""
    files = {}
    for path in solution_paths(solutions):
        english = read(path)
        files[notebooks / path.name] = render(build_notebook(english, path.stem))
        for lang, edition in editions(english, path.stem, solutions, translations):
            files[solutions / lang / path.name] = render(edition)
            files[notebooks / lang / path.name] = render(build_notebook(edition, path.stem))
    return files


def editions(
    english: NotebookNode, name: str, solutions: Path, translations: Path
) -> list[tuple[str, NotebookNode]]:
    """(language, translated solution notebook) for each language the lesson is translated into
    (at least one reviewed entry in ``translations/<lang>/<name>.po``)."""
    from course_lib.i18n.catalog import EDITIONS, catalog_path, read_catalog
    from course_lib.i18n.edition import translate_notebook
    from course_lib.i18n.parts import PartError

    found = []
    for lang in EDITIONS:
        entries = read_catalog(catalog_path(lang, name, translations))
        if not any(entry.translated for entry in entries):
            continue
        stored_path = solutions / lang / f"{name}.ipynb"
        stored = read(stored_path) if stored_path.exists() else None
        try:
            found.append((lang, translate_notebook(english, lang, entries, stored)))
        except PartError as exc:
            raise AuthoringError(name, f"the {lang} translation: {exc}") from None
    return found


def build_all(
    solutions: Path = SOLUTIONS, notebooks: Path = NOTEBOOKS, translations: Path = TRANSLATIONS
) -> list[Path]:
    """Write every generated notebook; return the paths written (unchanged files are not
    touched)."""
    written = []
    for target, text in expected_files(solutions, notebooks, translations).items():
        if not target.exists() or target.read_text(encoding="utf-8") != text:
            write_text(target, text)
            written.append(target)
    return written


def stale_notebooks(
    solutions: Path = SOLUTIONS, notebooks: Path = NOTEBOOKS, translations: Path = TRANSLATIONS
) -> list[str]:
    """One line per generated notebook that is missing, extra, or differs from a fresh build."""
    problems = []
    expected = expected_files(solutions, notebooks, translations)
    for target, text in expected.items():
        name = shown(target, solutions, notebooks)
        if not target.exists():
            problems.append(f"{name} is missing")
            continue
        actual = target.read_text(encoding="utf-8")
        if actual != text:
            problems.append(f"{name} is out of date: {_first_difference(text, actual)}")
    from course_lib.i18n import EDITIONS

    generated = list(notebooks.glob("*.ipynb"))
    for lang in EDITIONS:  # not other folders (JupyterLab's .ipynb_checkpoints/)
        generated += [*(notebooks / lang).glob("*.ipynb"), *(solutions / lang).glob("*.ipynb")]
    for target in sorted(generated):
        if target not in expected:
            source = f"solutions/{target.name}"
            if target.parent.parent in (solutions, notebooks):
                source += f" with a {target.parent.name} translation"
            problems.append(f"{shown(target, solutions, notebooks)} has no source {source}")
    return problems


def shown(target: Path, solutions: Path, notebooks: Path) -> str:
    """``notebooks/00_welcome.ipynb``, ``solutions/zh-CN/00_welcome.ipynb``: how messages name
    a generated file."""
    for folder in (notebooks, solutions):
        if target.is_relative_to(folder):
            return f"{folder.name}/{target.relative_to(folder).as_posix()}"
    return str(target)


def _first_difference(expected: str, actual: str) -> str:
    """Name the first cell (or other part) where ``actual`` differs from ``expected``."""
    try:
        want, have = json.loads(expected), json.loads(actual)
    except json.JSONDecodeError:
        return "it is not valid JSON"
    want_cells, have_cells = want.get("cells", []), have.get("cells", [])
    for index, (cell_want, cell_have) in enumerate(zip(want_cells, have_cells, strict=False)):
        if cell_want != cell_have:
            fields = sorted(
                key
                for key in cell_want.keys() | cell_have.keys()
                if cell_want.get(key) != cell_have.get(key)
            )
            return f"cell {index} (id {cell_want.get('id')!r}) differs in {', '.join(fields)}"
    if len(want_cells) != len(have_cells):
        return f"it has {len(have_cells)} cells, the build gives {len(want_cells)}"
    if want != have:
        keys = sorted(
            key
            for key in want.keys() | have.keys()
            if key != "cells" and want.get(key) != have.get(key)
        )
        return f"the notebook's {', '.join(keys)} differ"
    return "only its formatting differs"
