"""Notebook 04's checks accept its solutions and reject realistic wrong ones with a fitting hint.

The solutions are not copied here: the exercise cells of ``solutions/04_registry.ipynb`` are
executed, and each wrong solution is that same code with one realistic mistake edited in.
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any

import nbformat
import pytest
from solution_cells import SOLUTIONS, Edit, load_cells, rejected

from course_lib.checks import NotDoneYet, evaluate, nb04
from course_lib.reference import ToolRegistry as ReferenceRegistry
from course_lib.reference import to_text as reference_to_text
from course_lib.reference import validate_arguments as reference_validate

NOTEBOOK = "04_registry"
# The setup cell (imports), then the exercise cells.
CELLS = ("w04-setup", "w04-ex1-code", "w04-ex2-code", "w04-ex3-code", "w04-ex4-code")


def load(*edits: Edit) -> dict[str, Any]:
    """The names the cells define, with each (cell id, old, new) mistake edited in."""
    return load_cells(NOTEBOOK, CELLS, edits=edits)


@cache
def solution() -> dict[str, Any]:
    return load()


def wrong(cell: str, old: str, new: str, name: str) -> Any:
    return load((cell, old, new))[name]


# --- the solutions pass, the stubs are "not done yet" -----------------------------------------


@pytest.mark.parametrize(
    ("exercise_id", "name"),
    [
        ("04.1", "ToolRegistry"),
        ("04.2", "validate_arguments"),
        ("04.3", "DispatchRegistry"),
        ("04.4", "to_text"),
    ],
)
def test_solution_passes(exercise_id, name):
    assert evaluate(exercise_id, solution()[name]).startswith(f"Exercise {exercise_id} passed")


def test_stubbed_registry_is_not_done_yet():
    stub = wrong(
        "w04-ex1-code",
        "        return list(self._tools)\n",
        '        raise NotImplementedError("Exercise 04.1: stub")\n',
        "ToolRegistry",
    )
    with pytest.raises(NotDoneYet):
        evaluate("04.1", stub)


def test_points_match_the_exercise_cells():
    nb = nbformat.read(SOLUTIONS / f"{NOTEBOOK}.ipynb", as_version=4)
    for cell in nb.cells:
        exercise = cell.metadata.get("course", {}).get("exercise")
        if exercise:
            assert nb04_points(exercise) == cell.metadata["course"]["points"]


def nb04_points(exercise_id: str) -> int:
    from course_lib.checks import EXERCISES

    return EXERCISES[exercise_id].points


# --- 04.1 ToolRegistry ---------------------------------------------------------------------------


def test_registry_that_silently_overwrites_is_rejected():
    cls = wrong(
        "w04-ex1-code", "if tool_name in self._tools and not replace:", "if False:", "ToolRegistry"
    )
    assert "silent overwrite" in rejected("04.1", cls)


def test_decorator_that_returns_none_is_rejected():
    cls = wrong(
        "w04-ex1-code", "            return function\n", "            return None\n", "ToolRegistry"
    )
    assert "return the function unchanged" in rejected("04.1", cls)


def test_registry_without_the_string_form_is_rejected():
    cls = wrong("w04-ex1-code", "if isinstance(func, str):", "if False:", "ToolRegistry")
    assert "the string is the description" in rejected("04.1", cls)


def test_whole_docstring_as_description_is_rejected():
    cls = wrong("w04-ex1-code", 'doc.split("\\n\\n")[0].strip()', "doc", "ToolRegistry")
    assert "first paragraph" in rejected("04.1", cls)


def test_anthropic_format_with_parameters_key_is_rejected():
    cls = wrong(
        "w04-ex1-code",
        '"input_schema": entry["parameters"]',
        '"parameters": entry["parameters"]',
        "ToolRegistry",
    )
    assert 'Anthropic calls the schema "input_schema"' in rejected("04.1", cls)


def test_sorted_names_are_rejected():
    cls = wrong(
        "w04-ex1-code", "return list(self._tools)", "return sorted(self._tools)", "ToolRegistry"
    )
    assert "registration order" in rejected("04.1", cls).lower()


def test_tags_kept_as_the_default_tuple_are_rejected():
    cls = wrong("w04-ex1-code", '"tags": list(tags),', '"tags": tags,', "ToolRegistry")
    assert "the default tags=() is a tuple" in rejected("04.1", cls)


def test_unknown_format_error_without_the_formats_is_rejected():
    cls = wrong(
        "w04-ex1-code",
        "unknown format {format!r}; use one of {', '.join(self.FORMATS)}",
        "unknown format {format!r}",
        "ToolRegistry",
    )
    assert "Name the three supported formats" in rejected("04.1", cls)


def test_replace_that_moves_the_tool_to_the_end_is_rejected():
    cls = wrong(
        "w04-ex1-code",
        '            doc = inspect.getdoc(function) or ""\n',
        "            self._tools.pop(tool_name, None)\n"
        '            doc = inspect.getdoc(function) or ""\n',
        "ToolRegistry",
    )
    message = rejected("04.1", cls)
    assert "takes the old one's place" in message and "do not sort" not in message


def test_registry_agrees_with_the_reference():
    ours, theirs = solution()["ToolRegistry"](), ReferenceRegistry()
    for registry in (ours, theirs):
        registry.tool(nb04.get_weather)
        registry.tool("Search my notes, e.g. for 北京.")(nb04.search_notes)
        registry.tool(name="lookup_city", description="Find a city.", tags=["geo"])(nb04.find_city)
        with pytest.raises(ValueError, match="replace=True"):
            registry.tool(nb04.search_web, name="search_notes")
        registry.tool(name="search_notes", replace=True)(nb04.search_web)
    assert ours.names() == theirs.names()
    for format in ("openai", "responses", "anthropic"):
        assert ours.schemas(format=format) == theirs.schemas(format=format)


# --- 04.2 validate_arguments ---------------------------------------------------------------------

EX2 = "w04-ex2-code"


def test_validator_accepting_true_for_an_integer_is_rejected():
    fn = wrong(
        EX2,
        '"integer": lambda value: isinstance(value, int) and not isinstance(value, bool)',
        '"integer": lambda value: isinstance(value, int)',
        "validate_arguments",
    )
    assert "bool is a subclass of int" in rejected("04.2", fn)


def test_validator_refusing_an_integer_as_number_is_rejected():
    fn = wrong(
        EX2,
        '"number": lambda value: isinstance(value, (int, float)) and not isinstance(value, bool)',
        '"number": lambda value: isinstance(value, float)',
        "validate_arguments",
    )
    assert "An integer is a number in JSON" in rejected("04.2", fn)


def test_validator_accepting_one_as_boolean_is_rejected():
    fn = wrong(
        EX2,
        '"boolean": lambda value: isinstance(value, bool)',
        '"boolean": lambda value: value in (True, False)',
        "validate_arguments",
    )
    assert "1 is not a boolean" in rejected("04.2", fn)


def test_validator_ignoring_unexpected_keys_is_rejected():
    fn = wrong(
        EX2,
        'elif schema.get("additionalProperties") is False:',
        "elif False:",
        "validate_arguments",
    )
    assert '"unexpected"' in rejected("04.2", fn)


def test_validator_not_checking_array_items_is_rejected():
    fn = wrong(
        EX2, 'if isinstance(value, list) and "items" in schema:', "if False:", "validate_arguments"
    )
    assert "tags[1]" in rejected("04.2", fn)


def test_validator_looking_inside_a_value_of_the_wrong_type_is_rejected():
    fn = wrong(
        EX2,
        'return [f"{where} should be {_expected(schema)}, got {got} ({_json_name(value)})"]',
        'return [f"{where} should be {_expected(schema)}, got {got} ({_json_name(value)})"] + [\n'
        '                f"missing required argument {path}.{key}"\n'
        '                for key in schema.get("required", [])\n'
        "            ]",
        "validate_arguments",
    )
    assert "do not look inside it" in rejected("04.2", fn)


def test_validator_agrees_with_the_reference():
    assert evaluate("04.2", reference_validate).startswith("Exercise 04.2 passed")
    ours = solution()["validate_arguments"]
    for schema, arguments, _, _ in nb04.VALIDATION_CASES:
        assert len(ours(schema, arguments)) == len(reference_validate(schema, arguments))


# --- 04.3 DispatchRegistry.call ------------------------------------------------------------------

EX3 = "w04-ex3-code"
EX3_CLS = "DispatchRegistry"


def test_call_that_raises_on_an_unknown_tool_is_rejected():
    cls = wrong(EX3, "if name not in self._tools:", "if False:", "DispatchRegistry")
    message = rejected("04.3", cls)
    assert "KeyError" in message and "never raise" in message


def test_call_with_plain_string_errors_is_rejected():
    cls = wrong(EX3, "return error_text(", 'return "Error: " + (', "DispatchRegistry")
    assert "not plain text" in rejected("04.3", cls)


def test_call_without_a_json_guard_is_rejected():
    cls = wrong(
        EX3, "except json.JSONDecodeError as exc:", "except KeyError as exc:", "DispatchRegistry"
    )
    assert "json.JSONDecodeError" in rejected("04.3", cls)


def test_call_without_validation_is_rejected():
    cls = wrong(EX3, "if problems:", "if False:", "DispatchRegistry")
    assert "validate_arguments before calling" in rejected("04.3", cls)


def test_unknown_tool_error_without_the_tool_list_is_rejected():
    cls = wrong(EX3, " Available tools: {available}.", "", "DispatchRegistry")
    assert "list every available tool name" in rejected("04.3", cls)


def test_call_returning_a_dict_is_rejected():
    cls = wrong(
        EX3,
        "return json.dumps(result, ensure_ascii=False)",
        "return result",
        "DispatchRegistry",
    )
    assert "always returns a str" in rejected("04.3", cls)


def test_call_raising_on_a_result_json_cannot_encode_is_rejected():
    cls = wrong(EX3, "except (TypeError, ValueError) as exc:", "except KeyError as exc:", EX3_CLS)
    message = rejected("04.3", cls)
    assert "TypeError" in message and "here a date" in message


def test_call_reporting_a_result_json_cannot_encode_as_text_is_rejected():
    cls = wrong(
        EX3,
        "json.dumps(result, ensure_ascii=False)",
        "json.dumps(result, ensure_ascii=False, default=str)",
        EX3_CLS,
    )
    assert "catch the TypeError of json.dumps" in rejected("04.3", cls)


def test_call_refusing_empty_arguments_is_rejected():
    cls = wrong(EX3, 'if arguments == "":', "if False:", EX3_CLS)
    assert 'treat "" like {}' in rejected("04.3", cls)


def test_call_blames_a_validator_that_misses_the_problem():
    namespace = load(
        (
            EX2,
            '"integer": lambda value: isinstance(value, int) and not isinstance(value, bool)',
            '"integer": lambda value: isinstance(value, int)',
        )
    )
    message = rejected("04.3", namespace[EX3_CLS])
    assert "Your validate_arguments finds no problem" in message and "fix 04.2" in message


def test_call_agrees_with_the_reference():
    ours = solution()["DispatchRegistry"]()
    theirs = ReferenceRegistry()
    for name, func in nb04.DISPATCH_TOOLS.items():
        ours.tool(func, name=name)
        theirs.tool(func, name=name)
    for name, arguments in [
        ("get_weather", {"city": "北京"}),
        ("add", '{"a": 2, "b": 3}'),
        ("greet", {"name": "张三"}),
    ]:
        assert (
            json.loads(ours.call(name, arguments)) == json.loads(theirs.call(name, arguments))
            if name != "greet"
            else ours.call(name, arguments) == theirs.call(name, arguments)
        )
    for name, arguments in [
        ("nope", {}),
        ("add", "{"),
        ("add", {"a": True, "b": 1}),
        ("read_sensor", {"room": "厨房"}),
    ]:
        assert "error" in json.loads(ours.call(name, arguments))
        assert "error" in json.loads(theirs.call(name, arguments))


# --- 04.4 to_text ---------------------------------------------------------------------------

EX4 = "w04-ex4-code"


def test_to_text_with_ascii_escapes_is_rejected():
    fn = wrong(EX4, "ensure_ascii=False, default=jsonable", "default=jsonable", "to_text")
    assert "ensure_ascii=False" in rejected("04.4", fn)


def test_cut_without_a_marker_is_rejected():
    fn = wrong(
        EX4,
        'return text[:max_chars] + f"\\n[... cut {cut} of {len(text)} characters; '
        'ask for less ...]"',
        "return text[:max_chars]",
        "to_text",
    )
    assert "never be silent" in rejected("04.4", fn)


def test_marker_without_the_amount_cut_is_rejected():
    fn = wrong(EX4, "cut {cut} of {len(text)} characters", "output truncated", "to_text")
    assert "Say how much was cut" in rejected("04.4", fn)


def test_json_encoded_strings_are_rejected():
    fn = wrong(
        EX4,
        "        text = result\n",
        "        text = json.dumps(result, ensure_ascii=False)\n",
        "to_text",
    )
    assert "do not json.dumps it" in rejected("04.4", fn)


def test_str_as_fallback_for_dates_is_rejected():
    fn = wrong(EX4, "default=jsonable)", "default=str)", "to_text")
    assert "isoformat" in rejected("04.4", fn)


def test_cutting_a_text_of_exactly_max_chars_is_rejected():
    fn = wrong(EX4, "if len(text) <= max_chars:", "if len(text) < max_chars:", "to_text")
    assert "compare with <=" in rejected("04.4", fn)


def test_to_text_agrees_with_the_reference():
    assert evaluate("04.4", reference_to_text).startswith("Exercise 04.4 passed")
    ours = solution()["to_text"]
    for _, value, _, _ in nb04._text_cases():
        assert (
            json.loads(ours(value)) == json.loads(reference_to_text(value))
            if not isinstance(value, str)
            else ours(value) == reference_to_text(value)
        )
