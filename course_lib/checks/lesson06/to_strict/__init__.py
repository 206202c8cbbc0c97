"""Exercise 06.2, ``to_strict(schema) -> dict``: strict mode as a transformation.

Each schema (``cases.py``) is sent as JSON; the driver calls ``to_strict`` beside the
learner's code and sends back both the result and the input as it is afterwards, so a changed
input shows. The result is judged by structure (every object closed, every property required,
in order, no ``default`` keyword) and by meaning, with ``jsonschema`` on the check's side: it
still accepts a complete argument object, accepts ``null`` exactly where a property used to be
optional, and keeps descriptions, enums and references. Rules, the case that breaks each, and
the hint that names it: see ``RULES``.
"""

from __future__ import annotations

import copy
import json
from typing import Any

from course_lib import schema_library
from course_lib.checks.catalog import Catalog
from course_lib.checks.compare import HintText, Plain, fail
from course_lib.checks.core import Rule, exercise
from course_lib.checks.learner import Learner
from course_lib.checks.lesson06._roles_and_answers import (
    NOTEBOOK,
    expect_open_map_refused,
    returned_dict,
    run_on_copy,
)
from course_lib.checks.lesson06.to_strict.cases import (
    DEEP_CASE,
    EMPTY_CASE,
    MAY_REFUSE,
    NAMED_DEFAULT_CASE,
    NESTED_CASE,
    OPEN_MAP_CASE,
    OPEN_MAPS,
    STRICT_CASES,
    WEATHER_CASE,
    Path,
    StrictCase,
    hidden_cases,
    said,
)

TEXTS = Catalog() | {
    "case": "to_strict({name})",
    "strict_schema": "a strict schema",
    "unchanged_input": "the input schema unchanged",
    "value_error": "ValueError (an open map cannot be strict)",
    "at": "at {where}",
    "accepts": "a schema that accepts {sample}",
    "null_ok": "null accepted for the formerly optional {path}",
    "null_refused": "null refused for the required {path}",
    "kept": "{what} kept",
    "named_default_kept": "the property named default kept",
    "summary": "{count} schemas made strict, {maps} open maps refused",
}
text = TEXTS.text


def case_label(name: str) -> str:
    return text("case", name=said(name))


FIRST, NESTED = case_label(WEATHER_CASE), case_label(NESTED_CASE)
RULES = (
    Rule("no_mutation", "Return a new schema; never change the one you were given", case=FIRST,
         hint="mutated"),
    Rule("defaults", 'Remove every `"default"` keyword', case=FIRST, hint="defaults"),
    Rule("named_default", "A property *named* `default` is not the keyword: it stays",
         case=case_label(NAMED_DEFAULT_CASE), hint="named_default"),
    Rule("open_maps", 'An object node (`"type"` is or lists `"object"`, or it has `"properties"`) '
         'without `"properties"`, or whose `"additionalProperties"` is `true` or a schema, is an '
         'open map: raise `ValueError`', case=case_label(OPEN_MAP_CASE), hint="open_map"),
    Rule("closed_record", '`"properties"` without `"additionalProperties"` is a closed record, '
         'not an open map', case=NESTED, hint="closed_record"),
    Rule("empty", 'Neither is `"properties": {}`', case=case_label(EMPTY_CASE), hint="empty"),
    Rule("closed", 'Every object gets `"additionalProperties": false`', case=NESTED, hint="closed"),
    Rule("required", '`"required"` lists every property', case=FIRST, hint="required"),
    Rule("order", 'in the order of `"properties"`, not sorted', case=FIRST, hint="order"),
    Rule("nullable", 'A property that was not required becomes nullable: it accepts `null` too, '
         'nothing else new (`{"type": "string"}` without `"enum"` becomes '
         '`{"type": ["string", "null"]}`, anything else `{"anyOf": [schema, {"type": "null"}]}`; '
         'any spelling accepting the same passes)', case=FIRST, hint="nullable"),
    Rule("required_unchanged", "A property that was required stays as it was", case=FIRST,
         hint="required_unchanged"),
    Rule("nested", "Nested objects get all of this too", case=NESTED, hint="nested"),
    Rule("deep", "at any depth: an object in an object in an object", case=case_label(DEEP_CASE),
         hint="deep"),
    Rule("keep", "Descriptions, enums and `$ref`s stay (`title` may go)", case=FIRST, hint="keep"),
)  # fmt: skip

