"""Exercise 06.5, ``anthropic_strict(tool) -> dict``: a tool Anthropic's strict mode accepts.

Each tool (``cases.py``) is sent as JSON; the driver calls ``anthropic_strict`` beside
the learner's code and sends back the result and the input as it is afterwards. The result's
``input_schema`` goes through the local model's own strict-schema rules (the code that answers
a real request with the API's 400), then is judged node by node against the input: the removed
keywords written into the description, ``required`` and everything else kept, and with
``jsonschema`` it still accepts the case's arguments. Rules, the case that breaks each, and the
hint that names it: see ``RULES``.
"""

from __future__ import annotations

import json
from typing import Any

from course_lib.checks.catalog import Catalog
from course_lib.checks.compare import HintText, Plain, fail
from course_lib.checks.core import Rule, exercise
from course_lib.checks.learner import Learner
from course_lib.checks.lesson06 import to_strict
from course_lib.checks.lesson06._roles_and_answers import (
    NOTEBOOK,
    expect_open_map_refused,
    returned_dict,
    run_on_copy,
)
from course_lib.checks.lesson06.anthropic_strict.cases import (
    ARRAYS_CASE,
    CASES,
    DEFINITIONS_CASE,
    NESTED_CASE,
    OPEN_MAP_CASE,
    OPEN_MAPS,
    RANGED_CASE,
    AnthropicCase,
    said,
)
from course_lib.checks.lesson06.to_strict import is_object, schema_nodes
from course_lib.local_model.anthropic_structured import check_rules
from course_lib.local_model.protocol import ProtocolError

# The keywords the exercise removes (the notebook defines the same UNSUPPORTED; the tests prove it).
UNSUPPORTED = (
    "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
    "minLength", "maxLength", "maxItems", "uniqueItems",
)  # fmt: skip
WHERE = "tools.0.custom"

# The wording 06.2 shares (value_error, at, kept, accepts) is said from 06.2's tables.
TEXTS = Catalog(also=(to_strict.TEXTS,)) | {
    "case": "anthropic_strict({name})",
    "strict_tool": 'a strict tool: its name, "strict": true, an input_schema Anthropic accepts',
    "unchanged_input": "the tool you were given, unchanged",
    "accepted": "an input_schema the API accepts",
    "refused": "the API's 400: {message}",
    "open_object": (
        "tools.0.custom: For 'object' type, an 'additionalProperties' schema is not supported. "
        "Please set 'additionalProperties' to false"
    ),
    "described": "{keyword} written into the description",
    "described_after": "the description {description} first, then the removed keywords",
    "required_kept": "required as given: {required}",
    "summary": "{count} tools made strict, {maps} open maps refused",
}
text = TEXTS.text


def case_label(name: str) -> str:
    return text("case", name=said(name))


RANGED, NESTED = case_label(RANGED_CASE), case_label(NESTED_CASE)
RULES = (
    Rule("no_mutation", "Return a new tool; never change the one you were given", case=RANGED,
         hint="mutated"),
    Rule("strict", 'Add `"strict": true`; the name stays', case=RANGED, hint="strict_flag"),
    Rule("closed", 'Every object gets `"additionalProperties": false` (`"properties"` without it '
         'is a closed record, as in 06.2)', case=NESTED, hint="closed"),
    Rule("open_maps", 'An open map (an object without `"properties"`, or whose '
         '`"additionalProperties"` is `true` or a schema) raises `ValueError`',
         case=case_label(OPEN_MAP_CASE), hint="open_map"),
    Rule("unsupported", "Remove every keyword of `UNSUPPORTED` (ranges, string lengths, "
         "`maxItems`, `uniqueItems`)", case=RANGED, hint="unsupported"),
    Rule("min_items", "and a `minItems` other than 0 or 1 (0 and 1 stay)",
         case=case_label(ARRAYS_CASE), hint="min_items"),
    Rule("described", "Write each removed keyword and its value into that node's `\"description\"`",
         case=RANGED, hint="described"),
    Rule("described_after", 'after what it said: `"How many. (minimum: 1)"`, so the model still '
         'reads the limit', case=NESTED, hint="described_after"),
    Rule("required", '`"required"` stays as it was: Anthropic accepts optional properties',
         case=RANGED, hint="required"),
    Rule("keep", "Everything else stays: descriptions, enums, defaults, titles, `$ref`s",
         case=RANGED, hint="keep"),
    Rule("nested", "Nested objects get all of this too", case=RANGED, hint="unwalked"),
    Rule("branches", 'in the branches of `"anyOf"` and `"allOf"` and in `"$defs"` as well',
         case=case_label(DEFINITIONS_CASE), hint="unwalked"),
)  # fmt: skip

