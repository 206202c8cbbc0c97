"""Notebook 06's checks accept its solutions and reject realistic wrong ones with a fitting hint.

The solutions are not copied here: the exercise cells of ``solutions/06_hardening.ipynb`` (and
the cells that define what they use: ``error_text``, ``ROLES``, ``parsed_arguments``) are
executed, and each wrong solution is that same code with one realistic mistake edited in.
"""

from __future__ import annotations

import copy
import json
from functools import cache
from typing import Any

import pytest
from solution_cells import Edit, cell_sources, load_cells, rejected, run_source

from course_lib.checks import NotDoneYet, evaluate, nb06
from course_lib.reference import ToolRegistry, parameters_schema
from course_lib.reference import to_strict as reference_to_strict

NOTEBOOK = "06_hardening"
CELLS = ("w06-ex1-code", "w06-ex2-code", "w06-ex3-code", "w06-ex4-code")
EX1, EX2, EX3, EX4 = CELLS


def load(*edits: Edit) -> dict[str, Any]:
    """The names the exercise cells define, after what they use from earlier cells (the setup
    cell's imports and ``error_text``, ``ROLES``, ``error_message``, ``parsed_arguments``);
    ``edits`` are (cell id, old, new) mistakes to edit in."""
    namespace = load_cells(NOTEBOOK, ["w06-setup"])
    sources = cell_sources(NOTEBOOK)
    roles = sources["w06-roles"].split("\n\nnotes = ToolRegistry()")[0]
    run_source(roles, "w06-roles", namespace)  # ROLES only
    helpers = sources["w06-trace-demo"].split("\n\n@notes.tool")[0]
    run_source(helpers, "w06-trace-demo", namespace)  # error_message, parsed_arguments
    return load_cells(NOTEBOOK, CELLS, namespace=namespace, edits=edits)


@cache
def solution() -> dict[str, Any]:
    return load()


def wrong(cell: str, old: str, new: str, *names: str, also: tuple[str, str] | None = None):
    """The targets ``names`` from the solution with ``old`` replaced by ``new`` in ``cell``
    (and the pair ``also`` replaced too)."""
    namespace = load((cell, old, new), *([(cell, *also)] if also else []))
    return [namespace[name] for name in names]


TARGETS = {
    "06.1": ("safe_calculate",),
    "06.2": ("to_strict",),
    "06.3": ("select_tools", "call_as"),
    "06.4": ("TracedRegistry",),
}


@pytest.mark.parametrize("exercise_id", sorted(TARGETS))
def test_solution_passes(exercise_id):
    targets = [solution()[name] for name in TARGETS[exercise_id]]
    assert evaluate(exercise_id, *targets).startswith(f"Exercise {exercise_id} passed")


def test_roles_in_the_notebook_are_the_ones_the_check_uses():
    assert solution()["ROLES"] == nb06.ROLES


def test_stubbed_calculator_is_not_done_yet():
    (stub,) = wrong(
        EX1,
        "    return result\n",
        '    raise NotImplementedError("Exercise 06.1: stub")\n',
        "safe_calculate",
    )
    with pytest.raises(NotDoneYet):
        evaluate("06.1", stub)


# --- 06.1 safe_calculate --------------------------------------------------------------------------


def test_calculator_falling_back_to_eval_is_rejected():
    safe = solution()["safe_calculate"]

    def with_fallback(expression):
        try:
            return safe(expression)
        except ValueError:
            return eval(expression)  # the mistake under test; the check sends harmless input

    assert "never fall back to eval" in rejected("06.1", with_fallback)


def test_calculator_without_an_exponent_limit_is_rejected():
    (fn,) = wrong(EX1, "abs(right) > MAX_EXPONENT", "False", "safe_calculate")
    assert "MAX_EXPONENT" in rejected("06.1", fn)


def test_calculator_resolving_names_is_rejected():
    (fn,) = wrong(
        EX1,
        '    allowed = "numbers',
        "    if isinstance(node, ast.Name):\n        return float(getattr(math, node.id))"
        '\n    allowed = "numbers',
        "safe_calculate",
    )
    assert "Names are not numbers" in rejected("06.1", fn)


