"""``course i18n update``: new parts added, edited ones fuzzy with the old text kept, removed ones
dropped; the files are byte-stable; the committed catalogs follow the English notebooks."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from i18n_notebooks import code, lesson, markdown

from course_lib.i18n.catalog import (
    Entry,
    read_catalog,
    render_catalog,
    source_hash,
    write_catalog,
)
from course_lib.i18n.update import lesson_status, notebook_parts, updated_entries

ROOT = Path(__file__).resolve().parents[2]


def translated(entries: list[Entry], **by_key: str) -> list[Entry]:
    return [Entry(e.key, e.english, by_key.get(e.key, e.text), note=e.note) for e in entries]


def test_an_edited_cell_turns_fuzzy_keeping_its_old_translation_and_nothing_else_changes():
    nb = lesson()
    first = translated(
        updated_entries(notebook_parts(nb), []), **{"t-intro": "# 示例", "t-summary": "## 小结"}
    )
    nb.cells[0].source = "# Sample\n\nAdd `a` and `b` together."
    entries = {e.key: e for e in updated_entries(notebook_parts(nb), first)}
    intro = entries["t-intro"]
    assert (intro.fuzzy, intro.text, intro.english) == (True, "# 示例", nb.cells[0].source)
    assert intro.previous.startswith("# Sample\n\nAdd `a` and `b`: see")
    assert not entries["t-summary"].fuzzy and entries["t-summary"].text == "## 小结"


def test_a_new_cell_is_added_untranslated_and_a_removed_one_is_dropped():
    nb = lesson()
    first = translated(updated_entries(notebook_parts(nb), []), **{"t-summary": "## 小结"})
    del nb.cells[-1]
    nb.cells.insert(1, markdown("t-new", "A new paragraph."))
    entries = {e.key: e for e in updated_entries(notebook_parts(nb), first)}
    assert "t-summary" not in entries
    assert entries["t-new"] == Entry("t-new", "A new paragraph.", note=entries["t-new"].note)


def test_an_edited_comment_takes_the_most_similar_old_comment_as_its_reference():
    nb = lesson(code("c1", "# open the file\n# then count the lines\nx = 1"))
    first = [
        Entry(e.key, e.english, {"open the file": "打开文件"}.get(e.english, "统计行数"))
        for e in updated_entries(notebook_parts(nb), [])
    ]
    nb.cells[0].source = "# open the file\n# then count the words\nx = 1"
    entries = updated_entries(notebook_parts(nb), first)
    assert [(e.english, e.text, e.fuzzy) for e in entries] == [
        ("open the file", "打开文件", False),
        ("then count the words", "统计行数", True),
    ]


def test_status_counts_translated_pending_and_stale_entries():
    nb = lesson()
    parts = notebook_parts(nb)
    entries = translated(updated_entries(parts, []), **{"t-intro": "# 示例"})
    status = lesson_status("99_sample", parts, entries)
    assert (status.total, status.translated, status.pending, status.stale) == (6, 1, 5, 0)
    nb.cells[-1].source = "## Summary\n\nChanged."
    status = lesson_status("99_sample", notebook_parts(nb), entries)
    assert (status.translated, status.pending, status.stale) == (1, 5, 2)


def test_a_catalog_reads_back_to_the_same_entries_and_the_same_bytes(tmp_path):
    nb = lesson()
    entries = translated(updated_entries(notebook_parts(nb), []), **{"t-intro": "# 示例 {x}"})
    entries[-1] = Entry(entries[-1].key, entries[-1].english, "旧", True, "Old\nEnglish {x}", "n")
    path = tmp_path / "zh-CN" / "99_sample.po"
    assert write_catalog(path, "zh-CN", "99_sample", entries)
    assert read_catalog(path) == entries
    assert render_catalog("zh-CN", "99_sample", read_catalog(path)) == path.read_text("utf-8")
    assert not write_catalog(path, "zh-CN", "99_sample", entries)


def test_the_committed_catalogs_are_up_to_date_with_the_english_notebooks():
    run = subprocess.run(
        [sys.executable, "-m", "course_lib", "i18n", "update", "--check"],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr


def test_a_translation_is_stamped_with_the_english_it_was_made_from_and_the_file_keeps_it(
    tmp_path,
):
    nb = lesson()
    entries = updated_entries(
        notebook_parts(nb),
        translated(updated_entries(notebook_parts(nb), []), **{"t-intro": "示例"}),
    )
    intro = next(e for e in entries if e.key == "t-intro")
    assert intro.source == source_hash(intro.english) and intro.translated
    assert all(not e.source for e in entries if not e.text), (
        "nothing to stamp without a translation"
    )
    write_catalog(tmp_path / "x.po", "zh-CN", "lesson x", entries)
    assert "# source " + intro.source in (tmp_path / "x.po").read_text(encoding="utf-8")
    assert read_catalog(tmp_path / "x.po") == entries


def test_new_english_merged_under_an_old_translation_is_not_used_and_turns_fuzzy():
    """Branch A edits a cell's English (its entry still untranslated there); branch B translates
    the old English. git merges the two hunks: the new msgid, B's msgstr and B's stamp."""
    nb = lesson()
    on_b = updated_entries(
        notebook_parts(nb),
        translated(updated_entries(notebook_parts(nb), []), **{"t-intro": "示例"}),
    )
    old = next(e for e in on_b if e.key == "t-intro")
    merged = Entry(
        old.key, "# Sample, edited on branch A", old.text, note=old.note, source=old.source
    )
    assert not merged.translated, "a translation made from other English is never shown"
    nb.cells[0].source = merged.english
    after = {e.key: e for e in updated_entries(notebook_parts(nb), [merged])}["t-intro"]
    assert (after.fuzzy, after.text, after.source) == (True, "示例", "")
    assert lesson_status("x", notebook_parts(nb), [after]).translated < len(notebook_parts(nb))


def test_a_reviewed_fuzzy_entry_is_stamped_by_the_next_update_not_turned_fuzzy_again():
    nb = lesson()
    fuzzy = Entry("t-intro", nb.cells[0].source, "旧译文", fuzzy=True, previous="old English")
    reviewed = Entry(fuzzy.key, fuzzy.english, "新译文")  # the translator removed the flag
    after = {e.key: e for e in updated_entries(notebook_parts(nb), [reviewed])}["t-intro"]
    assert (after.fuzzy, after.text, after.source) == (False, "新译文", source_hash(fuzzy.english))


def test_every_translation_in_the_repository_is_stamped_with_its_current_english():
    for path in [*ROOT.glob("translations/*/*.po"), *ROOT.glob("course_lib/locale/*/*.po")]:
        for entry in read_catalog(path):
            if entry.text and not entry.fuzzy:
                assert entry.source == source_hash(entry.english), (
                    f"{path.relative_to(ROOT)} {entry.key}: run `python -m course_lib i18n update`"
                )
