"""Exercise 08.2: the solution passes; a wrong mcp_tools_to_openai fails on the rule it breaks.

The check builds real ``mcp_types.Tool`` objects beside the learner's code, as a listing brings
them, so the wrong answers below are mistakes a learner makes with the SDK's objects.
"""

from __future__ import annotations

import signal

import mcp_types as types
import pytest
from rules import assert_breaks_rule
from solution_cells import rejected

from course_lib.checks import EXERCISES, NotDoneYet, evaluate, learner
from course_lib.checks.compare import hidden_rng
from course_lib.checks.lesson08.openai_tools import LONG_CASE, VISIBLE, hidden_cases
from course_lib.reference.mcp_client import mcp_tools_to_openai

from .notebook import edited, solution

CELL = "w08-ex2"


def converting_with(*edits):
    return edited("mcp_tools_to_openai", *((CELL, old, new) for old, new in edits))


SANITISE = 'name = "".join(c if c.isascii() and (c.isalnum() or c in "_-") else "_" for c in name)'
WRONG_BY_RULE = {
    "08.2": {
        "shape": converting_with(
            ('converted.append({"type": "function", "function": function})',
             'converted.append({"type": "function", **function})')
        ),
        "parameters": converting_with(
            ('"parameters": tool.input_schema,',
             '"parameters": {"type": "object", "properties": tool.input_schema["properties"]},')
        ),
        "description": converting_with(
            ('"description": tool.description or "",', '"description": tool.description,')
        ),
        "allowed": converting_with((SANITISE, 'name = name.replace(".", "_")')),
        "prefix": converting_with(
            ('name = f"{prefix}_{tool.name}"', 'name = f"{prefix}{tool.name}"')
        ),
        "cut": converting_with(("base = candidate = name[:64]", "base = candidate = name")),
        "unique": converting_with(("        taken.add(candidate)\n", "")),
        "suffix_fits": converting_with(
            ("candidate = base[: 64 - len(suffix)] + suffix", "candidate = base + suffix")
        ),
    }
}  # fmt: skip


def test_the_solution_passes_every_listing():
    assert evaluate("08.2", solution("mcp_tools_to_openai")) == (
        "Exercise 08.2 passed: mcp_tools_to_openai (16 listings)."
    )


def test_the_reference_conversion_passes_too():
    assert evaluate("08.2", mcp_tools_to_openai).startswith("Exercise 08.2 passed")


def test_the_exercise_is_registered_with_its_notebook_points_and_target():
    spec = EXERCISES["08.2"]
    assert (spec.notebook, spec.points, spec.targets) == ("08_mcp", 2, ("mcp_tools_to_openai",))


@pytest.mark.parametrize("rule", sorted(WRONG_BY_RULE["08.2"]))
def test_a_wrong_answer_breaking_one_rule_gets_that_rules_hint(rule):
    assert_breaks_rule("08.2", rule, WRONG_BY_RULE["08.2"][rule])


@pytest.mark.parametrize(
    "edit, says",
    [
        ((SANITISE, 'name = "".join(c if c.isalnum() or c in "_-" else "_" for c in name)'),
         "str.isalnum() also accepts 中文"),
        (("number = 2", "number = 1"), "The first repeat of a name gets _2"),
        (('else "_" for c in name)', 'else "" for c in name)'), "do not drop it"),
        (('c in "_-"', 'c == "_"'), "- is one of the characters the API accepts"),
        (("name[:64]", "name[:64].lower()"), "Keep each letter as it is"),
        (("name[:64]", "name[:63]"), "not shorter (63 here)"),
        (("    for tool in tools:", "    for tool in sorted(tools, key=lambda t: t.name):"),
         "Keep the listing's order"),
        (('"parameters": tool.input_schema,', '"parameters": tool.input_schema, "strict": True,'),
         "leave out 'strict'"),
        (('tool.description or ""', 'tool.description or tool.title or ""'),
         'A tool without a description gets ""'),
        (("tool.input_schema", "tool.inputSchema"), "tool.input_schema (inputSchema is its name"),
        (('suffix = f"_{number}"', 'suffix = f"-{number}"'),
         "The suffix is an underscore and a number, _2 (then _3, ...): 'notes_search-2'"),
        (('suffix = f"_{number}"', 'suffix = f"{number}"'),
         "'notes_search2' should be 'notes_search_2'"),
        (('else "_" for c in name)', 'else "-" for c in name)'),
         "Replace each refused character by _, not by -"),
        (("for c in name)", 'for c in name.encode("utf-8").decode("latin-1"))'),
         "by one _, however many bytes it takes in UTF-8"),
        (('else tool.name', 'else tool["name"]'), "An MCP Tool is an object"),
    ],
)  # fmt: skip
def test_other_mistakes_get_the_hint_that_names_them(edit, says):
    assert says in rejected("08.2", converting_with(edit))


def test_one_suffix_counter_for_every_name_is_told_each_name_counts_its_own_repeats():
    shared = converting_with(
        ("    taken = set()\n", "    taken = set()\n    number = 2\n"),
        ("        number = 2\n", ""),
    )
    assert "each name counting its own repeats" in rejected("08.2", shared)