def test_calculator_leaking_zero_division_is_rejected():
    (fn,) = wrong(
        EX1,
        "except (ArithmeticError, RecursionError) as exc:",
        "except RecursionError as exc:",
        "safe_calculate",
    )
    message = rejected("06.1", fn)
    assert "ZeroDivisionError" in message and "must be a ValueError" in message


def test_calculator_leaking_overflow_is_rejected():
    (fn,) = wrong(
        EX1,
        "except (ArithmeticError, RecursionError) as exc:",
        "except (ZeroDivisionError, RecursionError) as exc:",
        "safe_calculate",
    )
    message = rejected("06.1", fn)
    assert "1e200 ** 2" in message and "OverflowError" in message
    assert "must be a ValueError" in message


def test_calculator_refusing_the_largest_allowed_exponent_is_rejected():
    (fn,) = wrong(EX1, "abs(right) > MAX_EXPONENT", "abs(right) >= MAX_EXPONENT", "safe_calculate")
    message = rejected("06.1", fn)
    assert "2 ** 100" in message and "exactly MAX_EXPONENT (100) is allowed" in message


def test_calculator_accepting_booleans_is_rejected():
    (fn,) = wrong(
        EX1,
        "type(node.value) in (int, float)",
        "isinstance(node.value, (int, float))",
        "safe_calculate",
    )
    assert "True is not a number" in rejected("06.1", fn)


def test_calculator_returning_ints_is_rejected():
    (fn,) = wrong(
        EX1,
        "return float(node.value)",
        "return node.value",
        "safe_calculate",
        also=("not isinstance(result, float) or not math.isfinite", "not math.isfinite"),
    )
    assert "Return a float" in rejected("06.1", fn)


# --- 06.2 to_strict -------------------------------------------------------------------------------


def test_to_strict_that_keeps_defaults_is_rejected():
    (fn,) = wrong(
        EX2,
        'node = {key: value for key, value in schema.items() if key != "default"}',
        "node = dict(schema)",
        "to_strict",
    )
    assert 'Remove every "default"' in rejected("06.2", fn)


def test_to_strict_without_nullable_optionals_is_rejected():
    (fn,) = wrong(
        EX2,
        "strict_node(value) if name in required else nullable(strict_node(value))",
        "strict_node(value)",
        "to_strict",
    )
    assert "must accept null now" in rejected("06.2", fn)


def test_to_strict_making_required_ones_nullable_is_rejected():
    (fn,) = wrong(
        EX2,
        "strict_node(value) if name in required else nullable(strict_node(value))",
        "nullable(strict_node(value))",
        "to_strict",
    )
    assert "Only formerly optional" in rejected("06.2", fn)


def test_to_strict_only_at_the_top_level_is_rejected():
    (fn,) = wrong(
        EX2,
        "strict_node(value) if name in required else nullable(strict_node(value))",
        "value if name in required else nullable(value)",
        "to_strict",
    )
    assert "nested objects too" in rejected("06.2", fn)


def test_to_strict_sorting_required_is_rejected():
    (fn,) = wrong(
        EX2,
        'node["required"] = list(node["properties"])',
        'node["required"] = sorted(node["properties"])',
        "to_strict",
    )
    assert 'List "required" in the order of "properties"' in rejected("06.2", fn)


def test_to_strict_skipping_all_of_is_rejected():
    (fn,) = wrong(
        EX2,
        'for key in ("anyOf", "oneOf", "allOf", "prefixItems"):',
        'for key in ("anyOf", "oneOf", "prefixItems"):',
        "to_strict",
    )
    message = rejected("06.2", fn)
    assert "allOf with an object branch" in message and "allOf[0]" in message
    assert "nested objects too" in message


@pytest.mark.parametrize("skipped", ["oneOf", "prefixItems"])
def test_to_strict_skipping_one_of_or_prefix_items_is_rejected(skipped):
    kept = ", ".join(f'"{k}"' for k in ("anyOf", "allOf", "oneOf", "prefixItems") if k != skipped)
    (fn,) = wrong(
        EX2,
        'for key in ("anyOf", "oneOf", "allOf", "prefixItems"):',
        f"for key in ({kept}):",
        "to_strict",
    )
    message = rejected("06.2", fn)
    assert f"{skipped}[0]" in message and '"additionalProperties": false' in message


