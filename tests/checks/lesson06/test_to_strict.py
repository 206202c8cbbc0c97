"""Exercise 06.2: the solution and the reference pass; a wrong to_strict fails on the rule it
breaks. Wrong answers are the solution cell with one mistake edited in, except the "flat" one,
written out below: it handles the top object completely and never looks inside."""

from __future__ import annotations

import copy
import json
from typing import Literal

import pytest
from rules import assert_breaks_rule
from solution_cells import rejected

from course_lib.checks import NotDoneYet, evaluate
from course_lib.checks.lesson06.to_strict.cases import (
    OPEN_MAPS,
    SCORES_PARAMETERS,
    STRICT_CASES,
    WEATHER_PARAMETERS,
)
from course_lib.reference import parameters_schema
from course_lib.reference import to_strict as reference_to_strict
from lesson06.notebook import EX2, solution, targets, wrong


def edited(old: str, new: str, *more: tuple[str, str]):
    return wrong("06.2", EX2, old, new, *more)


def flat_to_strict(schema: dict) -> dict:
    """Right for a flat schema; objects inside properties come back as they were."""
    required = set(schema.get("required", []))
    properties = {}
    for name, prop in schema["properties"].items():
        prop = {key: value for key, value in prop.items() if key != "default"}
        properties[name] = prop if name in required else solution("nullable")(prop)
    return {
        **schema,
        "properties": properties,
        "required": list(properties),
        "additionalProperties": False,
    }


COPY = 'node = {key: value for key, value in schema.items() if key != "default"}'
PROPERTY = "strict_node(value) if name in required else nullable(strict_node(value))"
DROP_DEFAULTS = """def drop_defaults(value):
    if isinstance(value, dict):
        return {k: drop_defaults(v) for k, v in value.items() if k != "default"}
    if isinstance(value, list):
        return [drop_defaults(v) for v in value]
    return value


def strict_node(schema: dict) -> dict:"""
ITEMS = 'node["items"] = strict_node(node["items"])'
WALKED = 'for key in ("anyOf", "oneOf", "allOf", "prefixItems"):'
# A walker that counts object levels and stops after one: right for every schema whose objects
# sit at most one property down.
ONE_LEVEL = """def strict_node(schema: dict, depth: int = 0) -> dict:
    if depth > 1:
        return {key: value for key, value in schema.items() if key != "default"}"""

WRONG_BY_RULE = {
    "06.2": {
        "no_mutation": edited(COPY, 'node = schema\n    node.pop("default", None)'),
        "defaults": edited(COPY, "node = dict(schema)"),
        "named_default": edited(
            "def strict_node(schema: dict) -> dict:",
            DROP_DEFAULTS,
            (COPY, "node = drop_defaults(schema)"),
        ),
        "open_maps": edited(
            'if "properties" not in node or extra is not False:',
            'if node.setdefault("properties", {}) is None:',
        ),
        "closed_record": edited(
            'extra = node.get("additionalProperties", False)',
            'extra = node.get("additionalProperties", True)',
        ),
        "empty": edited('if "properties" not in node or', 'if not node.get("properties") or'),
        "closed": edited('        node["additionalProperties"] = False\n', ""),
        "required": edited(
            'node["required"] = list(node["properties"])',
            'node["required"] = [n for n in node["properties"] if n in required]',
        ),
        "order": edited(
            'node["required"] = list(node["properties"])',
            'node["required"] = sorted(node["properties"])',
        ),
        "nullable": edited(PROPERTY, "strict_node(value)"),
        "required_unchanged": edited(PROPERTY, "nullable(strict_node(value))"),
        "nested": [flat_to_strict],
        "deep": edited(
            "def strict_node(schema: dict) -> dict:",
            ONE_LEVEL,
            (PROPERTY, PROPERTY.replace("(value)", "(value, depth + 1)")),
            (ITEMS, ITEMS.replace('(node["items"])', '(node["items"], depth)')),
            ("[strict_node(branch) for branch", "[strict_node(branch, depth) for branch"),
            ("{name: strict_node(value) for name", "{name: strict_node(value, depth) for name"),
        ),
        "keep": edited(
            COPY, 'node = {k: v for k, v in schema.items() if k not in ("default", "description")}'
        ),
    }
}


