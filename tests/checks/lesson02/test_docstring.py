"""Exercise 02.3: the solution passes; each rule's wrong answer gets that rule's hint."""

from __future__ import annotations

import inspect
import random
import re

import pytest
from rules import assert_breaks_rule
from solution_cells import rejected

from course_lib.checks import NotDoneYet, evaluate
from course_lib.checks.lesson02.docstring import VISIBLE, random_docstring
from course_lib.reference.docstrings import parse_docstring

from ._solution import edited, solution


def parse(doc):
    return solution()["parse_google_docstring"](doc)


def test_the_solution_passes_every_visible_and_hidden_docstring():
    assert evaluate("02.3", solution()["parse_google_docstring"]) == (
        "Exercise 02.3 passed: parse_google_docstring (11 visible and 40 hidden docstrings)."
    )


def test_the_stub_is_not_done_yet():
    def parse_google_docstring(doc):
        raise NotImplementedError("Exercise 02.3: write it")

    with pytest.raises(NotDoneYet, match="not done yet"):
        evaluate("02.3", parse_google_docstring)


def keeps_type(doc):
    """The name is everything before the colon, so `unit (str)` keeps its type."""
    summary, descriptions = parse(doc)
    renamed = {}
    for line in inspect.cleandoc(doc or "").splitlines():
        key = line.strip().split(":", 1)[0]
        name = key.split("(")[0].strip()
        if name in descriptions and name not in renamed:
            renamed[name] = (key, descriptions[name])
    return summary, dict(renamed.values())


def first_line_only(doc):
    """Continuation lines are dropped: only the entry line's text is kept."""
    summary, descriptions = parse(doc)
    firsts = {}
    for line in inspect.cleandoc(doc or "").splitlines():
        for name in descriptions:
            found = re.match(rf"^{re.escape(name)}\s*(\([^)]*\))?\s*:", line.strip())
            if found and name not in firsts:
                firsts[name] = line.strip().split(":", 1)[1].strip()
    return summary, firsts


def summary_first_line(doc):
    summary, descriptions = parse(doc)
    lines = inspect.cleandoc(doc or "").splitlines()
    return (lines[0].strip() if summary else ""), descriptions


def split_at_every_colon(doc):
    """`name, text = line.split(":")[:2]`: a description's own colon cuts it short."""
    summary, descriptions = parse(doc)
    return summary, {name: text.split(":")[0].strip() for name, text in descriptions.items()}


CELL = "w02-ex3"
WRONG_BY_RULE = {
    "02.3": {
        "tuple": lambda doc: list(parse(doc)),
        "cleandoc": edited(
            "parse_google_docstring",
            (CELL, "lines = inspect.cleandoc(doc).splitlines()", "lines = doc.splitlines()"),
        ),  # fmt: skip
        "type_dropped": keeps_type,
        "continuation": first_line_only,
        "section_end": edited(
            "parse_google_docstring",
            (
                CELL,
                'in_args = text in ("Args:", "Arguments:")\n            current = None',
                'in_args = in_args or text in ("Args:", "Arguments:")',
            ),
        ),  # fmt: skip
        "summary_joined": summary_first_line,
        "summary_header": edited(
            "parse_google_docstring",
            (CELL, "if not line.strip() or line.strip() in headers:", "if not line.strip():"),
        ),
        "arguments": edited(
            "parse_google_docstring",
            (CELL, 'in_args = text in ("Args:", "Arguments:")', 'in_args = text == "Args:"'),
        ),
        "first_colon": split_at_every_colon,
        "empty": edited(
            "parse_google_docstring",
            (CELL, 'if doc is None or not doc.strip():\n        return "", {}\n    lines', "lines"),
        ),
        "blank_inside": edited(
            "parse_google_docstring",
            (
                CELL,
                "if not text:\n            continue",
                "if not text:\n            in_args = False\n            continue",
            ),
        ),  # fmt: skip
    }
}


@pytest.mark.parametrize("rule", sorted(WRONG_BY_RULE["02.3"]))
def test_a_wrong_answer_breaking_one_rule_gets_that_rules_hint(rule):
    assert_breaks_rule("02.3", rule, WRONG_BY_RULE["02.3"][rule])