def test_to_strict_treating_absent_additional_properties_as_open_is_rejected():
    (fn,) = wrong(
        EX2,
        'extra = node.get("additionalProperties", False)',
        'extra = node.get("additionalProperties", True)',
        "to_strict",
    )
    message = rejected("06.2", fn)
    assert "Your code raised" not in message
    assert "closed record" in message and "do not raise" in message


def test_to_strict_refusing_empty_properties_is_rejected():
    (fn,) = wrong(
        EX2, 'if "properties" not in node or', 'if not node.get("properties") or', "to_strict"
    )
    message = rejected("06.2", fn)
    assert "to_strict(no parameters at all)" in message
    assert '"properties": {} is an object with a fixed, empty set of keys' in message


def test_to_strict_may_refuse_one_of_and_prefix_items():
    ours = solution()["to_strict"]

    def refusing(schema):
        text = json.dumps(schema)
        if '"oneOf"' in text or '"prefixItems"' in text:
            raise ValueError("strict mode cannot express oneOf or prefixItems")
        return ours(schema)

    assert evaluate("06.2", refusing).startswith("Exercise 06.2 passed")


def test_to_strict_that_mutates_its_input_is_rejected():
    (fn,) = wrong(
        EX2,
        'node = {key: value for key, value in schema.items() if key != "default"}',
        'node = schema\n    node.pop("default", None)',
        "to_strict",
    )
    assert "Do not change the schema you were given" in rejected("06.2", fn)


def test_to_strict_rewriting_open_maps_like_langchain_is_rejected():
    (fn,) = wrong(
        EX2,
        'if "properties" not in node or extra is not False:',
        'if node.setdefault("properties", {}) is None:',
        "to_strict",
    )
    assert "cannot be strict: raise ValueError" in rejected("06.2", fn)


def test_to_strict_agrees_with_the_reference():
    assert evaluate("06.2", reference_to_strict).startswith("Exercise 06.2 passed")
    ours = solution()["to_strict"]
    schema = parameters_schema(nb06.get_weather)
    assert ours(copy.deepcopy(schema))["required"] == reference_to_strict(schema)["required"]
    for _, make in nb06.OPEN_MAPS:
        for fn in (ours, reference_to_strict):
            with pytest.raises(ValueError):
                fn(make())


# --- 06.3 select_tools and call_as ----------------------------------------------------------------


def test_selection_ignoring_the_role_is_rejected():
    targets = wrong(
        EX3,
        "if role is not None and not allowed(role, tool_tags):",
        "if False:",
        "select_tools",
        "call_as",
    )
    assert "Apply the role too" in rejected("06.3", *targets)


def test_selection_requiring_every_tag_is_rejected():
    targets = wrong(
        EX3, "not set(tags) & tool_tags", "not set(tags) <= tool_tags", "select_tools", "call_as"
    )
    assert "at least one of the tags" in rejected("06.3", *targets)


def test_selection_keeping_everything_for_empty_tags_is_rejected():
    targets = wrong(
        EX3,
        "if tags is not None and not set(tags) & tool_tags:",
        "if tags and not set(tags) & tool_tags:",
        "select_tools",
        "call_as",
    )
    message = rejected("06.3", *targets)
    assert "tags=[] keeps no tool at all" in message
    # Expected and Got are short lists of names, not schema dumps.
    assert '"read_note"' in message and '"parameters"' not in message


def test_selection_of_names_is_rejected():
    targets = wrong(
        EX3, "selected.append(schema)", "selected.append(name)", "select_tools", "call_as"
    )
    assert "not the names" in rejected("06.3", *targets)


def test_call_as_raising_permission_error_is_rejected():
    targets = wrong(
        EX3,
        "        return error_text(\n",
        "        raise PermissionError(\n",
        "select_tools",
        "call_as",
    )
    message = rejected("06.3", *targets)
    assert "PermissionError" in message and "must not raise" in message


