"""Exercise 06.5: the solution passes; a wrong anthropic_strict fails on the rule it breaks.
Wrong answers are the solution cell with one realistic mistake edited in, except the one that
handles the top of the schema only, written out below."""

from __future__ import annotations

import copy
from typing import Annotated

import anthropic
import pydantic
import pytest
from rules import assert_breaks_rule
from solution_cells import rejected

from course_lib.checks import NotDoneYet, evaluate
from course_lib.checks.lesson06.anthropic_strict import UNSUPPORTED
from course_lib.checks.lesson06.anthropic_strict.cases import CASES, RANGED
from course_lib.local_model import MODEL, make_anthropic_client
from lesson06.notebook import EX5, solution, wrong


def edited(old: str, new: str, *more: tuple[str, str]):
    return wrong("06.5", EX5, old, new, *more)


def top_only(tool: dict) -> dict:
    """Right for the root object; every node inside comes back as it was."""
    schema = {**tool["input_schema"], "additionalProperties": False}
    return {**tool, "input_schema": schema, "strict": True}


CLOSE = '        node["additionalProperties"] = False\n'
RETURN = (
    '    return {**tool, "input_schema": anthropic_node(tool["input_schema"]), "strict": True}\n'
)
MOVED = "moved = {key: node.pop(key) for key in UNSUPPORTED if key in node}"
MIN_ITEMS = 'if node.get("minItems", 0) not in (0, 1):'
DESCRIBED = "    if moved:\n"
BRANCHES = 'for key in ("anyOf", "allOf"):'

WRONG_BY_RULE = {
    "06.5": {
        "no_mutation": edited("node = dict(schema)", "node = schema"),
        "strict": edited('"strict": True}', '"strict": "true"}'),
        "closed": edited(CLOSE, ""),
        "open_maps": edited(
            'if "properties" not in node or node.get("additionalProperties", False) is not False:',
            'if node.setdefault("properties", {}) is None:',
        ),
        "unsupported": edited(
            MOVED, "moved = {key: node[key] for key in UNSUPPORTED if key in node}"
        ),
        "min_items": edited(MIN_ITEMS, 'if "minItems" in node:'),
        "described": edited(DESCRIBED, "    if False:\n"),
        "described_after": edited(
            "f\"{node['description']} {limits}\"", "f\"{limits} {node['description']}\""
        ),
        "required": edited(
            CLOSE,
            CLOSE + '        node["required"] = list(node["properties"])\n',
        ),
        "keep": edited(
            "node = dict(schema)", 'node = {k: v for k, v in schema.items() if k != "title"}'
        ),
        "nested": [top_only],
        "branches": edited(BRANCHES, "for key in ():", ('if "$defs" in node:', "if False:")),
    }
}


@pytest.mark.parametrize("rule", sorted(WRONG_BY_RULE["06.5"]))
def test_a_wrong_anthropic_strict_breaking_one_rule_gets_that_rules_hint(rule):
    assert_breaks_rule("06.5", rule, *WRONG_BY_RULE["06.5"][rule])


def test_the_solution_passes():
    assert evaluate("06.5", solution("anthropic_strict")) == (
        "Exercise 06.5 passed: anthropic_strict (5 tools made strict, 2 open maps refused)."
    )


def test_the_stub_is_not_done_yet():
    (stub,) = edited(
        RETURN,
        '    raise NotImplementedError("x")\n',
    )
    with pytest.raises(NotDoneYet):
        evaluate("06.5", stub)


def test_the_notebook_removes_the_keywords_the_check_expects_removed():
    assert solution("UNSUPPORTED") == UNSUPPORTED


def test_the_ranged_case_is_what_beta_tool_makes_of_a_pydantic_range():
    def search_my_notes(keyword: str, limit: Annotated[int, pydantic.Field(ge=1, le=50)] = 5):
        """Search my notes for a keyword."""

    made = anthropic.beta_tool(search_my_notes, strict=True).to_dict()
    assert {key: value for key, value in made.items() if key != "strict"} == RANGED


def first_reply(tool: dict) -> str:
    """What the local model answers a request with this one tool: "accepted", or its 400."""
    try:
        make_anthropic_client().messages.create(
            model=MODEL, max_tokens=64, tools=[tool], messages=[{"role": "user", "content": "你好"}]
        )
    except anthropic.BadRequestError as error:
        return error.body["error"]["message"]
    return "accepted"


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.name)
def test_through_the_sdk_each_tool_as_given_is_a_400_and_the_solutions_is_accepted(case):
    """The contract's claim that the check's 400 is the API's, as a real request shows it."""
    assert first_reply({**case.tool, "strict": True}) != "accepted"
    assert first_reply(solution("anthropic_strict")(copy.deepcopy(case.tool))) == "accepted"