HINTS = Catalog(also=(to_strict.HINTS,)) | {
    "mutated": (
        "Do not change the tool you were given: build new dicts (the input_schema and every node "
        "in it), or start from copy.deepcopy(tool)."
    ),
    "not_dict": "Return the new tool, a dict with name, description, input_schema and strict.",
    "not_json": (
        "What anthropic_strict returns must be plain JSON data: dicts with string keys, lists, "
        "strings, numbers, booleans and None."
    ),
    "strict_flag": (
        'Add "strict": true to the tool (beside input_schema, not inside it), and keep its name '
        "and description: that flag is what turns on Anthropic's strict mode."
    ),
    "closed": (
        'Anthropic\'s strict mode needs "additionalProperties": false on every object, nested '
        'ones too: set it wherever there are "properties".'
    ),
    "open_map": (
        'An object whose keys are not fixed (dict[str, X], a bare "object", additionalProperties '
        "true or a schema) cannot be strict on Anthropic either: raise ValueError."
    ),
    "no_open_map": (
        'This tool has no open map, so do not raise: an object that lists "properties" but '
        'leaves "additionalProperties" out is a closed record, and "properties": {{}} is a tool '
        "without parameters."
    ),
    "unsupported": (
        "Anthropic's strict mode refuses {keyword} (the API said: {message}). Remove every "
        "keyword of UNSUPPORTED from every node, and write it into the description instead."
    ),
    "min_items": (
        'minItems is supported only as 0 or 1: remove a "minItems" of 2 or more (into the '
        "description, like the others) and keep 0 or 1 as they are."
    ),
    "described": (
        "{keyword} was removed but the description does not say it: write each removed keyword "
        'and its value after what the description said, e.g. "How many. (minimum: 1)", so the '
        "model still reads the limit."
    ),
    "described_after": (
        "The removed keywords belong after what the description said, not before it: "
        '"How many. (minimum: 1)", so the description still begins with its own words.'
    ),
    "required": (
        '"required" must stay as it was: Anthropic\'s strict mode accepts optional properties '
        "(making them required and nullable is OpenAI's rule, 06.2)."
    ),
    "keep": (
        "Keep everything else as it was (descriptions, enums, defaults, titles, $refs): only the "
        "keywords Anthropic refuses go, and the description only grows."
    ),
    "nested": (
        "This node came back exactly as it was given: every schema node needs the rules, not "
        "only the top one. Walk into each property, items, the branches of anyOf and allOf, and "
        "$defs."
    ),
    "unwalked": (
        "This node came back exactly as it was given, still with {keywords}, which Anthropic's "
        "strict mode refuses: at every schema node, not only the top one, remove each keyword of "
        "UNSUPPORTED into the description. Walk into each property, items, the branches of anyOf "
        "and allOf, and $defs."
    ),
    "accepts": (
        "The strict schema must still accept what the original accepted (only keywords that "
        "limit values may go)."
    ),
}
hint = HINTS.hint


# --- judging a result ---------------------------------------------------------------------------


def api_refusal(schema: Any) -> str | None:
    """The 400 the local model (like the real API) gives for ``schema`` as a strict tool."""
    if not isinstance(schema, dict):
        return "input_schema: Input should be a valid dictionary"
    try:
        check_rules(schema, WHERE)
    except ProtocolError as error:
        return str(error)
    except (KeyError, IndexError):  # the local model's message for additionalProperties that is a
        return text("open_object")  # schema has braces in it and fails to format (reported)
    return None


def refusal_hint(message: str) -> HintText:
    if "additionalProperties" in message:
        return hint("closed")
    if "'minItems'" in message:
        return hint("min_items")
    keyword = next((word for word in UNSUPPORTED if word in message), "a keyword")
    return hint("unsupported", keyword=keyword, message=message)


