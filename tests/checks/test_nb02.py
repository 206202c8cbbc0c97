"""Notebook 02's checks accept its solutions and reject realistic wrong ones with a fitting hint.

The solutions are not copied here: they are executed from the cells of
``solutions/02_reflection.ipynb``. The wrong implementations below are the mistakes learners make
(an ``issubclass`` walk, a shared table, defaults marked required, ...), each written the way a
learner would write it. The last tests show that the solutions agree with ``course_lib.reference``.
"""

from __future__ import annotations

import inspect
import random
import re
import typing
from functools import cache
from typing import Any

import pytest
from solution_cells import load_cells, rejected

from course_lib.checks import NotDoneYet, evaluate, nb02
from course_lib.reference import parameters_schema as reference_parameters_schema
from course_lib.reference.docstrings import parse_docstring

NOTEBOOK = "02_reflection"
# The setup cell (imports), the cell that defines the ENTRY regex, and every exercise cell.
LOADED_CELLS = ("w02-setup", "w02-regex", "w02-ex1", "w02-ex2", "w02-ex3", "w02-ex4", "w02-ex5")


@cache
def solution() -> dict[str, Any]:
    """The names the solution notebook's cells define (their printed output is discarded)."""
    return load_cells(NOTEBOOK, LOADED_CELLS)


@pytest.mark.parametrize(
    ("exercise_id", "name"),
    [
        ("02.1", "json_type"),
        ("02.2", "parameters_schema"),
        ("02.3", "parse_google_docstring"),
        ("02.4", "function_to_tool"),
        ("02.5", "find_drift"),
    ],
)
def test_the_solution_passes_its_check(exercise_id, name):
    assert evaluate(exercise_id, solution()[name]).startswith(f"Exercise {exercise_id} passed")


@pytest.mark.parametrize("exercise_id", ["02.1", "02.2", "02.3", "02.4", "02.5"])
def test_a_stub_is_not_done_yet(exercise_id):
    def stub(*args, **kwargs):
        raise NotImplementedError(f"Exercise {exercise_id}: write it")

    with pytest.raises(NotDoneYet, match="not done yet"):
        evaluate(exercise_id, stub)


# --- 02.1 json_type ----------------------------------------------------------------------------


def json_type_issubclass_walk(annotation):
    if annotation is None:
        return {"type": "null"}
    for python_type, name in [(int, "integer"), (float, "number"), (str, "string"),
                              (bool, "boolean"), (list, "array"), (dict, "object"),
                              (type(None), "null")]:  # fmt: skip
        if isinstance(annotation, type) and issubclass(annotation, python_type):
            return {"type": name}
    raise TypeError(f"cannot map {annotation!r}")


def basic_table() -> dict:
    return {str: {"type": "string"}, int: {"type": "integer"}, float: {"type": "number"},
            bool: {"type": "boolean"}, list: {"type": "array"}, dict: {"type": "object"},
            type(None): {"type": "null"}}  # fmt: skip


SHARED_TABLE = basic_table()  # only json_type_shared_table uses it: the check changes it


def json_type_shared_table(annotation):
    if annotation is None:
        annotation = type(None)
    if annotation not in SHARED_TABLE:
        raise TypeError(f"cannot map {annotation!r}")
    return SHARED_TABLE[annotation]  # the caller's changes land in the table


def json_type_key_error(annotation):
    if annotation is None:
        annotation = type(None)
    return dict(basic_table()[annotation])  # KeyError for anything else


def json_type_string_fallback(annotation):
    if annotation is None:
        annotation = type(None)
    return dict(basic_table().get(annotation, {"type": "string"}))


def json_type_forgets_none(annotation):
    if annotation is None:
        raise TypeError("None is not a type")
    return json_type_key_error(annotation)


def json_type_silent_message(annotation):
    if annotation is None or annotation not in basic_table():
        if annotation is None:
            return {"type": "null"}
        raise TypeError("unsupported")
    return dict(basic_table()[annotation])


