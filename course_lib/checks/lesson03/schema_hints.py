"""The likely mistake behind a wrong schema, looking into nested schemas (03.4 and 03.6).

Each hint is the one the exercise of that part gives (03.1's for unions, 03.3's for containers),
so a learner reads the same sentence for the same mistake wherever it shows.
"""

from __future__ import annotations

from typing import Any

from course_lib.checks.catalog import Catalog
from course_lib.checks.compare import Hint, HintText, matching_hint
from course_lib.checks.lesson03 import containers, enums, union
from course_lib.checks.parameter_schemas import HINTS as SHARED_HINTS

HINTS = Catalog() | {
    "union_as_string": (
        "A union became a plain string: your code did not recognise it and fell back to "
        "string. `int | None` is a types.UnionType and `Optional[int]` a typing.Union; "
        "typing.get_origin() tells you which, typing.get_args() gives the members."
    ),
    "string_fallback": (
        'This came out as {{"type": "string"}}: a fallback guessed it. Raise TypeError for what '
        "you cannot map, and resolve string annotations with typing.get_type_hints()."
    ),
}


def _is_null(schema: Any) -> bool:
    return schema == {"type": "null"}


def rules(expected: dict, got: dict) -> list[Hint]:
    """(predicate on got, hint) pairs for one schema where expected and got differ."""
    branches = expected.get("anyOf", [])
    members = [branch for branch in branches if not _is_null(branch)]
    nullable = len(branches) > len(members)
    return [
        (lambda g: expected == {"type": "boolean"} and g.get("type") == "integer",
         SHARED_HINTS.hint("bool")),
        (lambda g: "enum" in expected and "enum" not in g, enums.hint("enum_missing")),
        (lambda g: branches and "anyOf" not in g and isinstance(g.get("type"), list),
         union.hint("type_list")),
        (lambda g: nullable and g == {"type": "string"}, HINTS.hint("union_as_string")),
        (lambda g: nullable and ("anyOf" not in g or not any(map(_is_null, g["anyOf"]))),
         union.hint("null_dropped")),
        (lambda g: branches and "anyOf" not in g and g in members, union.hint("collapsed")),
        (lambda g: branches and len(g["anyOf"]) == len(branches)
         and all(branch in branches for branch in g["anyOf"]), union.hint("order")),
        (lambda g: "prefixItems" in expected and "prefixItems" not in g,
         containers.hint("prefix_items")),
        (lambda g: "prefixItems" in expected and any(
            g.get(key) != expected.get(key) for key in ("minItems", "maxItems", "items")),
         containers.hint("tuple_length")),
        (lambda g: expected.get("uniqueItems") and not g.get("uniqueItems"),
         containers.hint("unique")),
        (lambda g: "items" in expected and "items" not in g, containers.hint("items")),
        (lambda g: "additionalProperties" in expected and "additionalProperties" not in g,
         containers.hint("additional")),
        (lambda g: g == {"type": "string"} and expected != {"type": "string"},
         HINTS.hint("string_fallback")),
    ]  # fmt: skip


def schema_hint(expected: Any, got: Any) -> HintText | None:
    """The likely mistake behind ``got`` where ``expected`` was due, looking into nested schemas;
    ``None`` when no known mistake fits."""
    if expected == got or not isinstance(got, dict) or not isinstance(expected, dict):
        return None
    found = matching_hint(got, rules(expected, got))
    if found is not None:
        return found
    for key, value in expected.items():
        other = got.get(key)
        if isinstance(value, dict):
            children = [(value, other)]
        elif isinstance(value, list) and isinstance(other, list) and len(value) == len(other):
            children = list(zip(value, other, strict=True))
        else:
            continue
        if key == "properties" and isinstance(other, dict):
            children = [(value[name], other.get(name)) for name in value]
        for child_expected, child_got in children:
            found = schema_hint(child_expected, child_got)
            if found:
                return found
    return None
