"""Reading a JSON Schema the way the toy model needs to: its alternatives, and a safe placeholder.

Two jobs need the same reading. Filling structured output (``structured.py``) and completing a
forced tool call must produce a value that *validates* against the schema even when the request
says nothing about it; filling arguments must know whether a parameter may be ``null``. Here a
schema's ``$ref``, ``anyOf``/``oneOf``, ``allOf`` and type lists are unfolded into plain
*options* (one JSON type each), and :func:`placeholder` builds the deterministic stand-in value:
``null`` where allowed, the first ``enum`` member, the ``const``, a minimum that fits the bounds,
a string that says it was not found (or a sample of its ``format``), ``[]`` or the ``minItems``
needed, an object with every required property.
"""

from __future__ import annotations

from typing import Any

from course_lib.local_model.tool_schemas import resolve_ref

MAX_DEPTH = 24  # recursive schemas ($ref to itself) stop here with the smallest valid value
FORMAT_SAMPLES = {
    "date-time": "1970-01-01T00:00:00Z",
    "date": "1970-01-01",
    "time": "00:00:00Z",
    "duration": "P0D",
    "email": "unknown@example.com",
    "idn-email": "unknown@example.com",
    "hostname": "example.com",
    "idn-hostname": "example.com",
    "ipv4": "0.0.0.0",
    "ipv6": "::",
    "uri": "https://example.com/",
    "iri": "https://example.com/",
    "uri-reference": "https://example.com/",
    "uuid": "00000000-0000-0000-0000-000000000000",
}
NOT_FOUND = {
    "en": "(not found in the request)",
    "zh": "（请求中没有找到）",
}


def resolve(schema: Any, root: dict, depth: int = 0) -> dict:
    """The schema with its ``$ref`` followed (``{}`` for anything that is not a schema)."""
    while isinstance(schema, dict) and isinstance(schema.get("$ref"), str) and depth < MAX_DEPTH:
        target = resolve_ref(root, schema["$ref"])
        if target is None:
            return {k: v for k, v in schema.items() if k != "$ref"}
        extra = {k: v for k, v in schema.items() if k != "$ref"}
        schema = {**target, **extra}
        depth += 1
    return schema if isinstance(schema, dict) else {}


def options(schema: Any, root: dict, depth: int = 0) -> list[dict]:
    """The alternatives a value may take, each with at most one JSON ``type``.

    ``anyOf``/``oneOf`` branches are unfolded, ``allOf`` members merged, and a type list
    (``["string", "null"]``) split into one option per type.
    """
    schema = resolve(schema, root)
    if depth > MAX_DEPTH:
        return [schema]
    for keyword in ("allOf",):
        members = schema.get(keyword)
        if isinstance(members, list) and members:
            merged = {k: v for k, v in schema.items() if k != keyword}
            for member in members:
                merged = {**resolve(member, root), **merged}
            return options(merged, root, depth + 1)
    for keyword in ("anyOf", "oneOf"):
        branches = schema.get(keyword)
        if isinstance(branches, list) and branches:
            rest = {k: v for k, v in schema.items() if k != keyword}
            found: list[dict] = []
            for branch in branches:
                found.extend(options({**rest, **resolve(branch, root)}, root, depth + 1))
            return found
    kind = schema.get("type")
    if isinstance(kind, list):
        return [{**schema, "type": one} for one in kind if isinstance(one, str)] or [schema]
    return [schema]


def json_type(option: dict) -> str | None:
    """The one JSON type of an option (``None`` when the schema does not say)."""
    kind = option.get("type")
    if isinstance(kind, str):
        return kind
    if "properties" in option:
        return "object"
    if "items" in option:
        return "array"
    return None


def admits_null(schema: Any, root: dict) -> bool:
    """Whether ``null`` is a valid value (a nullable parameter, or ``None`` in an enum)."""
    for option in options(schema, root):
        if json_type(option) == "null" or None in (option.get("enum") or []):
            return True
        if "const" in option and option["const"] is None:
            return True
    return False


def first_non_null(schema: Any, root: dict) -> dict:
    """The first option that is not ``null`` (what a value should look like when there is one)."""
    for option in options(schema, root):
        if json_type(option) != "null":
            return option
    return {"type": "null"}


def declared_default(schema: Any, root: dict) -> tuple[bool, Any]:
    """``(True, value)`` when the schema declares a ``default`` that is a valid value of it."""
    resolved = resolve(schema, root)
    if "default" not in resolved:
        return False, None
    value = resolved["default"]
    return any(fits(value, option) for option in options(resolved, root)), value