@pytest.mark.parametrize(
    ("wrong", "hint"),
    [
        (json_type_issubclass_walk, "bool is a subclass of int"),
        (json_type_shared_table, "Return a new dict on every call"),
        (json_type_key_error, "Raise TypeError (not KeyError)"),
        (json_type_string_fallback, "must raise TypeError"),
        (json_type_forgets_none, "Your code raised TypeError"),
        (json_type_silent_message, "does not mention complex"),
    ],
)
def test_json_type_rejects(wrong, hint):
    assert hint in rejected("02.1", wrong)


# --- 02.2 parameters_schema --------------------------------------------------------------------


def make_parameters_schema(*, required_rule=None, defaults=True, closed=True, use_hints_keys=False):
    """A learner's parameters_schema with one mistake switched on."""
    json_type = solution()["json_type"]

    def parameters_schema(func):
        hints = typing.get_type_hints(func)
        parameters = inspect.signature(func).parameters
        names = list(hints) if use_hints_keys else list(parameters)
        properties = {}
        for name in names:
            properties[name] = json_type(hints[name])
            default = parameters[name].default if name in parameters else inspect.Parameter.empty
            if defaults and default is not inspect.Parameter.empty:
                properties[name]["default"] = default
        required = [n for n in parameters if parameters[n].default is inspect.Parameter.empty]
        if required_rule:
            required = required_rule(parameters, required)
        schema = {"type": "object", "properties": properties, "required": required}
        if closed:
            schema["additionalProperties"] = False
        return schema

    return parameters_schema


def parameters_as_list(func):
    schema = solution()["parameters_schema"](func)
    schema["properties"] = [{"name": n, **s} for n, s in schema["properties"].items()]
    return schema


@pytest.mark.parametrize(
    ("wrong", "hint"),
    [
        (make_parameters_schema(closed=False), '"additionalProperties": false'),
        (
            make_parameters_schema(required_rule=lambda params, req: list(params)),
            "A parameter with a default is optional",
        ),
        (
            make_parameters_schema(required_rule=lambda params, req: req[:-1]),
            "Every parameter without a default belongs in required",
        ),
        (
            make_parameters_schema(required_rule=lambda params, req: sorted(req)),
            "signature order",
        ),
        (make_parameters_schema(defaults=False), 'add "default"'),
        (make_parameters_schema(use_hints_keys=True), "'return' is not a parameter"),
        (parameters_as_list, "not a list"),
    ],
)
def test_parameters_schema_rejects(wrong, hint):
    assert hint in rejected("02.2", wrong)


# --- 02.3 parse_google_docstring ---------------------------------------------------------------


def docstring_keeps_type(doc):
    """The name is everything before the colon, so `unit (str)` keeps its type."""
    summary, descriptions = solution()["parse_google_docstring"](doc)
    renamed = {}
    for line in inspect.cleandoc(doc or "").splitlines():
        key = line.strip().split(":", 1)[0]
        name = key.split("(")[0].strip()
        if name in descriptions and name not in renamed:
            renamed[name] = (key, descriptions[name])
    return summary, dict(renamed.values())


def docstring_first_line_only(doc):
    """Continuation lines are dropped: only the entry line's text is kept."""
    summary, descriptions = solution()["parse_google_docstring"](doc)
    lines = inspect.cleandoc(doc or "").splitlines()
    firsts = {}
    for line in lines:
        stripped = line.strip()
        for name in descriptions:
            if re.match(rf"^{re.escape(name)}\s*(\([^)]*\))?\s*:", stripped) and name not in firsts:
                firsts[name] = stripped.split(":", 1)[1].strip()
    return summary, firsts


def docstring_summary_until_args(doc):
    """The summary runs up to Args:, swallowing the second paragraph."""
    summary, descriptions = solution()["parse_google_docstring"](doc)
    if not doc or not doc.strip():
        return summary, descriptions
    text = inspect.cleandoc(doc).split("Args:")[0].split("Arguments:")[0]
    return " ".join(text.split()), descriptions