def test_call_as_answering_an_unknown_role_as_data_is_rejected():
    targets = wrong(
        EX3,
        "    tool = registry.get(name)\n",
        "    if role not in ROLES:\n        return error_text(f'unknown role {role!r}')\n"
        "    tool = registry.get(name)\n",
        "select_tools",
        "call_as",
    )
    message = rejected("06.3", *targets)
    assert "'visitor'" in message and "configuration mistake" in message


def test_call_as_leaking_the_tool_list_is_rejected():
    targets = wrong(
        EX3,
        "if tool is None or not allowed(role, tool.tags):",
        "if tool is not None and not allowed(role, tool.tags):",
        "select_tools",
        "call_as",
    )
    assert "Do not reveal tools" in rejected("06.3", *targets)


def test_selection_agrees_with_the_reference_tag_filter():
    select_tools = solution()["select_tools"]
    registry = nb06._roles_registry(nb06._notes())
    for tags in (["notes"], ["weather", "mail"], ["admin"]):
        assert select_tools(registry, tags=tags) == registry.schemas(tags=tags)


# --- 06.4 TracedRegistry --------------------------------------------------------------------------


def test_trace_marking_errors_ok_is_rejected():
    (cls,) = wrong(EX4, '"ok": error is None,', '"ok": True,', "TracedRegistry")
    assert "not ok: ok is False" in rejected("06.4", cls)


def test_trace_deciding_ok_from_the_text_is_rejected():
    (cls,) = wrong(
        EX4,
        '"ok": error is None,',
        """"ok": not result.startswith('{"error"'),""",
        "TracedRegistry",
    )
    message = rejected("06.4", cls)
    assert "echo" in message and "not by testing its text" in message


def test_trace_without_a_final_newline_is_rejected():
    (cls,) = wrong(
        EX4,
        'return "".join(json.dumps(record, ensure_ascii=False) + "\\n" for record in self.records)',
        'return "\\n".join(json.dumps(record, ensure_ascii=False) for record in self.records)',
        "TracedRegistry",
    )
    message = rejected("06.4", cls)
    assert "The last line has no newline" in message and "not one JSON array" not in message
    assert message.count("\n") and '}"' in message  # the Got line shows the end of the text


def test_trace_with_ascii_escapes_is_rejected():
    (cls,) = wrong(
        EX4, "json.dumps(record, ensure_ascii=False)", "json.dumps(record)", "TracedRegistry"
    )
    assert "ensure_ascii=False" in rejected("06.4", cls)


def test_trace_in_seconds_is_rejected():
    (cls,) = wrong(
        EX4, "(time.perf_counter() - start) * 1000", "time.perf_counter() - start", "TracedRegistry"
    )
    assert "milliseconds" in rejected("06.4", cls)


def test_trace_with_raw_argument_text_is_rejected():
    (cls,) = wrong(
        EX4,
        '"arguments": parsed_arguments(arguments),',
        '"arguments": arguments,',
        "TracedRegistry",
    )
    assert "parsed_arguments" in rejected("06.4", cls)


def test_trace_as_one_json_array_is_rejected():
    (cls,) = wrong(
        EX4,
        'return "".join(json.dumps(record, ensure_ascii=False) + "\\n" for record in self.records)',
        "return json.dumps(self.records, ensure_ascii=False)",
        "TracedRegistry",
    )
    assert "not one JSON array" in rejected("06.4", cls)


def test_trace_counting_bytes_is_rejected():
    (cls,) = wrong(
        EX4,
        '"result_chars": len(result),',
        '"result_chars": len(result.encode()),',
        "TracedRegistry",
    )
    assert "not UTF-8 bytes" in rejected("06.4", cls)


def test_traced_registry_runs_an_agent_loop():
    from course_lib.local_model import MODEL, make_client
    from course_lib.reference.loop import run_agent

    registry = ToolRegistry()

    @registry.tool
    def get_weather(city: str) -> str:
        """Current weather for a city, e.g. 北京."""
        return f"{city}: 晴"

    traced = solution()["TracedRegistry"](registry)
    result = run_agent(make_client(), traced, "What is the weather in 北京?", model=MODEL)
    assert result.stopped == "answer"
    assert [record["tool"] for record in traced.records] == ["get_weather"]
    assert json.loads(traced.to_jsonl())["arguments"] == {"city": "北京"}
