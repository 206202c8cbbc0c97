"""The schemas exercise 06.2 sends to ``to_strict``, each with what a strict version must accept.

A case is a name (shown in the case label), a schema, one complete argument object the schema
accepts, the paths of the properties that were optional (their strict version must accept
``null``) and of those that were required (it must not start to). Every schema is plain JSON;
``WEATHER_PARAMETERS`` and ``SCORES_PARAMETERS`` are what ``parameters_schema`` gives for the
two functions named in their comments (the tests prove it).
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass
from typing import Any

from course_lib.checks.compare import hidden_rng
from course_lib.i18n import ENGLISH, translate

# The cases' names as a label shows them: said in the learner's language at the failure; a
# case and a rule hold the English (``name``), which ``said`` turns into the words in force.
CASE_TEXTS = {
    "hidden": "hidden schema {index} {schema}",  # a hidden case's label
    "deep": "objects three levels deep",
    "nested": "a nested object and an array of objects",
    "refs": "$defs with $ref",
    "named_default": "a property named default",
    "empty": "no parameters at all",
    "any_of": "anyOf with an object branch",
    "all_of": "allOf with an object branch",
    "one_of": "oneOf with an object branch",
    "prefix_items": "prefixItems with an object",
    "open_map": "parameters_schema(scores) with weights: dict[str, int]",
    "bare_object": 'a bare {{"type": "object"}} property',
    "open_top": "additionalProperties: true at the top",
    "map_in_items": "an open map inside array items",
}
NAME_KEYS = {translate(CASE_TEXTS, key, ENGLISH): key for key in CASE_TEXTS if key != "hidden"}


def english(key: str) -> str:
    return translate(CASE_TEXTS, key, ENGLISH)


def said(name: str) -> str:
    """A case's name in the language in force (a name that is code, or a hidden case's label,
    made when the check ran, as it is)."""
    return translate(CASE_TEXTS, NAME_KEYS[name]) if name in NAME_KEYS else name


Path = tuple[Any, ...]


@dataclass(frozen=True)
class StrictCase:
    name: str
    schema: dict
    sample: dict
    optional: tuple[Path, ...] = ()
    required: tuple[Path, ...] = ()


# def get_weather(city: str, unit: Literal["c", "f"] = "c", days: int | None = None,
#                 tags: list[str] | None = None) -> dict   (with a Google docstring)
WEATHER_PARAMETERS = {
    "type": "object",
    "properties": {
        "city": {"type": "string", "description": "A city, e.g. 北京."},
        "unit": {"type": "string", "enum": ["c", "f"], "description": "c or f.", "default": "c"},
        "days": {
            "type": ["integer", "null"],
            "description": "How many days ahead.",
            "default": None,
        },
        "tags": {
            "anyOf": [{"type": "array", "items": {"type": "string"}}, {"type": "null"}],
            "description": "Labels to attach.",
            "default": None,
        },
    },
    "required": ["city"],
    "additionalProperties": False,
}
# def scores(names: list[str], weights: dict[str, int]) -> int
SCORES_PARAMETERS = {
    "type": "object",
    "properties": {
        "names": {"type": "array", "items": {"type": "string"}},
        "weights": {"type": "object", "additionalProperties": {"type": "integer"}},
    },
    "required": ["names", "weights"],
    "additionalProperties": False,
}


def object_node(properties: dict, required: list[str], **more: Any) -> dict:
    return {"type": "object", "properties": properties, "required": required, **more}


def closed_node(properties: dict, required: list[str], **more: Any) -> dict:
    """An object node that is closed already (``"additionalProperties": false``)."""
    return object_node(properties, required, additionalProperties=False, **more)


STRING, NUMBER = {"type": "string"}, {"type": "number"}
NESTED = closed_node(
    {
        "trip": object_node(
            {"city": {"type": "string", "default": "北京"},
             "nights": {"type": "integer", "description": "晚数"}},
            ["nights"],
        ),
        "stops": {"type": "array",
                  "items": object_node({"city": STRING, "note": STRING}, ["city"])},
    },
    ["trip"],
)  # fmt: skip
REFS = closed_node(
    {"home": {"$ref": "#/$defs/Place"}, "work": {"$ref": "#/$defs/Place"}},
    ["home"],
    **{"$defs": {"Place": object_node({"city": STRING, "zip": {"type": "string", "default": ""}},
                                      ["city"])}},
)  # fmt: skip
NAMED_DEFAULT = closed_node(
    {"default": {"type": "boolean", "default": False}, "name": STRING}, ["name"]
)
EMPTY = closed_node({}, [])
BRANCHES = closed_node(
    {"target": {"anyOf": [object_node({"user": STRING}, []), STRING]}}, ["target"]
)
ALL_OF = closed_node(
    {"when": {"allOf": [object_node({"city": STRING, "days": {"type": "integer", "default": 1}},
                                    ["city"])]}},
    ["when"],
)  # fmt: skip
ONE_OF = closed_node(
    {"contact": {"oneOf": [object_node({"email": STRING, "name": STRING}, ["email"]),
                           {"type": "string", "description": "a phone number"}]}},
    ["contact"],
)  # fmt: skip
PREFIX_ITEMS = closed_node(
    {"point": {"type": "array",
               "prefixItems": [object_node({"lat": NUMBER, "label": STRING}, ["lat"])]}},
    ["point"],
)  # fmt: skip

# Objects three levels down, and an array of arrays of objects: a walker that stops after one
# level passes every case above and fails this one.
ADDRESS = object_node({"city": STRING, "street": {"type": "string", "default": ""}}, ["city"])
DAYS = {"type": "array", "items": object_node({"stop": STRING, "note": STRING}, ["stop"])}
DEEP = closed_node(
    {"trip": closed_node({"hotel": object_node({"name": STRING, "address": ADDRESS}, ["name"]),
                          "days": {"type": "array", "items": DAYS}},
                         ["hotel"])},
    ["trip"],
)  # fmt: skip

WEATHER_CASE = "parameters_schema(get_weather)"
DEEP_CASE = english("deep")
NESTED_CASE = english("nested")
NAMED_DEFAULT_CASE = english("named_default")
EMPTY_CASE = english("empty")
ALL_OF_CASE = english("all_of")


def paths(*dotted: str) -> tuple[Path, ...]:
    """Paths written with dots: ``"stops.0.note"`` is ``("stops", 0, "note")``."""
    return tuple(tuple(int(k) if k.isdigit() else k for k in path.split(".")) for path in dotted)


DEEP_SAMPLE = {"trip": {"hotel": {"name": "锦江", "address": {"city": "上海", "street": "南京路"}},
                        "days": [[{"stop": "外滩", "note": "早上去"}]]}}  # fmt: skip
STRICT_CASES = (
    StrictCase(WEATHER_CASE, WEATHER_PARAMETERS, {"city": "北京", "unit": "f", "days": 3,
               "tags": ["a"]}, paths("unit", "days", "tags"), paths("city")),
    StrictCase(NESTED_CASE, NESTED, {"trip": {"city": "上海", "nights": 2},
                                     "stops": [{"city": "北京", "note": "x"}]},
               paths("stops", "trip.city", "stops.0.note"),
               paths("trip", "trip.nights", "stops.0.city")),
    StrictCase(english("refs"), REFS, {"home": {"city": "北京", "zip": "100000"},
                                       "work": {"city": "上海", "zip": "200000"}},
               paths("work", "home.zip"), paths("home", "home.city")),
    StrictCase(NAMED_DEFAULT_CASE, NAMED_DEFAULT, {"default": True, "name": "张三"},
               paths("default"), paths("name")),
    StrictCase(EMPTY_CASE, EMPTY, {}),
    StrictCase(english("any_of"), BRANCHES, {"target": {"user": "ada"}}, paths("target.user"),
               paths("target")),
    StrictCase(ALL_OF_CASE, ALL_OF, {"when": {"city": "北京", "days": 2}}, paths("when.days"),
               paths("when", "when.city")),
    StrictCase(DEEP_CASE, DEEP, DEEP_SAMPLE,
               paths("trip.days", "trip.hotel.address", "trip.hotel.address.street",
                     "trip.days.0.0.note"),
               paths("trip", "trip.hotel", "trip.hotel.name", "trip.hotel.address.city",
                     "trip.days.0.0.stop")),
)  # fmt: skip
# Walked like anyOf by the exercise's rules; the real strict mode (and the reference to_strict)
# refuses oneOf and prefixItems instead, so a ValueError is accepted here too.
MAY_REFUSE = (
    StrictCase(english("one_of"), ONE_OF, {"contact": {"email": "a@example.com", "name": "张三"}},
               paths("contact.name"), paths("contact", "contact.email")),
    StrictCase(english("prefix_items"), PREFIX_ITEMS, {"point": [{"lat": 39.9, "label": "北京"}]},
               paths("point.0.label"), paths("point", "point.0.lat")),
)  # fmt: skip
OPEN_MAP_CASE = english("open_map")
OPEN_MAP_ROWS = {"type": "array", "items": {"type": "object", "additionalProperties": NUMBER}}
OPEN_MAPS: tuple[tuple[str, dict], ...] = (
    (OPEN_MAP_CASE, SCORES_PARAMETERS),
    (english("bare_object"), closed_node({"meta": {"type": "object"}}, ["meta"])),
    (english("open_top"),
     {"type": "object", "properties": {"a": STRING}, "additionalProperties": True}),
    (english("map_in_items"), closed_node({"rows": OPEN_MAP_ROWS}, ["rows"])),
)  # fmt: skip

KINDS = {
    "string": ({"type": "string"}, "北京", "x"),
    "integer": ({"type": "integer"}, 3, 0),
    "number": ({"type": "number"}, 1.5, 0),
    "boolean": ({"type": "boolean"}, True, False),
    "enum": ({"type": "string", "enum": ["c", "f"]}, "f", "c"),
    "array": ({"type": "array", "items": {"type": "string"}}, ["上海"], []),
}
NAMES = ["city", "城市", "limit", "unit", "tags", "days", "flag", "query"]


def hidden_cases(count: int = 8) -> list[StrictCase]:
    """Flat schemas of four properties of random kinds, some required, most others defaulted."""
    rng = hidden_rng("06.2")
    cases = []
    for index in range(count):
        names = rng.sample(NAMES, 4)
        required = sorted(rng.sample(names, rng.randint(0, 3)), key=names.index)
        properties, sample = {}, {}
        for name in names:
            schema, value, default = KINDS[rng.choice(list(KINDS))]
            schema = copy.deepcopy(schema)
            if name not in required and rng.random() < 0.7:
                schema["default"] = default
            properties[name], sample[name] = schema, value
        schema = closed_node(properties, required)
        shown = json.dumps(schema, ensure_ascii=False)
        label = translate(CASE_TEXTS, "hidden", index=index, schema=shown)
        optional = tuple((n,) for n in names if n not in required)
        cases.append(StrictCase(label, schema, sample, optional, tuple((n,) for n in required)))
    return cases