def docstring_never_leaves_args(doc):
    """Every indented `name: text` line after Args: counts, Returns and Raises entries too."""
    summary, descriptions = solution()["parse_google_docstring"](doc)
    if not doc:
        return summary, descriptions
    found = dict(descriptions)
    for line in inspect.cleandoc(doc).splitlines():
        match = re.match(r"^\s+(\w+)\s*:\s*(.*)$", line)
        if match and match.group(1) not in found:
            found[match.group(1)] = match.group(2)
    return summary, found


def docstring_with_newlines(doc):
    summary, descriptions = solution()["parse_google_docstring"](doc)
    if not doc or not doc.strip():
        return summary, descriptions
    first_paragraph = inspect.cleandoc(doc).split("\n\n")[0]
    return first_paragraph, descriptions


@pytest.mark.parametrize(
    ("wrong", "hint"),
    [
        (docstring_keeps_type, "Drop the `(type)` part"),
        (docstring_first_line_only, "continues the previous description"),
        (docstring_summary_until_args, "The summary stops at the first blank line"),
        (docstring_never_leaves_args, "The Args section ends at the first line that is not"),
        (docstring_with_newlines, "join lines with exactly one space"),
        (lambda doc: solution()["parse_google_docstring"](doc)[1], "Return a tuple of two"),
    ],
)
def test_parse_google_docstring_rejects(wrong, hint):
    assert hint in rejected("02.3", wrong)


# --- 02.4 function_to_tool ---------------------------------------------------------------------


def tool_without_wrapper(func, *, description=None):
    return solution()["function_to_tool"](func, description=description)["function"]


def tool_ignores_override(func, *, description=None):
    tool = solution()["function_to_tool"](func, description=description)
    tool["function"]["description"] = solution()["parse_google_docstring"](func.__doc__)[0]
    return tool


def tool_without_parameter_descriptions(func, *, description=None):
    tool = solution()["function_to_tool"](func, description=description)
    tool["function"]["parameters"] = solution()["parameters_schema"](func)
    return tool


def tool_with_whole_docstring(func, *, description=None):
    tool = solution()["function_to_tool"](func, description=description)
    if description is None:
        tool["function"]["description"] = inspect.cleandoc(func.__doc__)
    return tool


def tool_describes_every_parameter(func, *, description=None):
    tool = solution()["function_to_tool"](func, description=description)
    for schema in tool["function"]["parameters"]["properties"].values():
        schema.setdefault("description", "")
    return tool


def tool_without_value_error(func, *, description=None):
    summary, descriptions = solution()["parse_google_docstring"](func.__doc__)
    tool = solution()["function_to_tool"](func, description=description or summary or " ")
    if not (description or summary):
        tool["function"]["description"] = ""
    return tool


@pytest.mark.parametrize(
    ("wrong", "hint"),
    [
        (tool_without_wrapper, 'Wrap it: {"type": "function"'),
        (tool_ignores_override, "Use the description argument when it is given"),
        (tool_without_parameter_descriptions, "Put each documented parameter's description"),
        (tool_with_whole_docstring, "summary only, not the whole docstring"),
        (tool_describes_every_parameter, "does not document gets no"),
        (tool_without_value_error, "raise ValueError naming the function"),
    ],
)
def test_function_to_tool_rejects(wrong, hint):
    assert hint in rejected("02.4", wrong)


# --- 02.5 find_drift ---------------------------------------------------------------------------


def drift_also_required_for_missing(func, tool):
    """A parameter absent from the tool is also reported as a required mismatch."""
    lines = solution()["find_drift"](func, tool)
    required = set(tool["function"]["parameters"].get("required", []))
    for name, parameter in inspect.signature(func).parameters.items():
        absent = name not in tool["function"]["parameters"].get("properties", {})
        if absent and parameter.default is inspect.Parameter.empty and name not in required:
            lines.append(f"required: {name} is required in the function but optional in the tool")
    return lines


def drift_swapped_words(func, tool):
    swap = {"missing": "extra", "extra": "missing"}
    lines = solution()["find_drift"](func, tool)
    return [swap.get(line.split(":")[0], line.split(":")[0]) + ":" + line.split(":", 1)[1]
            for line in lines]  # fmt: skip


