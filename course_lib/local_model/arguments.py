"""Filling a tool's arguments from the words of a request, one parameter type at a time.

The toy model does what a small LLM does, visibly: it reads each parameter's name, type and
description, then looks in the request for something of that kind: an enum value that is
mentioned, a number for ``integer``/``number``, a quoted string, a known place for a city-like
parameter, a known person for a name-like one, a list for an ``array``. A required parameter it
cannot fill is reported as *missing* (the policy then asks instead of guessing). When a request
names several things for a single-valued parameter ("Beijing, Shanghai and Shenzhen"), the result
holds one set of arguments per thing: one call each.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from course_lib.local_model import text as txt

NUMBER = re.compile(r"(?<![A-Za-z0-9_.])-?\d+(?:\.\d+)?(?![A-Za-z0-9_]|\.\d)")
CHINESE_DIGITS = {
    "一": 1,
    "二": 2,
    "两": 2,
    "三": 3,
    "四": 4,
    "五": 5,
    "六": 6,
    "七": 7,
    "八": 8,
    "九": 9,
    "十": 10,
}
ENGLISH_NUMBERS = {
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "twenty": 20,
}
ENUM_SYNONYMS: dict[str, tuple[str, ...]] = {
    "c": ("celsius", "centigrade", "摄氏", "°c"),
    "f": ("fahrenheit", "华氏", "°f"),
    "celsius": ("摄氏", "°c", "centigrade"),
    "fahrenheit": ("华氏", "°f"),
    "asc": ("ascending", "升序"),
    "desc": ("descending", "降序"),
}
TOPIC_TRIGGER = re.compile(
    r"\b(?:about|regarding|mentioning|containing|on|for|named|called|titled|with the word)\s+(.+)",
    re.IGNORECASE,
)
TOPIC_END = re.compile(
    r"\s+(?:tagged|with tags?|labell?ed|limit|top|in my|from my|and show|please)\b"
    r"|[,.?!;，。？！；]",
    re.IGNORECASE,
)
TAG_TRIGGER = re.compile(r"(?:tagged|tags?|labell?ed|labels?|标签(?:是|为)?)\s*[:：]?\s*(.+)", re.I)
LIST_SPLIT = re.compile(r"\s*(?:,|，|、|\band\b|\bor\b|和|或)\s*")

# Which kind of thing a string parameter wants, recognised from its name and description.
KIND_WORDS: dict[str, tuple[str, ...]] = {
    "place": ("city", "location", "place", "town", "where", "country", "城市", "地点", "位置"),
    "person": (
        "person",
        "recipient",
        "contact",
        "who",
        "people",
        "user name",
        "username",
        "姓名",
        "联系人",
        "收件人",
    ),
    "language": ("language", "lang", "语言"),
    "currency": ("currency", "货币", "币种"),
    "expression": ("expression", "expr", "formula", "arithmetic", "表达式", "算式"),
    "tag": ("tag", "label", "category", "标签", "分类"),
    "query": (
        "keyword",
        "query",
        "search",
        "term",
        "topic",
        "text",
        "phrase",
        "subject",
        "关键词",
        "关键字",
        "内容",
        "主题",
        "文本",
    ),
}


@dataclass
class Filled:
    """Arguments found for one tool: one dict per call, and the required parameters not found."""

    calls: list[dict[str, Any]] = field(default_factory=lambda: [{}])
    missing: list[str] = field(default_factory=list)


def parameter_kind(name: str, schema: dict[str, Any]) -> str:
    """Classify a parameter ("place", "person", "query", ...) from its name and description."""
    words = f"{name.replace('_', ' ')} {schema.get('description', '')}".lower()
    name_words = name.lower().replace("_", " ")
    for kind, markers in KIND_WORDS.items():  # the name decides first, then the description
        if any(re.search(rf"\b{re.escape(m)}\b", name_words) or m in name for m in markers):
            return kind
    for kind, markers in KIND_WORDS.items():
        if any(m in words for m in markers):
            return kind
    return "text"


def fill_arguments(tool: dict[str, Any], request: str) -> Filled:
    """Read ``request`` for values of each parameter of ``tool`` (a function dict)."""
    parameters = tool.get("parameters") or {}
    properties: dict[str, dict] = parameters.get("properties") or {}
    required = set(parameters.get("required") or [])
    numbers = iter(_numbers(request, properties))
    currencies = iter(_currencies(request))
    tool_concepts = txt.concepts(f"{tool.get('name', '')} {tool.get('description', '')}")
    single: dict[str, Any] = {}
    fan_name: str | None = None
    fan_values: list[Any] = []
    missing: list[str] = []
    for name, schema in properties.items():
        values = _values_for(name, schema, request, numbers, currencies, tool_concepts)
        if not values:
            if name in required:
                missing.append(name)
            continue
        if _type(schema) == "array" or len(values) == 1 or fan_name is not None:
            single[name] = values if _type(schema) == "array" else values[0]
        else:
            fan_name, fan_values = name, values
    if fan_name is None:
        return Filled([single], missing)
    calls = [_ordered(properties, {**single, fan_name: value}) for value in fan_values]
    return Filled(calls, missing)


def _ordered(properties: dict, arguments: dict) -> dict:
    return {key: arguments[key] for key in properties if key in arguments}


def _type(schema: dict) -> str:
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "string")
    if kind is None:
        for option in schema.get("anyOf") or []:
            if isinstance(option, dict) and option.get("type") not in (None, "null"):
                return _type(option)
    return kind or "string"


def _values_for(name, schema, request, numbers, currencies, tool_concepts) -> list[Any]:
    """Candidate values for one parameter, in the order the request mentions them."""
    kind = _type(schema)
    if "enum" in schema:
        return _enum_values(schema["enum"], request)[:1]
    if kind in ("integer", "number"):
        value = next(numbers, None)
        if value is None:
            return []
        return [int(value) if kind == "integer" else value]
    if kind == "boolean":
        return []
    if kind == "array":
        item_schema = schema.get("items") or {}
        if _type(item_schema) in ("integer", "number"):
            return list(_numbers(request, {name: item_schema}, take_all=True))
        return _string_values(
            name,
            item_schema | {"description": schema.get("description", "")},
            request,
            currencies,
            tool_concepts,
            listing=True,
        )
    return _string_values(name, schema, request, currencies, tool_concepts, listing=False)


def _string_values(name, schema, request, currencies, tool_concepts, *, listing) -> list[str]:
    kind = parameter_kind(name, schema)
    if kind == "place":
        return _mentioned(txt.PLACES, request)
    if kind == "person":
        return _mentioned(txt.PEOPLE, request)
    if kind == "language":
        found = [txt.LANGUAGES[w] for w in _mentioned(list(txt.LANGUAGES), request)]
        return found[1:] if len(found) > 1 and not listing else found  # "from X to Y": Y
    if kind == "currency":
        value = next(currencies, None)
        return [value] if value else []
    if kind == "expression":
        match = txt.EXPRESSION.search(request)
        return [match.group(0).strip()] if match else []
    if kind == "tag":
        return _tags(request)
    quoted = _quoted(request)
    if quoted:
        return quoted if listing else quoted[:1]
    if kind == "query":
        topic = _topic(request, tool_concepts)
        return [topic] if topic else []
    return []


def _mentioned(candidates, request: str) -> list[str]:
    """Known names found in the request, in order of appearance (longest match wins)."""
    hits: list[tuple[int, str]] = []
    taken: list[range] = []
    for candidate in sorted(candidates, key=len, reverse=True):
        pattern = re.escape(candidate)
        if not txt.is_chinese(candidate):
            pattern = rf"(?<![A-Za-z]){pattern}(?![A-Za-z])"
        for match in re.finditer(pattern, request, flags=re.IGNORECASE):
            span = range(match.start(), match.end())
            if any(span.start < t.stop and t.start < span.stop for t in taken):
                continue
            taken.append(span)
            hits.append((match.start(), candidate))
    seen: list[str] = []
    for _, candidate in sorted(hits):
        if candidate not in seen:
            seen.append(candidate)
    return seen


def _enum_values(options: list, request: str) -> list[Any]:
    lowered = request.lower()
    hits: list[tuple[int, Any]] = []
    for option in options:
        spellings = [str(option).lower(), *ENUM_SYNONYMS.get(str(option).lower(), ())]
        for spelling in spellings:
            if len(spelling) < 2 and spelling.isalpha():
                continue  # a bare "c" or "f" in a sentence means nothing
            pattern = re.escape(spelling)
            if spelling.isascii() and spelling[-1].isalnum():
                pattern = rf"(?<![a-z0-9]){pattern}(?![a-z0-9])"
            match = re.search(pattern, lowered)
            if match:
                hits.append((match.start(), option))
                break
    return [option for _, option in sorted(hits, key=lambda hit: hit[0])]


def _numbers(request: str, properties: dict, *, take_all: bool = False) -> list[float | int]:
    """Numbers in order of appearance; digits inside an arithmetic expression do not count."""
    wants_expression = any(
        parameter_kind(n, s) == "expression" for n, s in properties.items() if _type(s) == "string"
    )
    text = txt.EXPRESSION.sub(" ", request) if wants_expression else request
    found: list[tuple[int, float | int]] = []
    for match in NUMBER.finditer(text):
        value = float(match.group(0))
        found.append((match.start(), int(value) if value.is_integer() else value))
    for match in re.finditer(
        r"(?<![A-Za-z])(" + "|".join(ENGLISH_NUMBERS) + r")(?![A-Za-z])", text, flags=re.IGNORECASE
    ):
        found.append((match.start(), ENGLISH_NUMBERS[match.group(1).lower()]))
    for match in re.finditer(r"([一二两三四五六七八九十])(?=[条个篇本天项次件份位])", text):
        found.append((match.start(), CHINESE_DIGITS[match.group(1)]))
    return [value for _, value in sorted(found, key=lambda hit: hit[0])]


def _currencies(request: str) -> list[str]:
    hits: list[tuple[int, str]] = []
    for word, code in txt.CURRENCIES.items():
        pattern = re.escape(word) if txt.is_chinese(word) else rf"(?<![A-Za-z]){word}(?![A-Za-z])"
        for match in re.finditer(pattern, request, flags=re.IGNORECASE):
            hits.append((match.start(), code))
    return [code for _, code in sorted(hits)]


def _quoted(request: str) -> list[str]:
    return [next(g for g in match.groups() if g) for match in txt.QUOTED.finditer(request)]


def _tags(request: str) -> list[str]:
    match = TAG_TRIGGER.search(request)
    if not match:
        return []
    tail = re.split(r"[.?!;。？！；]|\s+(?:about|limit|top)\b", match.group(1))[0]
    tags = [t.strip(" '\"“”") for t in LIST_SPLIT.split(tail)]
    return [t for t in tags if t and not t.isdigit()]


def _topic(request: str, tool_concepts: set[str]) -> str | None:
    """What to search for: the words after "about"/"for", else words no tool concept explains."""
    match = TOPIC_TRIGGER.search(request)
    if match:
        phrase = TOPIC_END.split(match.group(1))[0].strip()
        words = [w for w in phrase.split() if w.lower() not in txt.STOP_WORDS]
        if words:
            return " ".join(words)
    leftover = [
        unit.text
        for unit in txt.units(TAG_TRIGGER.split(request)[0])
        if not unit.alternatives & (tool_concepts | {"place", "contact", "count"})
        and not unit.text.isdigit()
        and unit.text not in CHINESE_DIGITS
    ]
    return " ".join(leftover) if leftover else None