HINTS = Catalog() | {
    "mutated": (
        "Do not change the schema you were given: build new dicts (or start from "
        "copy.deepcopy(schema))."
    ),
    "not_dict": "Return the new schema, a dict.",
    "not_json": (
        "What to_strict returns must be plain JSON data: dicts with string keys, lists, strings, "
        "numbers, booleans and None."
    ),
    "defaults": (
        'Remove every "default" keyword, wherever it is: in each property, in items, in the '
        "branches of anyOf, oneOf, allOf and prefixItems, and in $defs."
    ),
    "named_default": 'Only the "default" keyword goes: a property named default stays.',
    "nested": (
        "This object came back exactly as it was given: every object needs the rules, not only "
        "the top one. Walk into each property, items, the branches of anyOf, oneOf, allOf and "
        "prefixItems, and $defs."
    ),
    "deep": (
        "This object, {levels} levels down, came back exactly as it was given: your walk stops "
        "too early. Call the same function on every schema it contains, and let that call do "
        "the same, so the rules reach every depth."
    ),
    "closed": 'Set "additionalProperties": false on every object, nested ones too.',
    "required": 'List every property in "required", in every object.',
    "order": 'List "required" in the order of "properties" (list(properties)), not sorted.',
    "accepts": (
        "The strict schema must still accept everything the original accepted when every "
        "property is given."
    ),
    "nullable": (
        'A property that was optional must accept null now: "type": ["string", "null"], or '
        '{{"anyOf": [schema, {{"type": "null"}}]}} when there is an enum or no single type (a type '
        "list with null still fails an enum that lacks null)."
    ),
    "required_unchanged": (
        "Only formerly optional properties become nullable; required ones stay as they were."
    ),
    "keep": "Keep descriptions, enums and $refs as they are: the model still needs them.",
    "open_map": (
        'An object whose keys are not fixed (dict[str, X], a bare "object", additionalProperties '
        "true or a schema) cannot be strict: raise ValueError. Rewriting it to "
        "additionalProperties false, as langchain-core does, makes an object that accepts no "
        "keys at all."
    ),
    "open_map_type": "Refuse an open map with ValueError, not {type}.",
    "closed_record": (
        'This schema has no open map, so do not raise. An object that lists "properties" but '
        'leaves "additionalProperties" out is a closed record here (parameter schemas often '
        'omit it): give it "additionalProperties": false. Raise only when "properties" is '
        'missing, or "additionalProperties" is true or a schema.'
    ),
    "empty": (
        'This schema has no open map, so do not raise. "properties": {{}} is an object with a '
        "fixed, empty set of keys (a tool without parameters); only a missing "
        '"properties" key makes an open map.'
    ),
    "no_open_map": "This schema has no open map: make it strict instead of raising.",
}
hint = HINTS.hint


# --- reading schemas --------------------------------------------------------------------------


def schema_nodes(node: Any, where: str = "$") -> list[tuple[str, dict]]:
    """Every schema node with where it sits; property names are never mistaken for keywords."""
    if not isinstance(node, dict):
        return []
    found = [(where, node)]
    properties = node.get("properties")
    for name, child in (properties if isinstance(properties, dict) else {}).items():
        found += schema_nodes(child, f"{where}.properties.{name}")
    for key in ("items", "additionalProperties"):
        if isinstance(node.get(key), dict):
            found += schema_nodes(node[key], f"{where}.{key}")
    for key in ("anyOf", "oneOf", "allOf", "prefixItems"):
        branches = node.get(key)
        for index, child in enumerate(branches if isinstance(branches, list) else []):
            found += schema_nodes(child, f"{where}.{key}[{index}]")
    definitions = node.get("$defs")
    for name, child in (definitions if isinstance(definitions, dict) else {}).items():
        found += schema_nodes(child, f"{where}.$defs.{name}")
    return found


def is_object(node: dict) -> bool:
    kind = node.get("type")
    return "properties" in node or kind == "object" or (isinstance(kind, list) and "object" in kind)


def structure_problem(out: dict, given: dict) -> tuple[str, str] | None:
    """(where, hint key) of the first node that breaks a strict-mode rule, else None."""
    originals = [node for _, node in schema_nodes(given)]
    for where, node in schema_nodes(out):
        if "default" in node:
            return where, "defaults"
        if not is_object(node):
            continue
        names = list(node.get("properties") or {})
        required = node.get("required")
        listed = isinstance(required, list) and sorted(map(str, required)) == sorted(names)
        closed = node.get("additionalProperties") is False
        if where != "$" and node in originals and not (closed and listed):
            return where, "deep" if where.count(".properties.") > 1 else "nested"
        if not closed:
            return where, "closed"
        if not listed:
            return where, "required"
        if required != names:
            return where, "order"
    return None