def drift_free_wording(func, tool):
    lines = solution()["find_drift"](func, tool)
    return [f"Parameter {line.split(': ')[1].split()[0]} drifted" for line in lines]


def drift_ignores_required(func, tool):
    return [line for line in solution()["find_drift"](func, tool) if line.startswith("required")
            is False]  # fmt: skip


def drift_ignores_types(func, tool):
    return [line for line in solution()["find_drift"](func, tool) if not line.startswith("type")]


def drift_type_without_types(func, tool):
    return [line.split(" is ")[0] if line.startswith("type") else line
            for line in solution()["find_drift"](func, tool)]  # fmt: skip


@pytest.mark.parametrize(
    ("wrong", "hint"),
    [
        (drift_also_required_for_missing, "gets only its `missing` line"),
        (drift_swapped_words, "`missing` is in the function but not in the tool"),
        (drift_free_wording, "Start every line with its kind"),
        (drift_ignores_required, "Compare required on both sides"),
        (drift_ignores_types, 'Compare the "type"'),
        (drift_type_without_types, "names both JSON types"),
        (lambda func, tool: "\n".join(solution()["find_drift"](func, tool)), "list of strings"),
    ],
)
def test_find_drift_rejects(wrong, hint):
    assert hint in rejected("02.5", wrong)


# --- agreement with course_lib.reference -------------------------------------------------------


def test_parameters_schema_agrees_with_the_reference_on_generated_functions():
    """Intended differences, kept out of these cases: the reference adds docstring descriptions
    (02.4 does that here; these functions have no docstring) and leaves out an empty "required"
    (02.2 always writes it, so a learner never has to remember a special case)."""
    rng = random.Random("agreement 02.2")
    mine = solution()["parameters_schema"]
    for index in range(200):
        func, text = nb02.random_basic_function(rng, index)
        assert mine(func) == {"required": [], **reference_parameters_schema(func)}, text


def test_docstring_parsing_agrees_with_the_reference():
    """Same parameter descriptions. Intended difference: the reference's function description
    is the summary *and* the body paragraphs (more context for the model), while 02.3's summary is
    the first paragraph only, so the reference's text starts with the course's summary."""
    rng = random.Random("agreement 02.3")
    cases = [(doc, summary, descriptions) for doc, summary, descriptions in nb02.VISIBLE_DOCS]
    for _ in range(200):
        names = rng.sample(nb02.NAMES, rng.randint(0, 4))
        cases.append(nb02.random_docstring(rng, names))
    parse = solution()["parse_google_docstring"]
    for doc, _, _ in cases:
        summary, descriptions = parse(doc)
        reference = parse_docstring(doc)
        assert descriptions == reference.params, doc
        assert " ".join(reference.description.split()).startswith(summary), doc


# --- fixes after a learner test: mistakes the checks used to miss or misdiagnose ----------------


def edited(name: str, *edits: tuple[str, str, str]) -> Any:
    """The solution's ``name`` from the notebook's cells with ``edits`` (cell, old, new) applied."""
    return load_cells(NOTEBOOK, LOADED_CELLS, edits=edits)[name]


def test_a_missing_type_error_is_expected_in_python_words_not_as_a_json_string():
    message = rejected("02.1", json_type_string_fallback)
    assert "Expected: a TypeError" in message
    assert 'Expected: "TypeError"' not in message


def test_annotations_read_as_stored_are_named_as_the_mistake():
    """The check's own functions live in a module with `from __future__ import annotations`, so
    `__annotations__` holds strings there: the hint must say so, not 'run this case yourself'."""
    wrong = edited(
        "parameters_schema", ("w02-ex2", "typing.get_type_hints(func)", "func.__annotations__")
    )
    message = rejected("02.2", wrong)
    assert "typing.get_type_hints(func), not from __annotations__" in message
    assert "run this case yourself" not in message