def test_a_list_is_named_a_list_and_a_tuple_is_shown_as_a_tuple():
    message = rejected("02.3", WRONG_BY_RULE["02.3"]["tuple"])
    assert "Expected: a tuple (summary, descriptions)\nGot:      a list" in message
    message = rejected("02.3", first_line_only)
    assert "Expected: ('Get the weather forecast for a city.',\n" in message
    assert "Got:      ('Get the weather forecast for a city.',\n" in message
    assert '"Get the weather' not in message


def test_none_is_named_in_python_spelling_and_told_what_to_return():
    message = rejected("02.3", WRONG_BY_RULE["02.3"]["empty"])
    assert "Case: parse_google_docstring(None)\nYour code raised AttributeError" in message
    assert 'return ("", {})' in message
    assert "yourself" not in message


def test_a_parser_that_raises_is_told_it_must_not_not_to_run_it_yourself():
    def no_arguments_header(doc):
        if doc and "Arguments:" in doc:
            raise ValueError("unknown section Arguments:")
        return parse(doc)

    message = rejected("02.3", no_arguments_header)
    assert "never raises" in message and "yourself" not in message


def test_glued_continuation_lines_are_named():
    wrong = edited(
        "parse_google_docstring",
        (CELL, 'f"{descriptions[current]} {text}"', 'f"{descriptions[current]}{text}"'),
    )
    assert "not glued together" in rejected("02.3", wrong)


def test_a_summary_with_newlines_is_told_to_join_with_one_space():
    def with_newlines(doc):
        summary, descriptions = parse(doc)
        if not doc or not doc.strip():
            return summary, descriptions
        return inspect.cleandoc(doc).split("\n\n")[0], descriptions

    assert "join lines with exactly one space" in rejected("02.3", with_newlines)


def test_summary_lines_joined_unstripped_are_told_to_strip_each_line():
    """cleandoc keeps a line's trailing spaces and the indentation beyond the common margin: a
    summary of the lines as they are was accepted (no docstring of the check had either)."""
    headers = ("Args:", "Arguments:", "Returns:", "Raises:", "Yields:", "Examples:", "Example:",
               "Note:")  # fmt: skip

    def unstripped(doc):
        summary, descriptions = parse(doc)
        if not doc or not doc.strip():
            return summary, descriptions
        lines = []
        for line in inspect.cleandoc(doc).splitlines():
            if not line.strip() or line.strip() in headers:
                break
            lines.append(line)
        return " ".join(lines), descriptions

    message = rejected("02.3", unstripped)
    assert "parse_google_docstring('Look up a word   \\n" in message
    assert "Strip each line and join lines with exactly one space" in message


def test_the_docstrings_are_stored_both_indented_and_as_python_3_13_dedents_them():
    indented = [doc for doc, _, _ in VISIBLE if doc and "\n    Args:" in doc]
    dedented = [doc for doc, _, _ in VISIBLE if doc and "\nArgs:" in doc]
    assert indented and dedented


def test_descriptions_agree_with_the_reference_which_uses_docstring_parser():
    """Both promise the same parameter descriptions for Google-style docstrings. Intended
    difference: the reference's function description adds the body paragraphs."""
    rng = random.Random("agreement 02.3")
    cases = [doc for doc, _, _ in VISIBLE]
    cases += [
        random_docstring(rng, ["city", "天数", "limit"][: rng.randint(0, 3)])[0] for _ in range(100)
    ]
    for doc in cases:
        assert parse(doc)[1] == parse_docstring(doc).params, doc


def test_a_summary_that_swallows_the_next_paragraph_is_told_where_it_stops():
    def summary_until_args(doc):
        summary, descriptions = parse(doc)
        if not doc or not doc.strip():
            return summary, descriptions
        text = inspect.cleandoc(doc).split("Args:")[0].split("Arguments:")[0]
        return " ".join(text.split()), descriptions

    assert "The summary stops at the first blank line" in rejected("02.3", summary_until_args)


