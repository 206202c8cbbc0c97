"""A translated edition: reviewed translations show, anything else shows the English marked
"translation pending"; code, ids and check cells stay the English ones."""

from __future__ import annotations

import copy
import json
import shutil
from pathlib import Path

import nbformat
import pytest
from i18n_notebooks import lesson

from course_lib.authoring import build_all, stale_notebooks
from course_lib.authoring.build import read
from course_lib.i18n.catalog import Entry, catalog_path, read_catalog, write_catalog
from course_lib.i18n.edition import PENDING, translate_notebook
from course_lib.i18n.parts import code_tokens
from course_lib.i18n.update import notebook_parts, updated_entries

ROOT = Path(__file__).resolve().parents[2]
ZH = {
    "t-intro": "# 示例\n\n把 `a` 和 `b` 相加：见[文档](https://example.org)。",
    "t-example#comment": {"Show a city": "显示一个城市", "inline note": "行内注释"},
    "t-ex1#comment": {"add them": "相加"},
    "t-ex1#hint": "把两个数相加",
    "t-summary": "## 小结\n\n你把两个数加了起来。",
}


def zh_catalog(nb: nbformat.NotebookNode) -> list[Entry]:
    entries = updated_entries(notebook_parts(nb), [])
    return [
        Entry(e.key, e.english, t[e.english] if isinstance(t := ZH[e.key], dict) else t)
        for e in entries
    ]


def pending_cells(nb: nbformat.NotebookNode) -> list[str]:
    """The ids of the cells that show a pending note anywhere (source or hint)."""
    return [
        cell.id
        for cell in nb.cells
        if PENDING["markdown"] in cell.source
        or PENDING["inline"] in cell.source
        or PENDING["inline"] in cell.metadata.get("course", {}).get("hint", "")
    ]


def test_a_fully_translated_lesson_shows_every_translation_and_keeps_the_code():
    english = lesson()
    zh = translate_notebook(english, "zh-CN", zh_catalog(english))
    assert pending_cells(zh) == []
    assert zh.cells[0].source == ZH["t-intro"]
    assert zh.cells[1].source == '# 显示一个城市\nprint("# not a comment", "北京")  # 行内注释'
    assert zh.cells[2].metadata["course"]["hint"] == "把两个数相加"
    assert zh.metadata["course"]["lang"] == "zh-CN"
    for mine, theirs in zip(zh.cells, english.cells, strict=True):
        assert (mine.id, mine.cell_type) == (theirs.id, theirs.cell_type)
        if mine.cell_type == "code":
            assert code_tokens(mine.source) == code_tokens(theirs.source)
    assert zh.cells[3].source == english.cells[3].source  # the check cell


@pytest.mark.parametrize("edited", ["t-intro", "t-example", "t-ex1", "t-summary"])
def test_editing_one_english_cell_turns_exactly_that_cell_pending(edited):
    english = lesson()
    entries = zh_catalog(english)
    changed = copy.deepcopy(english)
    cell = next(c for c in changed.cells if c.id == edited)
    if cell.cell_type == "markdown":
        cell.source += "\n\nOne more sentence."
    elif edited == "t-ex1":
        cell.metadata["course"]["hint"] = "return the sum of the two numbers"
    else:
        cell.source = cell.source.replace("Show a city", "Show one city")
    zh = translate_notebook(changed, "zh-CN", entries)
    assert pending_cells(zh) == [edited]
    shown = next(c for c in zh.cells if c.id == edited)
    if edited == "t-ex1":
        assert shown.metadata["course"]["hint"].startswith("return the sum of the two numbers")
    else:
        assert "One more sentence." in shown.source or "# Show one city" in shown.source


def test_a_fuzzy_or_empty_entry_shows_the_english_with_the_note_never_the_old_translation():
    english = lesson()
    entries = zh_catalog(english)
    entries[0] = Entry(entries[0].key, entries[0].english, "# 旧的译文", fuzzy=True)
    entries[-1] = Entry(entries[-1].key, entries[-1].english, "")
    zh = translate_notebook(english, "zh-CN", entries)
    assert pending_cells(zh) == ["t-intro", "t-summary"]
    assert "旧的译文" not in zh.cells[0].source
    assert zh.cells[0].source == f"{PENDING['markdown']}\n\n{english.cells[0].source}"