@pytest.mark.parametrize("rule", sorted(WRONG_BY_RULE["06.2"]))
def test_a_wrong_to_strict_breaking_one_rule_gets_that_rules_hint(rule):
    assert_breaks_rule("06.2", rule, *WRONG_BY_RULE["06.2"][rule])


def test_the_solution_passes():
    assert evaluate("06.2", *targets("06.2")) == (
        "Exercise 06.2 passed: to_strict (18 schemas made strict, 4 open maps refused)."
    )


def test_the_reference_to_strict_passes_and_refuses_the_same_open_maps():
    assert evaluate("06.2", reference_to_strict).startswith("Exercise 06.2 passed")
    for _, schema in OPEN_MAPS:
        for to_strict in (solution("to_strict"), reference_to_strict):
            with pytest.raises(ValueError):
                to_strict(copy.deepcopy(schema))


def test_the_stub_is_not_done_yet():
    (stub,) = edited("    return strict_node(schema)\n", '    raise NotImplementedError("x")\n')
    with pytest.raises(NotDoneYet):
        evaluate("06.2", stub)


def test_the_cases_named_after_functions_are_what_parameters_schema_gives_for_them():
    def get_weather(
        city: str,
        unit: Literal["c", "f"] = "c",
        days: int | None = None,
        tags: list[str] | None = None,
    ) -> dict:
        """Weather.

        Args:
            city: A city, e.g. 北京.
            unit: c or f.
            days: How many days ahead.
            tags: Labels to attach.
        """
        return {}

    def scores(names: list[str], weights: dict[str, int]) -> int:
        return 0

    assert parameters_schema(get_weather) == WEATHER_PARAMETERS
    assert parameters_schema(scores) == SCORES_PARAMETERS
    assert STRICT_CASES[0].schema is WEATHER_PARAMETERS


def test_mutating_the_input_is_told_to_build_new_dicts():
    message = rejected("06.2", *WRONG_BY_RULE["06.2"]["no_mutation"])
    assert "Do not change the schema you were given" in message


def test_an_object_left_unwalked_is_told_where_and_to_walk_into_it():
    message = rejected("06.2", flat_to_strict)
    assert "to_strict(a nested object and an array of objects)" in message
    assert "Where:    at $.properties.trip" in message and "came back exactly" in message


def test_a_walk_that_stops_one_level_down_is_told_how_deep_and_to_recurse():
    message = rejected("06.2", *WRONG_BY_RULE["06.2"]["deep"])
    assert "to_strict(objects three levels deep)" in message
    assert "Where:    at $.properties.trip.properties.hotel" in message
    assert "2 levels down, came back exactly as it was given" in message


CHANGE_IN_PLACE = """
import copy


def to_strict(schema):
    result = copy.deepcopy(schema)
    stack = [(result, True)]
    while stack:
        node, _ = stack.pop()
        node.pop("default", None)
        kinds = node.get("type") if isinstance(node.get("type"), list) else [node.get("type")]
        if "object" in kinds or "properties" in node:
            if "properties" not in node or node.get("additionalProperties", False) is not False:
                raise ValueError("开放的映射（dict[str, ...]）不能用于严格模式")
            was_required = set(node.get("required", []))
            for name, child in list(node["properties"].items()):
                stack.append((child, True))
                if name not in was_required:
                    node["properties"][name] = {"anyOf": [child, {"type": "null"}]}
            node["required"] = list(node["properties"])
            node["additionalProperties"] = False
        if isinstance(node.get("items"), dict):
            stack.append((node["items"], True))
        for key in ("anyOf", "oneOf", "allOf", "prefixItems"):
            stack.extend((branch, True) for branch in node.get(key, []))
        stack.extend((child, True) for child in node.get("$defs", {}).values())
    return result
"""