def refusal_hint(schema: dict) -> HintText:
    """Why a ValueError on a schema without open maps is wrong, judged from the input."""
    objects = [node for _, node in schema_nodes(schema) if is_object(node)]
    if any("additionalProperties" not in node for node in objects):
        return hint("closed_record")
    if any(node.get("properties") == {} for node in objects):
        return hint("empty")
    return hint("no_open_map")


def missing_kept(schema: dict, out: dict) -> str | None:
    """The first description, enum or $ref of ``schema`` that ``out`` lost, else None. An enum
    may gain ``null`` (a nullable enum lists it), so its values need only all be there."""
    out_nodes = [node for _, node in schema_nodes(out)]
    out_text = json.dumps(out, ensure_ascii=False)
    for _, node in schema_nodes(schema):
        for key in ("description", "$ref"):
            value = node.get(key)
            if isinstance(value, str) and json.dumps(value, ensure_ascii=False) not in out_text:
                return f"{key} {json.dumps(value, ensure_ascii=False)}"
        values = node.get("enum")
        if isinstance(values, list) and not any(
            isinstance(other.get("enum"), list) and all(v in other["enum"] for v in values)
            for other in out_nodes
        ):
            return f"enum {json.dumps(values, ensure_ascii=False)}"
    return None


def _with(sample: Any, path: Path, value: Any) -> Any:
    changed = copy.deepcopy(sample)
    target = changed
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return changed


# --- the check --------------------------------------------------------------------------------


def expect_strict(learner: Learner, case: StrictCase, *, may_refuse: bool = False) -> None:
    __tracebackhide__ = True
    label = case_label(case.name)
    reply = run_on_copy(learner, "to_strict", "schema", case.schema)
    if may_refuse and reply.raised_a("ValueError"):
        return
    wanted, unchanged = Plain(text("strict_schema")), Plain(text("unchanged_input"))
    refused = refusal_hint(case.schema)
    out = returned_dict(label, reply, case.schema, hint, wanted, unchanged, refused)
    problem = structure_problem(out, case.schema)
    if problem:
        where, key = problem
        chosen = hint(key, levels=where.count(".properties."))
        fail(label, wanted, out, chosen, where=text("at", where=where))
    expect_meaning(label, case, out)


def expect_meaning(label: str, case: StrictCase, out: dict) -> None:
    """The strict schema keeps what the model needs and accepts what it should, no more."""
    __tracebackhide__ = True
    if "default" in case.schema.get("properties", {}) and "default" not in out.get(
        "properties", {}
    ):
        fail(label, Plain(text("named_default_kept")), out, hint("named_default"))
    lost = missing_kept(case.schema, out)
    if lost is not None:
        fail(label, Plain(text("kept", what=lost)), out, hint("keep"))
    strict = expect_accepts(label, out, case.sample, hint("accepts"))
    original = schema_library.load().Draft202012Validator(case.schema)
    for path in case.optional:
        if not strict.is_valid(_with(case.sample, path, None)):
            where = ".".join(map(str, path))
            fail(label, Plain(text("null_ok", path=where)), out, hint("nullable"))
    for path in case.required:
        with_null = _with(case.sample, path, None)
        if strict.is_valid(with_null) and not original.is_valid(with_null):
            where = ".".join(map(str, path))
            fail(label, Plain(text("null_refused", path=where)), out, hint("required_unchanged"))


def expect_accepts(label: str, schema: dict, sample: Any, chosen: HintText) -> Any:
    """A validator of ``schema`` (06.2's and 06.5's answers), which must accept ``sample``."""
    __tracebackhide__ = True
    jsonschema = schema_library.load()  # slow to import: load on use
    validator = jsonschema.Draft202012Validator(schema)
    if not validator.is_valid(sample):
        shown = json.dumps(sample, ensure_ascii=False)
        fail(label, Plain(text("accepts", sample=shown)), schema, chosen)
    return validator


@exercise("06.2", notebook=NOTEBOOK, title="to_strict", points=3, rules=RULES, hints=HINTS)
def check_to_strict(learner: Learner) -> str:
    cases = [*STRICT_CASES, *hidden_cases()]
    for case in cases:
        expect_strict(learner, case)
    for case in MAY_REFUSE:
        expect_strict(learner, case, may_refuse=True)
    for name, schema in OPEN_MAPS:
        reply = run_on_copy(learner, "to_strict", "schema", schema)
        expect_open_map_refused(case_label(name), reply, Plain(text("value_error")), hint)
    return text("summary", count=len(cases) + len(MAY_REFUSE), maps=len(OPEN_MAPS))