def test_the_build_writes_both_editions_and_check_names_a_stale_translated_notebook(tmp_path):
    solutions, notebooks, translations = (tmp_path / name for name in ("s", "n", "t"))
    solutions.mkdir()
    nbformat.write(lesson(), solutions / "99_sample.ipynb")
    write_catalog(
        catalog_path("zh-CN", "99_sample", translations), "zh-CN", "x", zh_catalog(lesson())
    )
    written = build_all(solutions, notebooks, translations)
    assert sorted(p.relative_to(tmp_path).as_posix() for p in written) == [
        "n/99_sample.ipynb",
        "n/zh-CN/99_sample.ipynb",
        "s/zh-CN/99_sample.ipynb",
    ]
    student = read(notebooks / "zh-CN" / "99_sample.ipynb")
    assert 'raise NotImplementedError("练习 99.1：把两个数相加")' in student.cells[2].source
    assert stale_notebooks(solutions, notebooks, translations) == []
    checkpoints = notebooks / "zh-CN" / ".ipynb_checkpoints"  # JupyterLab's, not the build's
    checkpoints.mkdir()
    shutil.copy(notebooks / "zh-CN" / "99_sample.ipynb", checkpoints / "99_sample-checkpoint.ipynb")
    shutil.copy(solutions / "zh-CN" / "99_sample.ipynb", solutions / "zh-CN" / "98_gone.ipynb")
    assert stale_notebooks(solutions, notebooks, translations) == [
        "s/zh-CN/98_gone.ipynb has no source solutions/98_gone.ipynb with a zh-CN translation"
    ]
    (solutions / "zh-CN" / "98_gone.ipynb").unlink()
    path = notebooks / "zh-CN" / "99_sample.ipynb"
    data = json.loads(path.read_text(encoding="utf-8"))
    data["cells"][0]["source"] = "# 手改的"
    path.write_text(json.dumps(data), encoding="utf-8")
    problems = stale_notebooks(solutions, notebooks, translations)
    assert problems == [
        "n/zh-CN/99_sample.ipynb is out of date: cell 0 (id 't-intro') differs in source"
    ]


def test_the_edition_keeps_its_own_outputs_where_the_code_is_unchanged():
    english = lesson()
    english.cells[1].outputs = [nbformat.v4.new_output("stream", text="English\n")]
    stored = translate_notebook(english, "zh-CN", zh_catalog(english))
    stored.cells[1].outputs = [nbformat.v4.new_output("stream", text="中文\n")]
    again = translate_notebook(english, "zh-CN", zh_catalog(english), stored)
    assert again.cells[1].outputs[0].text == "中文\n"
    english.cells[1].source = english.cells[1].source.replace("北京", "上海")
    changed = translate_notebook(english, "zh-CN", zh_catalog(english), stored)
    assert changed.cells[1].outputs[0].text == "English\n"


def test_the_committed_lesson_00_edition_is_fully_translated():
    entries = read_catalog(catalog_path("zh-CN", "00_welcome"))
    english = read(ROOT / "solutions" / "00_welcome.ipynb")
    assert {(p.key, p.text) for p in notebook_parts(english)} == {
        (e.key, e.english) for e in entries if e.translated
    }
    zh = read(ROOT / "solutions" / "zh-CN" / "00_welcome.ipynb")
    assert pending_cells(zh) == []


@pytest.mark.parametrize("edited", ["w00-checks", "w00-env", "w00-ex1"])
def test_editing_one_cell_of_the_english_lesson_00_turns_exactly_that_cell_pending(edited):
    english = read(ROOT / "solutions" / "00_welcome.ipynb")
    entries = read_catalog(catalog_path("zh-CN", "00_welcome"))
    cell = next(c for c in english.cells if c.id == edited)
    if edited == "w00-ex1":
        cell.metadata["course"]["hint"] += " (one more word)"
    elif cell.cell_type == "code":
        cell.source = cell.source.replace("# Each package", "# Every package")
    else:
        cell.source = cell.source.replace("three ways", "three different ways")
    assert pending_cells(translate_notebook(english, "zh-CN", entries)) == [edited]
