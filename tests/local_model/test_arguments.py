"""Filling arguments from the request text: numbers wherever a sentence puts them."""

import pytest

from course_lib.local_model.arguments import fill_arguments

NOTES = {
    "name": "search_notes",
    "parameters": {
        "type": "object",
        "properties": {"keyword": {"type": "string"}, "limit": {"type": "integer"}},
        "required": ["keyword"],
    },
}


@pytest.mark.parametrize(
    "request_text, limit",
    [
        ("Search my notes for 豆腐, at most 2.", 2),
        ("Search my notes for 豆腐, at most 2", 2),
        ("Search my notes for tofu (limit 4).", 4),
        ("Search my notes for tofu, limit 7!", 7),
    ],
)
def test_a_number_ending_a_sentence_is_still_found(request_text, limit):
    assert fill_arguments(NOTES, request_text).calls[0]["limit"] == limit


def test_a_dotted_version_is_not_read_as_a_number():
    filled = fill_arguments(NOTES, "Search my notes for release 1.2.3")
    assert "limit" not in filled.calls[0]