SUMMARY_UNTIL_BLANK = (
    "w02-ex3",
    "if not line.strip() or line.strip() in headers:",
    "if not line.strip():",
)


@pytest.mark.parametrize(
    ("edits", "hint"),
    [
        ([SUMMARY_UNTIL_BLANK], "or the first section header (such as Args:)"),
        (
            [("w02-ex3", 'f"{descriptions[current]} {text}"', 'f"{descriptions[current]}{text}"')],
            "not glued together",
        ),
        (
            [
                (
                    "w02-ex3",
                    'in_args = text in ("Args:", "Arguments:")\n            current = None',
                    'in_args = in_args or text in ("Args:", "Arguments:")',
                )
            ],
            "the lines after it do not continue the last description",
        ),
    ],
)
def test_parse_google_docstring_rejects_edited_solution(edits, hint):
    assert hint in rejected("02.3", edited("parse_google_docstring", *edits))


def docstring_split_at_every_colon(doc):
    """`name, text = line.split(":")[:2]`: a description's own colon cuts it short."""
    summary, descriptions = solution()["parse_google_docstring"](doc)
    return summary, {name: text.split(":")[0].strip() for name, text in descriptions.items()}


def test_splitting_an_entry_at_every_colon_is_named():
    assert "Split an entry at its first colon only" in rejected(
        "02.3", docstring_split_at_every_colon
    )


def test_a_list_instead_of_the_tuple_is_rejected():
    message = rejected("02.3", lambda doc: list(solution()["parse_google_docstring"](doc)))
    assert "Return a tuple, as the signature says" in message


def test_docstring_cases_show_inputs_in_python_spelling():
    def wrong_for_none(doc):
        return ("", {"doc": "none"}) if doc is None else solution()["parse_google_docstring"](doc)

    message = rejected("02.3", wrong_for_none)
    assert "Case: parse_google_docstring(None)" in message
    assert "Case: parse_google_docstring('Get the weather" in rejected("02.3", lambda doc: ("", {}))


@pytest.mark.parametrize(
    ("edits", "hint"),
    [
        (
            [
                (
                    "w02-ex4",
                    "if description is None:\n        description = summary",
                    "description = summary",
                )
            ],  # fmt: skip
            "A description argument was given ('把两个数相加。Add two numbers.'): use it",
        ),
        (
            [("w02-ex4", "if description is None:", "if not description:")],
            'description="" is given (it is not None), and it is empty: raise ValueError',
        ),
    ],
)
def test_function_to_tool_rejects_edited_solution(edits, hint):
    assert hint in rejected("02.4", edited("function_to_tool", *edits))


def test_a_later_exercise_failing_inside_a_broken_earlier_one_says_which_to_fix_first():
    edits = [("w02-ex2", "typing.get_type_hints(func)", "func.__annotations__")]
    namespace = load_cells(NOTEBOOK, LOADED_CELLS, edits=edits)
    for exercise_id, name in (("02.4", "function_to_tool"), ("02.5", "find_drift")):
        message = rejected(exercise_id, namespace[name])
        assert "calls your parameters_schema, which does not pass its own check" in message
        assert "fix 02.2 first" in message


def test_a_later_exercise_failing_on_its_own_does_not_blame_the_earlier_ones():
    wrong = edited(
        "function_to_tool", ("w02-ex4", "if description is None:", "if not description:")
    )
    assert "first" not in rejected("02.4", wrong).split("Hint:")[-1]


@pytest.mark.parametrize(
    ("edits", "hint"),
    [
        (
            [
                (
                    "w02-ex5",
                    "if my_type != their_type:",
                    "if their_type is not None and my_type != their_type:",
                )
            ],  # fmt: skip
            'A tool property without "type" counts as a different type',
        ),
        (
            [("w02-ex5", 'their_properties[name].get("type")', 'their_properties[name]["type"]')],
            'read it with .get("type")',
        ),
    ],
)
def test_find_drift_rejects_edited_solution(edits, hint):
    assert hint in rejected("02.5", edited("find_drift", *edits))
