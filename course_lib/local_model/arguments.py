"""Filling a tool's arguments (or a structured output) from the words of a request.

The toy model does what a small LLM does, visibly: it reads each parameter's name, type and
description, then looks in the request for something of that kind (``finders.py``): an enum
value that is mentioned, a number for ``integer``/``number``, a quoted string, a known place for
a city-like parameter, a known person for a name-like one, a list for an ``array``.
Parameters that draw on the same pool share it by role ("from X to Y", ``roles.py``).

What it does with a parameter it cannot fill depends on the schema: a required one with a
``default`` gets the default, a nullable required one gets ``null`` (strict mode turns an
optional parameter into one of those two); any other required one is
reported *missing* (the policy then asks instead of guessing, unless the call is forced: then
:func:`complete_required` puts in a type-correct placeholder). When a request names several
things for one single-valued parameter ("Beijing, Shanghai and Shenzhen"), the result holds one
set of arguments per thing: one call each. Every value found has its parameter's JSON type.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from course_lib.local_model import finders
from course_lib.local_model import text as txt
from course_lib.local_model.finders import parameter_kind
from course_lib.local_model.roles import fill_by_role
from course_lib.local_model.schema_values import (
    admits_null,
    declared_default,
    first_non_null,
    fits,
    json_type,
    options,
    placeholder,
    resolve,
)

MAX_DEPTH = 12  # nested objects filled from the request; deeper ones get placeholders


@dataclass
class Filled:
    """Arguments found for one tool: one dict per call, and the required parameters not found."""

    calls: list[dict[str, Any]] = field(default_factory=lambda: [{}])
    missing: list[str] = field(default_factory=list)


class Reader:
    """One request, read for one schema: numbers and currencies are handed out in order."""

    def __init__(self, request: str, properties: dict[str, Any], concepts: set[str]) -> None:
        self.request = request
        wants_expression = any(
            isinstance(s, dict)
            and json_type(s) in ("string", None)
            and parameter_kind(n, s) == "expression"
            for n, s in properties.items()
        )
        self.wants_expression = wants_expression
        self.numbers = iter(finders.numbers(request, wants_expression))
        self.currencies = iter(code for _, code in finders.currency_mentions(request))
        self.concepts = concepts
        self.language = "zh" if txt.mostly_chinese(request) else "en"

    def values(self, name: str, schema: Any, root: dict) -> list[Any]:
        """Candidate values for one parameter, in the order the request mentions them."""
        option = first_non_null(schema, root)
        if "const" in option:
            return [option["const"]]
        if isinstance(option.get("enum"), list):
            return finders.enum_values([o for o in option["enum"] if o is not None], self.request)[
                :1
            ]
        kind = json_type(option)
        if kind in ("integer", "number"):
            value = next(self.numbers, None)
            if value is None:
                return []
            return [int(value) if kind == "integer" else value]
        if kind in ("boolean", "null", "object"):
            return []
        if kind == "array":
            return self._list(name, option, root)
        return self._strings(name, option, listing=False)

    def _list(self, name: str, option: dict, root: dict) -> list[Any]:
        items = first_non_null(option.get("items", {}), root)
        kind = json_type(items)
        if isinstance(items.get("enum"), list):
            return finders.enum_values(items["enum"], self.request)
        if kind in ("integer", "number"):
            found = finders.numbers(self.request, self.wants_expression)
            return [int(v) for v in found] if kind == "integer" else found
        if kind in ("boolean", "null", "object", "array"):
            return []
        described = {**items, "description": finders.description(option)}
        return self._strings(name, described, listing=True)

    def _strings(self, name: str, schema: dict, *, listing: bool) -> list[str]:
        kind = parameter_kind(name, schema)
        if kind == "place":
            return finders.mentioned(txt.PLACES, self.request)
        if kind == "person":
            return finders.mentioned(txt.PEOPLE, self.request)
        if kind == "language":
            found = finders.distinct(finders.language_mentions(self.request))
            return found[1:] if len(found) > 1 and not listing else found  # "from X to Y": Y
        if kind == "currency":
            value = next(self.currencies, None)
            return [value] if value else []
        if kind == "expression":
            match = txt.EXPRESSION.search(self.request)
            return [match.group(0).strip()] if match else []
        if kind == "tag":
            return finders.tags(self.request)
        found = finders.quoted(self.request)
        if found:
            return found if listing else found[:1]
        if kind == "query":
            topic = finders.topic(self.request, self.concepts)
            return [topic] if topic else []
        return []


def _tool_parts(tool: dict[str, Any]) -> tuple[dict, dict[str, Any], set[str]]:
    parameters = tool.get("parameters")
    parameters = parameters if isinstance(parameters, dict) else {}
    properties = parameters.get("properties")
    properties = properties if isinstance(properties, dict) else {}
    required = {r for r in parameters.get("required") or [] if isinstance(r, str)}
    return parameters, properties, required


def fill_arguments(tool: dict[str, Any], request: str) -> Filled:
    """Read ``request`` for values of each parameter of ``tool`` (a function dict)."""
    parameters, properties, required = _tool_parts(tool)
    concepts = txt.concepts(f"{tool.get('name', '')} {tool.get('description', '')}")
    reader = Reader(request, properties, concepts)
    shared, by_role = fill_by_role(properties, request)
    single: dict[str, Any] = {}
    fan_name: str | None = None
    fan_values: list[Any] = []
    missing: list[str] = []
    for name, schema in properties.items():
        values = _parameter_values(reader, name, schema, parameters, shared, by_role)
        if not values:
            has_default, default = declared_default(schema, parameters)
            if name in required and has_default:  # what strict mode makes of an optional one
                single[name] = default
            elif name in required and admits_null(schema, parameters):
                single[name] = None
            elif name in required:
                missing.append(name)
            continue
        is_list = json_type(first_non_null(schema, parameters)) == "array"
        if is_list or len(values) == 1 or fan_name is not None:
            single[name] = values if is_list else values[0]
        else:
            fan_name, fan_values = name, values
    if fan_name is None:
        return Filled([_ordered(properties, single)], missing)
    calls = [_ordered(properties, {**single, fan_name: value}) for value in fan_values]
    return Filled(calls, missing)


def _parameter_values(reader, name, schema, root, shared, by_role) -> list[Any]:
    if name in shared:
        return [by_role[name]] if name in by_role else []
    if json_type(first_non_null(schema, root)) == "object":
        value, found = fill_value(reader, name, schema, root)
        return [value] if found else []
    return reader.values(name, schema, root)


def complete_required(tool: dict[str, Any], arguments: dict[str, Any], language: str) -> dict:
    """``arguments`` with a type-correct placeholder for every required parameter still absent.

    What a forced call (``tool_choice="required"`` or a named tool) sends when the request does
    not say: the call must satisfy the tool's own ``required``, as a real model's does.
    """
    parameters, properties, required = _tool_parts(tool)
    completed = dict(arguments)
    for name in properties:
        if name in required and name not in completed:
            completed[name] = placeholder(properties[name], parameters, language)
    return _ordered(properties, completed)


def _ordered(properties: dict, arguments: dict) -> dict:
    return {key: arguments[key] for key in properties if key in arguments}


# -- nested values (objects, lists of objects): structured outputs and object parameters --------


def fill_value(reader: Reader, name: str, schema: Any, root: dict, depth: int = 0):
    """``(value, found)``: a value for ``schema`` read from the request, or its placeholder.

    Tries each option of the schema in order (``anyOf`` branches, type lists) and keeps the
    first one the request has something for; a value that does not fit the option's type or
    bounds is not used. ``found`` says whether anything came from the request.
    """
    if depth <= MAX_DEPTH:
        for option in options(schema, root):
            value, found = _fill_option(reader, name, option, root, depth)
            if found:
                return value, True
    return placeholder(schema, root, reader.language, depth), False


def _fill_option(reader: Reader, name: str, option: dict, root: dict, depth: int):
    kind = json_type(option)
    if kind == "null":
        return None, False
    if kind == "object" and "enum" not in option and "const" not in option:
        return fill_object(reader, option, root, depth + 1)
    items = resolve(option.get("items", {}), root)
    if kind == "array" and json_type(first_non_null(items, root)) in ("object", "array"):
        item, found = fill_value(reader, name, items, root, depth + 1)
        fits_one = not isinstance(option.get("maxItems"), int) or option["maxItems"] >= 1
        return ([item], True) if found and fits_one else (None, False)
    candidates = reader.values(name, option, root)
    if kind == "array":
        item_option = first_non_null(items, root)
        listed = [c for c in candidates if fits(c, item_option)]
        return (listed, True) if listed and fits(listed, option) else (None, False)
    for candidate in candidates:
        if fits(candidate, option):
            return candidate, True
    return None, False


def fill_object(reader: Reader, option: dict, root: dict, depth: int):
    """``(object, found)``: each property filled (by role where they share a pool), required
    ones completed with placeholders; ``found`` when any property came from the request."""
    properties = option.get("properties") if isinstance(option.get("properties"), dict) else {}
    required = {r for r in option.get("required") or [] if isinstance(r, str)}
    shared, by_role = fill_by_role(properties, reader.request)
    out: dict[str, Any] = {}
    found_any = False
    for key, sub in properties.items():
        if key in shared and key in by_role and fits(by_role[key], first_non_null(sub, root)):
            out[key], found = by_role[key], True
        elif key in shared:
            found = False
        else:
            value, found = fill_value(reader, key, sub, root, depth)
            if found:
                out[key] = value
        found_any = found_any or found
        if not found and key in required:
            out[key] = placeholder(sub, root, reader.language, depth + 1)
    return out, found_any