def test_a_copy_changed_in_place_with_a_stack_and_chinese_errors_passes():
    namespace: dict = {}
    exec(CHANGE_IN_PLACE, namespace)  # noqa: S102
    assert evaluate("06.2", namespace["to_strict"]).startswith("Exercise 06.2 passed")


def test_skipping_all_of_is_told_to_walk_into_its_branches():
    (fn,) = edited(WALKED, 'for key in ("anyOf", "oneOf", "prefixItems"):')
    message = rejected("06.2", fn)
    assert "allOf with an object branch" in message and "allOf[0]" in message
    assert "Walk into each property" in message


@pytest.mark.parametrize("skipped", ["oneOf", "prefixItems"])
def test_skipping_one_of_or_prefix_items_is_told_to_walk_into_them(skipped):
    kept = ", ".join(f'"{k}"' for k in ("anyOf", "allOf", "oneOf", "prefixItems") if k != skipped)
    (fn,) = edited(WALKED, f"for key in ({kept}):")
    message = rejected("06.2", fn)
    assert f"{skipped}[0]" in message and "came back exactly" in message


def test_refusing_one_of_and_prefix_items_is_accepted():
    ours = solution("to_strict")

    def refusing(schema):
        text = json.dumps(schema)
        if '"oneOf"' in text or '"prefixItems"' in text:
            raise ValueError("strict mode cannot express oneOf or prefixItems")
        return ours(schema)

    assert evaluate("06.2", refusing).startswith("Exercise 06.2 passed")


def test_treating_a_missing_additional_properties_as_open_is_told_it_is_a_closed_record():
    message = rejected("06.2", *WRONG_BY_RULE["06.2"]["closed_record"])
    assert "Your code raised" not in message
    assert "closed record" in message and "do not raise" in message


def test_refusing_empty_properties_is_told_it_is_a_tool_without_parameters():
    message = rejected("06.2", *WRONG_BY_RULE["06.2"]["empty"])
    assert "to_strict(no parameters at all)" in message
    assert '"properties": {} is an object with a fixed, empty set of keys' in message


def test_rewriting_an_open_map_like_langchain_is_told_to_raise():
    message = rejected("06.2", *WRONG_BY_RULE["06.2"]["open_maps"])
    assert "cannot be strict: raise ValueError" in message
    assert "to_strict(parameters_schema(scores) with weights: dict[str, int])" in message


def test_a_nullable_type_list_beside_an_enum_is_told_about_the_enum():
    (fn,) = edited('and "enum" not in schema', "")
    message = rejected("06.2", fn)
    assert "null accepted for the formerly optional unit" in message
    assert "fails an enum that lacks null" in message


def test_dropping_descriptions_names_what_was_lost():
    message = rejected("06.2", *WRONG_BY_RULE["06.2"]["keep"])
    assert 'Expected: description "A city, e.g. 北京." kept' in message


def test_an_open_map_refused_with_another_error_is_told_value_error():
    (fn,) = edited(
        "            raise ValueError(\n",
        "            raise TypeError(\n",
    )
    message = rejected("06.2", fn)
    assert "raised TypeError" in message and "not TypeError" in message


@pytest.mark.parametrize("rule", ["deep", "empty", "open_maps"])
def test_a_case_named_in_words_is_said_in_the_learners_language(rule):
    """Its rule names it in English; the Chinese edition's failure says it in Chinese."""
    from course_lib.checks import EXERCISES, CheckFailed, check
    from course_lib.i18n import speaking

    with speaking("zh-CN"), pytest.raises(CheckFailed) as caught:
        check("06.2", *WRONG_BY_RULE["06.2"][rule])
    case = caught.value.failure.case
    english = EXERCISES["06.2"].rule(rule).case
    assert english.isascii() and case.startswith("to_strict(") and not case.isascii(), case
