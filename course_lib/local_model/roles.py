"""Sharing one kind of value between parameters by their role: "convert 12 km **to** miles".

When two parameters draw from the same pool (one enum, or both places, currencies, languages or
people), giving each the first thing mentioned is wrong: ``from_unit`` and ``to_unit`` would
both get ``km``. A small LLM reads the roles instead, and so does the toy model:

* a parameter's **role** comes from its name (``from_unit``, ``origin``, ``to_city``,
  ``target_language``), else from the last role word of its description ("Currency code to
  convert from" is a source);
* a mention's **role** comes from the word right before it: "from X", "从X" mark a source;
  "to Y", "into Y", "in Y", "as Y", "→ Y", "到Y", "成Y" mark a target; else a thing right after a
  number is the source ("how many feet is 5 meters");
* sources take the mention marked as a source, targets the one marked as a target; whatever is
  left goes by order of mention (sources first), so "12 km miles" still reads left to right.
"""

from __future__ import annotations

import re
from typing import Any

from course_lib.local_model import finders
from course_lib.local_model import text as txt
from course_lib.local_model.finders import parameter_kind

SOURCE, TARGET, NEUTRAL = "source", "target", "neutral"
SOURCE_WORDS = r"from|source|src|origin|original|input|start|departure|old|源|原|出发"
TARGET_WORDS = r"to|into|target|dest|destination|output|end|arrival|new|目标|目的"
ROLE_WORD = re.compile(rf"(?<![A-Za-z])({SOURCE_WORDS}|{TARGET_WORDS})(?![A-Za-z])", re.I)
SOURCE_MARK = re.compile(r"(?:(?<![A-Za-z])from|从|由)\s*$", re.I)
TARGET_MARK = re.compile(r"(?:(?<![A-Za-z])(?:to|into|in|as)|→|->|=>|到|成|为)\s*$", re.I)
SHARED_KINDS = ("place", "person", "currency", "language")
LOOK_BACK = 24  # characters before a mention searched for "from"/"to"


def parameter_role(name: str, schema: dict) -> str:
    """``source``, ``target`` or ``neutral``: the name's first role word, else the description's
    last one ("Currency code to convert from" is a source)."""
    spaced = re.sub(r"([a-z])([A-Z])", r"\1 \2", name).replace("_", " ").replace("-", " ")
    in_name = ROLE_WORD.findall(spaced)
    if in_name:
        return _role(in_name[0])
    in_description = ROLE_WORD.findall(finders.description(schema))
    return _role(in_description[-1]) if in_description else NEUTRAL


def _role(word: str) -> str:
    return SOURCE if re.fullmatch(SOURCE_WORDS, word, flags=re.I) else TARGET


def mention_role(request: str, position: int) -> str:
    """Whether the words right before a mention mark it as a source or a target.

    "from X" and "to Y" decide; otherwise a thing right after a number is what the number is
    measured in, so it is the source ("5 meters", "100 美元").
    """
    raw = request[max(0, position - LOOK_BACK) : position]
    before = re.sub(r"[\d.,\s]+$", "", raw)
    if SOURCE_MARK.search(before):
        return SOURCE
    if TARGET_MARK.search(before):
        return TARGET
    if re.search(r"\d\s*$", raw):
        return SOURCE
    return NEUTRAL


def pool_of(name: str, schema: dict) -> tuple | None:
    """What a single-valued parameter draws from: its enum, or a kind of thing; None if neither."""
    if not isinstance(schema, dict) or schema.get("type") == "array":
        return None
    if isinstance(schema.get("enum"), list):
        try:
            return ("enum", tuple(schema["enum"]))
        except TypeError:
            return None
    declared = schema.get("type", "string")
    if declared != "string" and not (isinstance(declared, list) and "string" in declared):
        return None  # kinds of things are strings: an integer "city_id" draws on numbers
    kind = parameter_kind(name, schema)
    return ("kind", kind) if kind in SHARED_KINDS else None


def pool_mentions(pool: tuple, request: str) -> list[tuple[int, Any]]:
    """(position, value) of every mention of the pool's values, in order."""
    if pool[0] == "enum":
        return finders.enum_mentions(list(pool[1]), request)
    kind = pool[1]
    if kind == "place":
        return finders.mentions(txt.PLACES, request)
    if kind == "person":
        return finders.mentions(txt.PEOPLE, request)
    if kind == "currency":
        return finders.currency_mentions(request)
    return finders.language_mentions(request)


def shared_pools(properties: dict[str, Any]) -> list[tuple[tuple, list[str]]]:
    """Pools drawn on by two or more parameters, each with its parameters in property order."""
    groups: dict[tuple, list[str]] = {}
    for name, schema in properties.items():
        pool = pool_of(name, schema)
        if pool is not None:
            groups.setdefault(pool, []).append(name)
    return [(pool, names) for pool, names in groups.items() if len(names) > 1]


def assign(names: list[str], roles: dict[str, str], hits: list[tuple[int, Any]], request: str):
    """Give each parameter one mention by role; returns ``{name: value}`` for those that got one."""
    marked = [(position, value, mention_role(request, position)) for position, value in hits]
    taken: set[int] = set()
    chosen: dict[str, Any] = {}

    def take(name: str, wanted: str | None) -> None:
        for position, value, role in marked:
            if position not in taken and (wanted is None or role == wanted):
                taken.add(position)
                chosen[name] = value
                return

    for name in names:
        if roles[name] in (SOURCE, TARGET):
            take(name, roles[name])
    ordered = [n for n in names if roles[n] == SOURCE] + [n for n in names if roles[n] != SOURCE]
    for name in ordered:
        if name not in chosen:
            take(name, None)
    return chosen


def fill_by_role(properties: dict[str, Any], request: str) -> tuple[set[str], dict[str, Any]]:
    """Parameters that share a pool, and the value each gets: ``(shared names, {name: value})``."""
    shared: set[str] = set()
    values: dict[str, Any] = {}
    for pool, names in shared_pools(properties):
        shared.update(names)
        roles = {name: parameter_role(name, properties[name]) for name in names}
        values.update(assign(names, roles, pool_mentions(pool, request), request))
    return shared, values
