"""Making a value valid for its schema: what constrained decoding guarantees a real model.

With Anthropic's strict tool use and structured outputs the real API decodes under a grammar
built from the schema, so a tool's ``input`` and the JSON text always validate. The local
model's policy fills values from the request (``arguments.py``, ``structured.py``), which is
right almost always; :func:`conform` makes it always: it keeps every part of a value that
already validates and puts a deterministic placeholder (``schema_values.placeholder``) where
something is missing or wrong. A string with a ``pattern`` gets the shortest text the pattern
accepts (:func:`pattern_sample`), since a placeholder sentence would not match it.

Validation is ``jsonschema``'s Draft 2020-12 validator, the oracle the tests use too. It is
imported on first use, through ``course_lib.schema_library`` (its import is slow), and every
notebook kernel imports the local model.
"""

from __future__ import annotations

import re
import string
from typing import Any

from course_lib import schema_library
from course_lib.local_model.schema_values import first_non_null, json_type, placeholder, resolve

try:  # Python 3.11+: the parser behind ``re``; 3.10 has the same module as ``sre_parse``
    from re import _parser as sre_parse  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - Python 3.10
    import sre_parse  # type: ignore[no-redef]

MAX_DEPTH = 24
CANDIDATES = string.ascii_lowercase + string.digits + string.ascii_uppercase + " _-.,:/@"


def conform(value: Any, schema: dict[str, Any]) -> Any:
    """``value`` if it validates against ``schema``, else the nearest value that does."""
    Draft202012Validator = schema_library.load().Draft202012Validator  # slow: load on use
    from jsonschema.exceptions import SchemaError
    from referencing.exceptions import Unresolvable

    try:
        validator = Draft202012Validator(schema)
        if validator.is_valid(value):
            return value
        return _repair(value, schema, schema, validator, 0)
    except (SchemaError, RecursionError, re.error, Unresolvable):
        return value  # a schema jsonschema cannot use (strict ones are checked before)


def _repair(value: Any, schema: Any, root: dict, validator: Any, depth: int) -> Any:
    node = validator.evolve(schema=schema)
    if node.is_valid(value):
        return value
    option = first_non_null(schema, root)
    if depth < MAX_DEPTH and json_type(option) == "object" and isinstance(value, dict):
        properties = option.get("properties") or {}
        kept = {
            key: _repair(item, properties[key], root, validator, depth + 1)
            for key, item in value.items()
            if key in properties
        }
        for key in option.get("required") or []:
            if key not in kept and key in properties:
                kept[key] = _filler(properties[key], root)
        if node.is_valid(kept):
            return kept
    if depth < MAX_DEPTH and json_type(option) == "array" and isinstance(value, list):
        items = option.get("items", {})
        fixed = [_repair(item, items, root, validator, depth + 1) for item in value]
        if node.is_valid(fixed):
            return fixed
    return _filler(schema, root)


def _filler(schema: Any, root: dict) -> Any:
    value = placeholder(schema, root)
    option = first_non_null(schema, root)
    pattern = resolve(option, root).get("pattern")
    if isinstance(value, str) and isinstance(pattern, str) and not _matches(pattern, value):
        sample = pattern_sample(pattern)
        return value if sample is None else sample
    return value


def _matches(pattern: str, text: str) -> bool:
    try:
        return re.search(pattern, text) is not None
    except re.error:
        return True


def pattern_sample(pattern: str) -> str | None:
    """The shortest simple text ``pattern`` accepts (``re.search``), or None when it is not
    a pattern of the kind JSON Schema uses (no backreferences, no lookaround)."""
    try:
        text = _emit(sre_parse.parse(pattern))
    except (re.error, ValueError, TypeError, RecursionError):
        return None
    return text if _matches(pattern, text) else None


def _emit(items: Any) -> str:
    out: list[str] = []
    for op, argument in items:
        name = str(op)
        if name == "LITERAL":
            out.append(chr(argument))
        elif name == "NOT_LITERAL":
            out.append(_first(lambda c, excluded=argument: ord(c) != excluded))
        elif name == "ANY":
            out.append(CANDIDATES[0])
        elif name == "IN":
            out.append(_first(lambda c, members=argument: _in_class(c, members)))
        elif name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
            low, _, sub = argument
            out.append(_emit(sub) * low)
        elif name in ("SUBPATTERN", "ATOMIC_GROUP"):
            out.append(_emit(argument[-1] if name == "SUBPATTERN" else argument))
        elif name == "BRANCH":
            out.append(min((_emit(branch) for branch in argument[1]), key=len))
        elif name != "AT":
            raise ValueError(f"no sample for {name}")
    return "".join(out)


def _first(accepts: Any) -> str:
    found = next((char for char in CANDIDATES if accepts(char)), None)
    if found is None:
        raise ValueError("no simple character fits")
    return found


def _in_class(char: str, members: list) -> bool:
    negated = bool(members) and str(members[0][0]) == "NEGATE"
    found = False
    for op, argument in members[1:] if negated else members:
        name = str(op)
        if name == "LITERAL":
            found = found or ord(char) == argument
        elif name == "RANGE":
            found = found or argument[0] <= ord(char) <= argument[1]
        elif name == "CATEGORY":
            found = found or _in_category(char, str(argument))
    return found != negated


def _in_category(char: str, category: str) -> bool:
    tests = {
        "CATEGORY_DIGIT": char.isdigit(),
        "CATEGORY_NOT_DIGIT": not char.isdigit(),
        "CATEGORY_SPACE": char.isspace(),
        "CATEGORY_NOT_SPACE": not char.isspace(),
        "CATEGORY_WORD": char.isalnum() or char == "_",
        "CATEGORY_NOT_WORD": not (char.isalnum() or char == "_"),
    }
    return tests.get(category, False)