def test_leaving_the_keywords_in_shows_the_apis_400():
    message = rejected("06.5", *WRONG_BY_RULE["06.5"]["unsupported"])
    refusal = "For 'integer' type, properties maximum, minimum are not supported"
    assert f"Got:      the API's 400: tools.0.custom: {refusal}" in message
    assert "Anthropic's strict mode refuses minimum" in message


def test_removing_without_describing_names_the_keyword_and_where():
    message = rejected("06.5", *WRONG_BY_RULE["06.5"]["described"])
    assert "Where:    at $.properties.limit" in message and "minimum was removed" in message


def test_making_every_property_required_is_told_that_is_openais_rule():
    message = rejected("06.5", *WRONG_BY_RULE["06.5"]["required"])
    assert "Anthropic's strict mode accepts optional properties" in message


def test_a_top_only_walk_is_told_where_it_stopped():
    message = rejected("06.5", top_only)
    assert "Where:    at $.properties.limit" in message and "came back exactly" in message


CHINESE = """
import copy


def anthropic_strict(tool):
    result = copy.deepcopy(tool)
    result["strict"] = True
    pending = [result["input_schema"]]
    while pending:
        node = pending.pop()
        notes = []
        for key in list(node):
            too_many = key == "minItems" and node[key] not in (0, 1)
            if key in UNSUPPORTED or too_many:
                notes.append(f"{key}: {node.pop(key)}")
        if notes:
            said = node.get("description", "")
            node["description"] = (said + " （" + "，".join(notes) + "）").strip()
        if node.get("type") == "object" or "properties" in node:
            if "properties" not in node or node.get("additionalProperties") not in (None, False):
                raise ValueError("严格模式不支持键不固定的对象（开放映射）")
            node["additionalProperties"] = False
            pending.extend(node["properties"].values())
        if isinstance(node.get("items"), dict):
            pending.append(node["items"])
        pending.extend(node.get("anyOf", []) + node.get("allOf", []))
        pending.extend(node.get("$defs", {}).values())
    return result
"""


def test_a_deep_copy_changed_with_a_stack_and_chinese_notes_passes():
    namespace = {"UNSUPPORTED": UNSUPPORTED}
    exec(CHINESE, namespace)  # noqa: S102
    assert evaluate("06.5", namespace["anthropic_strict"]).startswith("Exercise 06.5 passed")


def test_an_object_left_with_an_additional_properties_schema_is_told_to_close_it():
    """A result the local model cannot word a 400 for (an additionalProperties schema) still
    gets a verdict: close the object."""
    ours = solution("anthropic_strict")

    def open_stops(tool):
        result = ours(tool)
        stops = result["input_schema"]["properties"].get("stops")
        if stops:
            stops["items"]["additionalProperties"] = {"type": "string"}
        return result

    message = rejected("06.5", open_stops)
    assert "Case: anthropic_strict(objects nested in objects and in an array)" in message
    assert 'needs "additionalProperties": false on every object' in message


def test_keeping_the_keywords_in_every_node_is_told_to_remove_them_at_every_node():
    """A walk that removes nothing returns the ranged limit exactly as given, as a walk that
    never reaches it does: the hint names the keywords still there and the walk both."""
    message = rejected("06.5", *edited(MOVED, "moved = {}"))
    assert "Where:    at $.properties.limit" in message
    assert "still with minimum, maximum, which Anthropic's strict mode refuses" in message


def test_the_description_written_after_the_removed_keywords_is_told_to_come_first():
    message = rejected("06.5", *WRONG_BY_RULE["06.5"]["described_after"])
    assert "Where:    at $.properties.trip.properties.city" in message
    assert "not before it" in message


@pytest.mark.parametrize("rule", ["strict", "min_items", "open_maps", "branches"])
def test_a_case_named_in_words_is_said_in_the_learners_language(rule):
    """Its rule names it in English; the Chinese edition's failure says it in Chinese."""
    from course_lib.checks import EXERCISES, CheckFailed, check
    from course_lib.i18n import speaking

    wrong = WRONG_BY_RULE["06.5"][rule]
    with speaking("zh-CN"), pytest.raises(CheckFailed) as caught:
        check("06.5", *wrong)
    case = caught.value.failure.case
    assert EXERCISES["06.5"].rule(rule).case.isascii()
    assert case.startswith("anthropic_strict(") and not case.isascii(), case
