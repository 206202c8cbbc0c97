"""What of a cell is translatable, and putting translations back never changes code."""

from __future__ import annotations

import pytest
from i18n_notebooks import EXERCISE, code, markdown

from course_lib.i18n.parts import PartError, cell_parts, code_tokens, put_back


def test_a_markdown_cell_is_one_part_keyed_by_its_id():
    parts = cell_parts(markdown("m1", "# Title\n\nText."))
    assert [(p.key, p.text, p.kind) for p in parts] == [("m1", "# Title\n\nText.", "markdown")]


def test_a_code_cell_yields_its_comments_and_hint_but_not_strings_markers_or_pragmas():
    source = (
        "# Show a city\n"
        'x = "# not a comment"  # inline note\n'
        "y = 1  # noqa: E501\n"
        "# ------\n" + EXERCISE
    )
    cell = code("c1", source, course={"exercise": "99.1", "hint": "add the two numbers"})
    assert [(p.key, p.text) for p in cell_parts(cell)] == [
        ("c1#comment", "Show a city"),
        ("c1#comment", "inline note"),
        ("c1#comment", "add them"),
        ("c1#hint", "add the two numbers"),
    ]


def test_a_magic_cell_that_does_not_tokenize_has_no_comment_parts():
    assert cell_parts(code("c1", "%%bash\necho 'unterminated")) == []


def test_putting_comments_back_changes_only_the_comments():
    source = '# Show a city\nprint("# not a comment", "北京")  # inline note\n'
    cell = code("c1", source)
    zh = {"Show a city": "显示一个城市", "inline note": "行内注释"}
    put_back(cell, lambda part: zh[part.text])
    assert cell.source == '# 显示一个城市\nprint("# not a comment", "北京")  # 行内注释\n'
    assert code_tokens(cell.source) == code_tokens(source)


def test_the_hint_goes_back_into_the_exercise_metadata():
    cell = code("c1", EXERCISE, course={"exercise": "99.1", "hint": "add the two numbers"})
    zh = {"add them": "相加", "add the two numbers": "把两个数相加"}
    put_back(cell, lambda part: zh[part.text])
    assert cell.metadata["course"]["hint"] == "把两个数相加"
    assert "total = a + b  # 相加" in cell.source


def test_a_translated_comment_that_would_become_code_is_refused():
    cell = code("c1", "x = 1  # one\n")
    with pytest.raises(PartError, match="one line"):
        put_back(cell, lambda part: "一\nimport os")
