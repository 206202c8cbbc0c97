"""A feedback page is inert Markdown: whatever a submission puts into it (its folder's name, an
extra check cell's id, a cell id, what its code returns or raises), a Markdown viewer shows it as
text: no link, no image, no HTML, no heading or list of the submission's making.

The pages are read by a real CommonMark parser (markdown-it-py), also with GitHub's extensions
(tables, strikethrough, bare URLs made links): the red team's attack (an extra check cell whose id
is a Markdown link and image) and the other constructs are graded in a batch beside an honest
student, whose page must keep its intended structure; the two functions every value goes
through are then tried on any text at all (hypothesis).
"""

from __future__ import annotations

import nbformat
import pytest
from grading_lesson import SLUG, SOLUTIONS, submission
from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from attacks.batch import grade
from course_lib.grading.report import (
    feedback,
    markdown_block,
    markdown_text,
    to_payload,
    write_outputs,
)
from course_lib.grading.results import ExerciseResult, SubmissionResult

PARSERS = {"commonmark": MarkdownIt("commonmark"), "gfm": MarkdownIt("gfm-like")}
# What a page must never hold that came from a submission.
LIVE = {"link_open", "image", "html_inline", "html_block"}

# Constructs that are live when written as they are (the control test shows each one is).
LIVE_CONSTRUCTS = (
    "[x](http://e)",
    "![x](http://e/i.png)",
    "<img src=x onerror=alert(1)>",
    "<http://e>",
    "see www.e.com",
    "[x][r]\n\n[r]: http://e",
)
OTHER_CONSTRUCTS = (
    "# owned",
    "title\n===",
    "- item\n1. item",
    "> quoted",
    "    indented",
    "**bold** _em_ ~~gone~~ $x$ :smile:",
    "| a | b |\n| - | - |\n| c | d |",
    "&lt;script&gt; &#60;b&#62;",
    "`code` ``` ```` x",
    "```\n<b>out of the block</b>\n````",
    "<div>\n<script>alert(1)</script>\n</div>",
    "trailing #",
)
HOSTILE = LIVE_CONSTRUCTS + OTHER_CONSTRUCTS

# The red team's attack, and one of each construct where a submission can put text: its folder
# name (no "/" in a folder's name), an extra check cell's id, a cell id in a note, what 90.1
# returns (quoted in the check's message) and what 90.2 raises.
FOLDER = "![x](i.png) <img src=x onerror=alert(1)> [y](e)"
RETURNED = "[x](http://e) ``` <img src=x onerror=alert(1)> <http://e>\n# heading"
RAISED = "![i](http://e/i.png)\n````\n<script>alert(1)</script>\n- item www.e.com"
HOSTILE_ANSWERS = {
    "90.1": f"def double(x):\n    return {RETURNED!r}",
    "90.2": f"def shout(word):\n    raise ValueError({RAISED!r})",
    "90.3": SOLUTIONS["90.3"],
}
EXTRA_CHECK_IDS = ("[x](http://e)", "![x](http://e/i.png)", "<img src=x onerror=alert(1)>")
# A cell id is checked before grading: one that is Markdown makes the file invalid, and the
# message quoting it goes into the page.
BAD_CELL_ID = "[x](http://e) <img src=x onerror=alert(1)>"


def hostile_notebook() -> nbformat.NotebookNode:
    nb = submission(HOSTILE_ANSWERS)
    extra = []
    for number, claimed in enumerate(EXTRA_CHECK_IDS):
        cell = nbformat.v4.new_code_cell("print('check')", id=f"extra-{number}")
        cell.metadata = {"tags": ["check"], "course": {"check": claimed}}
        extra.append(cell)
    nb.cells[3:3] = extra
    return nb


def bad_cell_id_notebook() -> nbformat.NotebookNode:
    nb = submission(SOLUTIONS)
    nb.cells[2]["id"] = BAD_CELL_ID
    return nb


def tokens(text: str, parser: str) -> list:
    """Every token of ``text``, the inline ones too, in order."""
    found = []
    for token in PARSERS[parser].parse(text):
        found.append(token)
        found += token.children or []
    return found


def live(text: str, parser: str) -> list[str]:
    return [token.type for token in tokens(text, parser) if token.type in LIVE]


def inline_text(token) -> str:
    return "".join(child.content for child in token.children if child.type == "text")


def outline(text: str, parser: str) -> list[tuple[str, str]]:
    """The page's structure: each heading, list item and code block, with its text."""
    found = tokens(text, parser)
    shape = []
    for position, token in enumerate(found):
        if token.type == "heading_open":
            shape.append((token.tag, inline_text(found[position + 1])))
        elif token.type == "list_item_open":
            inline = next(t for t in found[position:] if t.type == "inline")
            shape.append(("li", inline_text(inline)))
        elif token.type == "fence":
            shape.append(("code", token.content))
    return shape


@pytest.fixture(scope="module")
def pages(tmp_path_factory, canonical_dir) -> dict[str, str]:
    """The feedback files of a class graded as usual: the honest student and the attack."""
    root = tmp_path_factory.mktemp("class")
    results = grade(
        root,
        canonical_dir,
        {
            "honest": submission(SOLUTIONS),
            FOLDER: hostile_notebook(),
            "bad_cell_id": bad_cell_id_notebook(),
        },
    )
    out = tmp_path_factory.mktemp("out")
    payload = to_payload(list(results.values()), versions_used={"python": "3"})
    write_outputs(out, payload)
    by_file = {path.name: path.read_text(encoding="utf-8") for path in out.glob("feedback/*.md")}
    assert len(by_file) == 3
    honest, bad_cell_id = by_file.pop("honest.md"), by_file.pop("bad_cell_id.md")
    [hostile] = by_file.values()
    return {"honest": honest, "hostile": hostile, "bad_cell_id": bad_cell_id, "results": results}


