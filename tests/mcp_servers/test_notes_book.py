"""The notes behind the course's notes server: deterministic, and with the MCP split of errors
(an unknown tool is a protocol error; a missing note or arguments that do not fit are results)."""

from __future__ import annotations

import json

import pytest
from jsonschema import Draft202012Validator

from course_lib.mcp_servers.notes_book import TOOLS, NotesBook, UnknownTool, fits


def test_every_book_starts_with_the_same_four_notes_in_english_and_chinese():
    assert NotesBook().call("list_notes", {}).blocks == NotesBook().call("list_notes", None).blocks
    lines = NotesBook().call("list_notes", {}).blocks
    assert lines == (
        "#1 北京 trip [travel]",
        "#2 Shopping [home]",
        "#3 上海 office [work]",
        "#4 读书 [reading, home]",
    )


def test_search_returns_one_block_per_matching_note_and_says_so_when_none_matches():
    book = NotesBook()
    assert book.call("search_notes", {"keyword": "上海"}).blocks == (
        "#3 上海 office [work]: Call Zhang San about the new 上海 office.",
    )
    assert len(book.call("search_notes", {"keyword": "home"}).blocks) == 2
    assert book.call("search_notes", {"keyword": "home", "limit": 1}).blocks[0].startswith("#2")
    nothing = book.call("search_notes", {"keyword": "火星"})
    assert (nothing.blocks, nothing.is_error) == (("No note mentions '火星'.",), False)


def test_a_missing_note_is_a_tool_error_that_lists_the_notes_there_are():
    answer = NotesBook().call("read_note", {"note_id": 9})
    assert answer.is_error
    assert answer.blocks == (
        "There is no note #9; the notes are #1 (北京 trip), #2 (Shopping), #3 (上海 office), "
        "#4 (读书).",
    )


def test_arguments_that_do_not_fit_are_a_tool_error_naming_the_parameter():
    answer = NotesBook().call("read_note", {"note_id": "2"})
    assert answer.is_error
    assert 'note_id: expected integer, got string "2"' in answer.blocks[0]
    assert NotesBook().call("read_note", {"note_id": True}).is_error
    assert NotesBook().call("search_notes", {}).is_error
    assert NotesBook().call("list_notes", {"extra": 1}).is_error


def test_an_unknown_tool_raises_naming_every_tool():
    with pytest.raises(UnknownTool, match=r"Unknown tool: delete_notes\. The tools are: "):
        NotesBook().call("delete_notes", {"note_id": 1})


def test_added_and_deleted_notes_keep_their_numbers():
    book = NotesBook()
    assert book.call("add_note", {"title": "茶", "text": "Buy 龙井", "tags": ["home"]}).blocks == (
        "Added note #5: 茶.",
    )
    assert book.call("delete_note", {"note_id": 2}).blocks == ("Deleted note #2 (Shopping).",)
    assert book.call("delete_note", {"note_id": 2}).is_error
    assert json.loads(book.call("tags.list", {}).blocks[0]) == {
        "home": 2,
        "reading": 1,
        "travel": 1,
        "work": 1,
    }


@pytest.mark.parametrize("tool", TOOLS, ids=[tool["name"] for tool in TOOLS])
def test_every_input_schema_is_valid_json_schema_and_the_fast_check_agrees_with_it(tool):
    schema = tool["inputSchema"]
    Draft202012Validator.check_schema(schema)
    validator = Draft202012Validator(schema)
    samples = [{}, {"keyword": "北京"}, {"keyword": 1}, {"note_id": 2}, {"note_id": True},
               {"title": "a", "text": "b", "tags": ["x"]}, {"title": "a", "text": "b", "tags": [1]},
               {"keyword": "a", "limit": 2}, {"other": 1}]  # fmt: skip
    for sample in samples:
        if fits(schema, sample):
            assert validator.is_valid(sample), (tool["name"], sample)


SAMPLE_ARGUMENTS = {
    "search_notes": {"keyword": "a"},
    "read_note": {"note_id": 1},
    "list_notes": {},
    "tags.list": {},
    "add_note": {"title": "茶", "text": "Buy 龙井"},
    "delete_note": {"note_id": 1},
}


def test_tag_counts_come_as_data_beside_their_json_text_and_fit_the_output_schema():
    answer = NotesBook().call("tags.list", {})
    assert answer.data == {"home": 2, "reading": 1, "travel": 1, "work": 1}
    assert json.loads(answer.blocks[0]) == answer.data
    (tool,) = [tool for tool in TOOLS if tool["name"] == "tags.list"]
    Draft202012Validator(tool["outputSchema"]).validate(answer.data)


@pytest.mark.parametrize("tool", TOOLS, ids=[tool["name"] for tool in TOOLS])
def test_only_a_tool_with_an_output_schema_answers_with_data(tool):
    answer = NotesBook().call(tool["name"], SAMPLE_ARGUMENTS[tool["name"]])
    assert not answer.is_error
    assert (answer.data is not None) == ("outputSchema" in tool)
