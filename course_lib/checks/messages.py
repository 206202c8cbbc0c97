"""Every sentence the check machinery itself says to a learner, in one place.

Each message is a whole sentence (or a few) with named placeholders, looked up by key; its
translations live in ``course_lib/locale/<lang>/messages.po`` (``course_lib.i18n.messages``).
Check modules keep their own hints the same way, in a ``HINTS`` table at the top of the module.
"""

from __future__ import annotations

from collections.abc import Iterable

from course_lib.i18n import translate

MESSAGES: dict[str, str] = {
    # the lines of a failure
    "header_failed": "Exercise {id} ({title}) is not right yet.",
    "header_not_done": "Exercise {id} ({title}) is not done yet.",
    "line_case": "Case: {case}",
    "line_expected": "Expected: {expected}",
    "line_got": "Got:      {got}",
    "line_raised": "Your code raised {raised}",
    "line_where": "Where:    {where}",
    "line_hint": "Hint: {hint}",
    "not_done_tail": (
        "Write your solution in the exercise cell above, run that cell, then run this check "
        "again. Nothing is wrong: this is where every exercise starts."
    ),
    "passed": "Exercise {id} passed: {title}.",
    "passed_summary": "Exercise {id} passed: {title} ({summary}).",
    # scenarios (checks with partial credit)
    "scenarios_failed": (
        "{failed} of {count} scenarios failed; the ones that passed earn {earned} of {total} "
        "points. What went wrong in each:"
    ),
    "scenario_line": "  ✗ {id} ({title}): {hint}",
    "scenario_details": (
        "Details of each failed scenario (the case, what was expected and what came back, the "
        "conversation) follow below."
    ),
    "scenario_title": "Scenario {id}: {title}",
    "scenarios_passed": "{count} scenarios",
    # why it is not done yet
    "stub": 'The stub says "{text}".',
    "stub_empty": "A function still raises NotImplementedError.",
    "placeholder": "`{name}` is still `...`.",
    "target_missing": (
        "There is no `{name}` in the notebook yet: define it in the exercise cell of "
        "exercise {id} and run that cell."
    ),
    # where two values differ (compare.first_difference): the Where line
    "at_path": "at {path}: {difference}",
    "expected_got": "expected {expected}, got {got}",
    "missing_key": "missing key {name}",
    "unexpected_key": "unexpected key {name}",
    "item_count": "expected {expected} items, got {got}",
    "texts_differ": "the texts differ from character {at} on: expected {expected}, got {got}",
    "texts_differ_want_end": (
        "the texts differ from character {at} on: expected the text to end here, got {got}"
    ),
    "texts_differ_got_end": (
        "the texts differ from character {at} on: expected {expected}, got the end of the text"
    ),
    # a value named with its JSON kind (expected_got's {expected} and {got})
    "kind_null": "null",
    "kind_object": "an object {value}",
    "kind_array": "an array {value}",
    "kind_string": "a string {value}",
    "kind_number": "a number {value}",
    "kind_boolean": "a boolean {value}",
    "kind_other": "a {kind} {value}",
    "kind_other_an": "an {kind} {value}",
    # a long value cut short in Expected or Got
    "more_characters": "{text}… ({count} more characters)",
    # a list of names ("a, b and c"), built one name at a time
    "names_more": "{names}, {name}",
    "names_last": "{names} and {name}",
    # generic hints
    "generic": "Compare what you returned with the expected value, piece by piece.",
    "run_it_yourself": "Run this case yourself in a new cell to see the full traceback.",
    "endless_cpu": (
        "Your code used {seconds:g} seconds of CPU time on this one case without finishing, so "
        "the check stopped it: it is most likely stuck in an endless loop."
    ),
    "endless_requests": (
        "Your code sent the model more than {count} requests in this one case without "
        "finishing, so the check stopped it: a loop that asks the model again and again."
    ),
    "endless_loop": (
        "Look for a loop that never reaches its end (a while loop whose condition never changes, "
        "or a value made again the same on every turn): run this case yourself in a new cell, "
        "interrupt the kernel, and the traceback shows where it was."
    ),
    "endless_model_loop": (
        "Your loop never ends: stop when a reply has no tool calls (that reply is the answer), "
        "and after the turns the exercise allows. Print what each reply holds to see why your "
        "test for the end never holds."
    ),
    "call_case": "{name}(...)",
    "not_callable": (
        "Expected a function (or class) to call, but found a {kind}: {value}. Define it with "
        "`def` (or `class`) in the exercise cell and run that cell."
    ),
    "not_json": (
        "The result cannot be turned into JSON ({problem}). Use only dicts with string keys, "
        "lists, strings, numbers, booleans and None."
    ),
    # the machinery itself
    "unknown_exercise": (
        "There is no exercise {id}. Known exercises: {known}. Check the id in the check cell "
        "(it should match the exercise cell above it)."
    ),
    "wrong_target_count": (
        "check({id!r}, ...) takes {count} target(s) ({names}) but got {given}. Restore the "
        "check cell to `check({id!r}, {names})`."
    ),
    "none_registered": "none registered",
    "unreadable_reply": (
        "The check could not read what the notebook answered. Restart the kernel, run the "
        "cells above again, then run this check."
    ),
    "driver_error": (
        "The check could not run a case in the notebook ({error}). Restart the kernel, run the "
        "cells above again, then run this check."
    ),
}


def say(key: str, **fields: object) -> str:
    """The message ``key`` in the learner's language (``course_lib.i18n``), placeholders filled."""
    return translate(MESSAGES, key, **fields)


def names_list(names: Iterable[str]) -> str:
    """``names`` as a list in the learner's language ("a, b and c"; in Chinese "a、b 和 c")."""
    *first, last = names
    if not first:
        return last
    listed = first[0]
    for name in first[1:]:
        listed = say("names_more", names=listed, name=name)
    return say("names_last", names=listed, name=last)


def stub_text(text: str) -> str:
    text = text.strip()
    return say("stub", text=text) if text else say("stub_empty")