@pytest.mark.parametrize("construct", LIVE_CONSTRUCTS)
@pytest.mark.parametrize("parser", ["commonmark", "gfm"])
def test_control_each_live_construct_is_live_when_written_as_it_is(construct, parser):
    if construct == "see www.e.com" and parser == "commonmark":
        pytest.skip("bare URLs become links only with GitHub's extension")
    assert live(construct, parser), "the parser does not see this construct: the tests see nothing"


@pytest.mark.parametrize("page", ["hostile", "bad_cell_id"])
@pytest.mark.parametrize("parser", ["commonmark", "gfm"])
def test_the_attacks_pages_hold_no_link_image_or_html(pages, page, parser):
    assert live(pages[page], parser) == []


@pytest.mark.parametrize("parser", ["commonmark", "gfm"])
def test_a_message_quoting_the_file_is_shown_in_a_code_block(pages, parser):
    shape = outline(pages["bad_cell_id"], parser)
    codes = [text for kind, text in shape if kind == "code"]
    assert len(codes) == 3 and all(repr(BAD_CELL_ID) in code for code in codes), shape
    assert [kind for kind, _ in shape if kind.startswith("h")] == ["h1", "h2"]


@pytest.mark.parametrize("parser", ["commonmark", "gfm"])
def test_the_attacks_text_is_shown_as_text_in_the_pages_own_structure(pages, parser):
    shape = outline(pages["hostile"], parser)
    assert [kind for kind, _ in shape if kind.startswith("h")] == ["h1", "h2"]
    assert shape[0] == ("h1", f"Feedback for {FOLDER}")
    notes = [text for kind, text in shape if kind == "li" and not text[:1].isdigit()]
    for claimed in EXTRA_CHECK_IDS:  # the red team's attack: there, as text
        assert f"an extra check cell (for {claimed!r}) was removed" in notes
    codes = [text for kind, text in shape if kind == "code"]
    assert any(RETURNED.splitlines()[0] in code for code in codes), codes
    assert any(RAISED.splitlines()[1] in code.splitlines() for code in codes), codes


def test_the_attack_was_graded_as_usual(pages):
    rows = {row.exercise: row for row in pages["results"][FOLDER].exercises}
    assert [rows[key].status for key in ("90.1", "90.2", "90.3")] == ["failed", "failed", "passed"]
    assert pages["results"]["honest"].points == 6


@pytest.mark.parametrize("parser", ["commonmark", "gfm"])
def test_an_honest_page_keeps_its_structure(pages, parser):
    assert outline(pages["honest"], parser) == [
        ("h1", "Feedback for honest"),
        ("h2", f"{SLUG}: 6 / 6"),
        ("li", "90.1: passed, 2 / 2"),
        ("li", "90.2: passed, 3 / 3"),
        ("li", "90.3: passed, 1 / 1"),
    ]
    items = PARSERS[parser].render(pages["honest"])
    assert "<li><strong>90.1</strong>: passed, 2 / 2</li>" in items
    assert live(pages["honest"], parser) == []


def page_of(value: str) -> str:
    """A page where ``value`` is every field a submission could fill."""
    row = ExerciseResult(value, value, value, 0, 1, value, value)
    return feedback(to_payload([SubmissionResult(value, value, [row], [value, value])]))[value]


@pytest.mark.parametrize("value", HOSTILE)
@pytest.mark.parametrize("parser", ["commonmark", "gfm"])
def test_every_field_of_a_page_is_inert_whatever_it_holds(value, parser):
    page = page_of(value)
    assert live(page, parser) == []
    shown = " ".join(value.split())
    assert outline(page, parser) == [
        ("h1", f"Feedback for {shown}"),
        ("h2", f"{shown}: 0 / 1"),
        ("li", f"{shown}: {shown}, 0 / 1"),
        ("code", "\n".join(value.splitlines()) + "\n"),
        ("li", shown),
        ("li", shown),
    ]


TEXT = st.text(st.characters(exclude_characters="\x00"), max_size=60)


@settings(max_examples=300, deadline=None)
@given(
    value=(TEXT | st.lists(st.sampled_from(HOSTILE), min_size=1).map(" ".join)).filter(
        lambda v: v.split() != []
    )
)
def test_markdown_text_shows_any_text_as_text_where_the_page_puts_it(value):
    shown = " ".join(value.split())
    escaped = markdown_text(value)
    for page in (escaped, f"# x {escaped}", f"- **{escaped}**: y", f"- {escaped}"):
        for parser in PARSERS:
            found = tokens(page, parser)
            assert [t.type for t in found if t.type in LIVE] == []
            inline = [t for t in found if t.type == "inline"]
            assert len(inline) == 1
            assert not [t for t in found if t.type in ("fence", "code_block", "blockquote_open")]
            assert shown in inline_text(inline[0])


@settings(max_examples=300, deadline=None)
@given(value=TEXT | st.lists(st.sampled_from(HOSTILE), min_size=1).map("\n".join))
def test_markdown_block_keeps_any_text_in_one_code_block(value):
    for page in (markdown_block(value), "- x\n\n" + markdown_block(value, indent="  ")):
        for parser in PARSERS:
            [block] = [t for t in tokens(page, parser) if t.type not in _LIST_TOKENS]
            assert block.type == "fence"
            assert block.content == "".join(line + "\n" for line in value.splitlines())


_LIST_TOKENS = {
    "bullet_list_open",
    "bullet_list_close",
    "list_item_open",
    "list_item_close",
    "paragraph_open",
    "paragraph_close",
    "inline",
    "text",
}