def test_only_the_descriptions_is_told_to_return_a_tuple_of_two():
    assert "Return a tuple of two" in rejected("02.3", lambda doc: parse(doc)[1])


def test_cases_show_the_docstring_in_python_spelling():
    assert "Case: parse_google_docstring('Get the weather" in rejected("02.3", lambda doc: ("", {}))


def test_a_blank_line_that_ends_the_args_section_is_told_to_skip_it():
    message = rejected("02.3", WRONG_BY_RULE["02.3"]["blank_inside"])
    assert "Case: parse_google_docstring('Plan a trip." in message
    assert "A blank line inside Args does not end it" in message


def test_a_docstring_read_uncleaned_from_a_blank_first_line_is_told_to_clean_it_first():
    """The Chinese docstring starts on the line after its quotes: without cleandoc the summary
    loop stops at once, on that empty first line."""
    no_cleandoc = edited(
        "parse_google_docstring",
        (CELL, "lines = inspect.cleandoc(doc).splitlines()", "lines = doc.splitlines()"),
        (CELL, "if indent == 0:", "if indent == 0 or text in headers:"),
    )
    message = rejected("02.3", no_cleandoc)
    assert "Case: parse_google_docstring('\\n    查询城市天气，" in message
    assert "its first line is blank: clean it with inspect.cleandoc(doc) first" in message


def test_none_returned_for_none_is_told_what_to_return_for_none():
    def parse_google_docstring(doc):
        return None if doc is None else parse(doc)

    message = rejected("02.3", parse_google_docstring)
    assert "Case: parse_google_docstring(None)" in message and 'return ("", {})' in message


CONVERT_CASE = "Case: parse_google_docstring('Convert a temperature to one of two units:"


def test_a_deeper_line_that_looks_like_an_entry_is_told_it_continues_the_description():
    every_match_an_entry = edited(
        "parse_google_docstring",
        (CELL, "ENTRY.match(text) if indent <= entry_indent else None", "ENTRY.match(text)"),
    )
    message = rejected("02.3", every_match_an_entry)
    assert CONVERT_CASE in message and 'unexpected key "Default"' in message
    assert "continues the previous description even when it looks like `name: text`" in message


def test_ascii_only_names_are_told_names_may_be_chinese_not_to_clean_the_docstring():
    ascii_names = edited("parse_google_docstring", ("w02-regex", r"^(\w+)", r"^([A-Za-z_]\w*)"))
    message = rejected("02.3", ascii_names)
    assert "Case: parse_google_docstring('\\n    查询城市天气，" in message
    assert "names may be Chinese" in message and "inspect.cleandoc" not in message


def test_a_summary_line_ending_with_a_colon_taken_as_a_header_is_told_it_is_not_one():
    colon_is_a_header = edited(
        "parse_google_docstring",
        (
            CELL,
            "line.strip() in headers:\n            break",
            "line.strip().endswith(':'):\n            break",
        ),
    )
    message = rejected("02.3", colon_is_a_header)
    assert CONVERT_CASE in message
    assert "A summary line may end with a colon" in message


def test_args_ended_only_at_the_listed_headers_is_told_any_unindented_line_ends_it():
    listed_headers_only = edited(
        "parse_google_docstring", (CELL, "if indent == 0:", "if text in headers:")
    )
    message = rejected("02.3", listed_headers_only)
    assert CONVERT_CASE in message and 'unexpected key "Warning"' in message
    assert "The Args section ends at the first line that is not indented" in message


def split_at_the_last_colon(doc):
    """`name, _, text = line.rpartition(":")`: the name swallows the description's own colon."""
    summary, descriptions = parse(doc)
    renamed = {}
    for name, text in descriptions.items():
        before, _, after = f"{name}: {text}".rpartition(":")
        renamed[before] = after.strip()
    return summary, renamed


def test_an_entry_split_at_its_last_colon_is_told_to_split_at_the_first():
    message = rejected("02.3", split_at_the_last_colon)
    assert "Case: parse_google_docstring('Book a table." in message
    assert "Split an entry at its first colon only" in message.split("Hint:")[1]