def test_a_suffix_added_and_then_cut_away_again_is_stopped_and_told_to_cut_first(monkeypatch):
    # The name with its _2, cut to 64, is the taken name again: the loop never ends. The check
    # stops it once it has used its CPU budget (course_lib.case_budget), not a wall-clock time;
    # a small budget here only saves time: the loop never returns, so any budget is reached.
    monkeypatch.setitem(learner.BUDGET, "cpu", 0.5)
    endless = converting_with(
        ("candidate = base[: 64 - len(suffix)] + suffix", "candidate = (base + suffix)[:64]")
    )
    message = rejected("08.2", endless)
    assert f"Case: {LONG_CASE}" in message
    assert "used 0.5 seconds of CPU time on this one case without finishing" in message
    assert "Your search for a free name never ends" in message
    assert "Cut first, then add the suffix" in message
    assert signal.getsignal(signal.SIGXCPU) is signal.SIG_DFL


def test_a_suffix_cut_to_fit_and_checked_again_passes():
    # the other way out the hint names: add the suffix, cut, and look again until it is free
    again = converting_with(
        ("candidate = base[: 64 - len(suffix)] + suffix",
         "candidate = (base + suffix)[:64]\n"
         "            if candidate in taken:\n"
         "                candidate = base[: 64 - len(suffix)] + suffix"),
    )  # fmt: skip
    assert evaluate("08.2", again).startswith("Exercise 08.2 passed")


def test_a_name_no_specific_hint_knows_is_still_named_with_what_was_expected():
    # a long name cut from its end: no mistake the check knows by name
    wrong = converting_with(("base = candidate = name[:64]", "base = candidate = name[-64:]"))
    message = rejected("08.2", wrong)
    assert "The names differ from the expected ones at 't_messages_of_every" in message
    assert "piece by piece" not in message


def test_the_stub_is_not_done_yet():
    def mcp_tools_to_openai(tools, *, prefix=None):
        raise NotImplementedError("Exercise 08.2: one tool per MCP tool")

    with pytest.raises(NotDoneYet, match="not done yet"):
        evaluate("08.2", mcp_tools_to_openai)


def test_the_visible_listings_hold_the_names_the_rules_are_about():
    collision, unicode, long = (
        mcp_tools_to_openai([types.Tool.model_validate(t) for t in tools], prefix=prefix)
        for tools, prefix in VISIBLE[3:6]
    )
    names = [[tool["function"]["name"] for tool in case] for case in (collision, unicode, long)]
    assert names[0] == ["notes_search", "notes_search_2", "notes_search_3"]
    assert names[1] == ["my_server_____", "my_server_list_notes", "my_server_read-note"]
    assert [len(name) for name in names[2]] == [64, 64, 64]
    assert names[2][1].endswith("_2") and len(set(names[2])) == 3


def test_hidden_listings_are_fixed_and_hold_collisions_and_odd_characters():
    cases = hidden_cases(hidden_rng("08.2"))
    assert cases == hidden_cases(hidden_rng("08.2"))
    converted = [
        mcp_tools_to_openai([types.Tool.model_validate(t) for t in tools], prefix=prefix)
        for tools, prefix in cases
    ]
    names = [tool["function"]["name"] for case in converted for tool in case]
    assert any("_2" in name for name in names)
    originals = [tool["name"] for tools, _ in cases for tool in tools]
    assert any(not name.isascii() for name in originals)
    assert any(prefix is not None for _, prefix in cases)


def converted_with_a_regex(tools, *, prefix=None):
    """re.sub for the characters, a counter per name for the suffix."""
    import re

    out, seen = [], set()
    for tool in tools:
        raw = tool.name if prefix is None else prefix + "_" + tool.name
        name = re.sub(r"[^A-Za-z0-9_-]", "_", raw)[:64]
        unique, number = name, 1
        while unique in seen:
            number += 1
            unique = name[: 64 - len(f"_{number}")] + f"_{number}"
        seen.add(unique)
        description = tool.description if tool.description is not None else ""
        function = {"name": unique, "description": description, "parameters": tool.input_schema}
        out.append({"type": "function", "function": function})
    return out


def test_a_conversion_written_differently_passes_too():
    assert evaluate("08.2", converted_with_a_regex).startswith("Exercise 08.2 passed")


def numbered_by_count(tools, *, prefix=None):
    """Each name's suffix counted from how often that name came before (a Counter), not the
    first suffix not taken: a suffixed name can land on a name an earlier tool already has."""
    import re
    from collections import Counter

    out, seen = [], Counter()
    for tool in tools:
        raw = tool.name if prefix is None else f"{prefix}_{tool.name}"
        name = re.sub(r"[^A-Za-z0-9_-]", "_", raw)[:64]
        seen[name] += 1
        if seen[name] > 1:
            suffix = f"_{seen[name]}"
            name = name[: 64 - len(suffix)] + suffix
        description = tool.description or ""
        function = {"name": name, "description": description, "parameters": tool.input_schema}
        out.append({"type": "function", "function": function})
    return out


def test_a_suffix_counted_per_name_instead_of_the_first_one_not_taken_is_refused_as_a_repeat():
    # found by a learner walkthrough: no listing had a name that a suffix lands on
    message = rejected("08.2", numbered_by_count)
    assert "Two tools ended up with the same name (tags_2)" in message


def test_a_prefix_joined_other_than_by_one_underscore_is_told_the_prefix_rule():
    # found by a learner walkthrough: 'notes__search_notes' was told to replace characters one
    # by one (UTF-8 bytes), a mistake it does not make
    for joined in ('f"{prefix}__{tool.name}"', 'f"{prefix}-{tool.name}"'):
        wrong = converting_with(('f"{prefix}_{tool.name}"', joined))
        message = rejected("08.2", wrong)
        assert 'With a prefix, a name is prefix + "_" + the tool\'s name' in message, message