def placeholder(schema: Any, root: dict, language: str = "en", depth: int = 0) -> Any:
    """A deterministic value that validates against ``schema``: what to send when nothing fits.

    The schema's own ``default`` comes first (a model reads it as "use this unless told"), then
    ``null`` where allowed, then a value built from the type and its bounds.
    """
    has_default, value = declared_default(schema, root)
    if has_default:
        return value
    if admits_null(schema, root):
        return None
    option = first_non_null(schema, root)
    if "const" in option:
        return option["const"]
    if isinstance(option.get("enum"), list) and option["enum"]:
        return option["enum"][0]
    kind = json_type(option)
    if kind == "boolean":
        return False
    if kind in ("integer", "number"):
        return number_in_bounds(option, 0, integer=kind == "integer")
    if kind == "array":
        count = option.get("minItems", 0) if isinstance(option.get("minItems"), int) else 0
        if depth >= MAX_DEPTH or count <= 0:
            return []
        return [placeholder(option.get("items", {}), root, language, depth + 1)] * count
    if kind == "object":
        return placeholder_object(option, root, language, depth)
    return string_placeholder(option, language)


def placeholder_object(option: dict, root: dict, language: str, depth: int) -> dict[str, Any]:
    properties = option.get("properties") or {}
    required = [key for key in option.get("required") or [] if key in properties]
    if depth >= MAX_DEPTH:
        return {}
    return {key: placeholder(properties[key], root, language, depth + 1) for key in required}


def string_placeholder(option: dict, language: str = "en") -> str:
    """The format's sample, or a sentence saying nothing was found, fitted to the length bounds."""
    text = FORMAT_SAMPLES.get(option.get("format", ""), NOT_FOUND.get(language, NOT_FOUND["en"]))
    return fit_length(text, option)


def fit_length(text: str, option: dict) -> str:
    """Pad (with ``_``) or cut ``text`` so it meets ``minLength``/``maxLength``."""
    low, high = option.get("minLength"), option.get("maxLength")
    if isinstance(high, int) and len(text) > high:
        text = text[: max(high, 0)]
    if isinstance(low, int) and len(text) < low:
        text += "_" * (low - len(text))
    return text


def number_in_bounds(option: dict, value: float, *, integer: bool) -> int | float:
    """``value`` moved inside ``minimum``/``maximum`` (and exclusive bounds), as an int if asked."""
    low = option.get("minimum")
    high = option.get("maximum")
    above = option.get("exclusiveMinimum")
    below = option.get("exclusiveMaximum")
    step = 1 if integer else 0.5
    if isinstance(low, (int, float)) and value < low:
        value = low
    if isinstance(above, (int, float)) and not isinstance(above, bool) and value <= above:
        value = above + step
    if isinstance(high, (int, float)) and value > high:
        value = high
    if isinstance(below, (int, float)) and not isinstance(below, bool) and value >= below:
        value = below - step
    multiple = option.get("multipleOf")
    if isinstance(multiple, (int, float)) and multiple > 0 and not isinstance(multiple, bool):
        value = -(-value // multiple) * multiple  # the next multiple up
    if integer:
        return int(-(-value // 1)) if value != int(value) else int(value)
    return value


_TYPE_CHECKS = {
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "string": lambda v: isinstance(v, str),
    "boolean": lambda v: isinstance(v, bool),
    "array": lambda v: isinstance(v, list),
    "object": lambda v: isinstance(v, dict),
    "null": lambda v: v is None,
}


def has_type(value: Any, target: Any) -> bool:
    """Whether ``value`` is of the JSON type ``target`` (a list of types means any of them; a
    type this does not know admits anything)."""
    if isinstance(target, list):
        return any(has_type(value, one) for one in target)
    return _TYPE_CHECKS.get(target, lambda v: True)(value)


def fits(value: Any, option: dict) -> bool:
    """Whether a found value has the option's JSON type and sits inside its simple bounds."""
    kind = json_type(option)
    if isinstance(option.get("enum"), list) and value not in option["enum"]:
        return False
    if "const" in option and value != option["const"]:
        return False
    if kind is not None and not has_type(value, kind):
        return False
    if kind in ("integer", "number"):
        return number_in_bounds(option, value, integer=kind == "integer") == value
    if kind == "string":
        return fit_length(value, option) == value
    return True