def removed(node: dict) -> list[str]:
    """The keywords of ``node`` a correct answer removes."""
    found = [key for key in UNSUPPORTED if key in node]
    if node.get("minItems", 0) not in (0, 1):
        found.append("minItems")
    return found


def node_problem(where: str, given: dict, out: dict) -> tuple[HintText, str] | None:
    """(hint, what was expected) for the first rule ``out`` breaks at this node, else None."""
    gone = removed(given)
    if "minItems" in given and "minItems" not in gone and out.get("minItems") != given["minItems"]:
        return hint("min_items"), text("kept", what=f"minItems {given['minItems']}")
    description = out.get("description")
    for keyword in gone:
        if not isinstance(description, str) or keyword not in description:
            return hint("described", keyword=keyword), text("described", keyword=keyword)
    if is_object(given) and out.get("required") != given.get("required"):
        shown = json.dumps(given.get("required"))
        return hint("required"), text("required_kept", required=shown)
    before = given.get("description")
    if isinstance(before, str) and (not isinstance(description, str) or before not in description):
        shown = json.dumps(before, ensure_ascii=False)
        return hint("keep"), text("kept", what=f"description {shown}")
    if gone and isinstance(before, str) and not description.startswith(before):
        shown = json.dumps(before, ensure_ascii=False)
        return hint("described_after"), text("described_after", description=shown)
    for key, value in given.items():
        if key not in gone and key not in CHANGED and out.get(key) != value:
            return hint("keep"), text("kept", what=key)
    return None


CHANGED = ("description", "properties", "items", "anyOf", "allOf", "$defs", "additionalProperties")


def expect_strict_tool(learner: Learner, case: AnthropicCase) -> None:
    __tracebackhide__ = True
    label = case_label(case.name)
    reply = run_on_copy(learner, "anthropic_strict", "tool", case.tool)
    wanted, unchanged = Plain(text("strict_tool")), Plain(text("unchanged_input"))
    out = returned_dict(label, reply, case.tool, hint, wanted, unchanged, hint("no_open_map"))
    if out.get("strict") is not True or out.get("name") != case.tool["name"]:
        fail(label, wanted, out, hint("strict_flag"))
    given, schema = case.tool["input_schema"], out.get("input_schema")
    expect_nodes(label, given, schema, unwalked)
    message = api_refusal(schema)
    if message is not None:
        fail(label, Plain(text("accepted")), Plain(text("refused", message=message)),
             refusal_hint(message))  # fmt: skip
    expect_nodes(label, given, schema, node_problem)
    to_strict.expect_accepts(label, schema, case.sample, hint("accepts"))


def unwalked(where: str, given: dict, out: Any) -> tuple[HintText, str] | None:
    """(hint, what was expected) when a node that needs a change came back exactly as given
    (or went missing), else None."""
    if where == "$" or not (removed(given) or is_object(given)):
        return None
    if isinstance(out, dict) and out != given:
        return None
    kept = removed(given)
    chosen = hint("unwalked", keywords=", ".join(kept)) if kept else hint("nested")
    return chosen, text("accepted")


def expect_nodes(label: str, given: dict, out: Any, problem_at: Any) -> None:
    """Node by node, in the order ``schema_nodes`` walks both (they share their shape): the
    first for which ``problem_at(where, given node, node out)`` finds a problem fails."""
    __tracebackhide__ = True
    found = dict(schema_nodes(out))
    for where, node in schema_nodes(given):
        problem = problem_at(where, node, found.get(where))
        if problem is not None:
            chosen, expected = problem
            fail(label, Plain(expected), found.get(where), chosen, where=text("at", where=where))


@exercise("06.5", notebook=NOTEBOOK, title="anthropic_strict", points=2, rules=RULES, hints=HINTS)
def check_anthropic_strict(learner: Learner) -> str:
    for case in CASES:
        expect_strict_tool(learner, case)
    for name, tool in OPEN_MAPS:
        reply = run_on_copy(learner, "anthropic_strict", "tool", tool)
        expect_open_map_refused(case_label(name), reply, Plain(text("value_error")), hint)
    return text("summary", count=len(CASES), maps=len(OPEN_MAPS))
