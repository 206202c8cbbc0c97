"""Finding values of one kind in a request: enum members, numbers, places, quoted text, tags.

Each finder returns what it found **in the order the request mentions it**, so several
parameters can share the findings in a meaningful way (``roles.py``), and several things for
one parameter can become several calls (``arguments.py``).
"""

from __future__ import annotations

import functools
import re
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
# Parameter names that always mean a person's name ("name" alone: what a record of a person has).
PERSON_NAMES = ("name", "full_name", "fullname", "person_name", "first_name", "customer_name")
ENUM_SYNONYMS: dict[str, tuple[str, ...]] = {
    "c": ("celsius", "centigrade", "摄氏", "°c"),
    "f": ("fahrenheit", "华氏", "°f"),
    "celsius": ("摄氏", "°c", "centigrade"),
    "fahrenheit": ("华氏", "°f"),
    "asc": ("ascending", "升序"),
    "desc": ("descending", "降序"),
    "km": ("kilometers", "kilometres", "kilometer", "kilometre", "公里", "千米"),
    "kilometers": ("km", "kilometres", "公里", "千米"),
    "mi": ("miles", "mile", "英里"),
    "miles": ("mile", "mi", "英里"),
    "m": ("meters", "metres", "meter", "metre"),
    "meters": ("metres", "meter", "metre"),
    "kg": ("kilograms", "kilogram", "公斤", "千克"),
    "lb": ("pounds", "pound", "lbs", "磅"),
    "g": ("grams", "gram"),
    "cm": ("centimeters", "centimetres", "厘米"),
    "ft": ("feet", "foot", "英尺"),
    "today": ("今天", "今日"),
    "tomorrow": ("明天", "明日"),
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

# A parameter named like these wants an identifier (an order number, a SKU): ``order_id``, ``sku``.
IDENTIFIER_NAME = re.compile(r"(?:^|_)(?:id|sku|code)$", re.IGNORECASE)
# An identifier as written in a request: capitals and digits, at least one of each ("A1001",
# "SKU-42"), also right next to Chinese text ("订单A1002到哪了").
IDENTIFIER = re.compile(
    r"(?<![A-Za-z0-9])(?=[A-Z0-9-]*\d)(?=[0-9-]*[A-Z])[A-Z0-9][A-Z0-9-]*(?![A-Za-z0-9])"
)

# Which kind of thing a string parameter wants, recognised from its name and description.
KIND_WORDS: dict[str, tuple[str, ...]] = {
    "place": (
        "city",
        "cities",
        "location",
        "place",
        "town",
        "where",
        "country",
        "城市",
        "地点",
        "位置",
    ),
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


def description(schema: Any) -> str:
    """A schema's description as text ("" when it has none, or one that is not a string)."""
    value = schema.get("description") if isinstance(schema, dict) else None
    return value if isinstance(value, str) else ""


def parameter_kind(name: str, schema: dict[str, Any]) -> str:
    """Classify a parameter ("place", "person", "query", ...) from its name and description."""
    return _kind_of(name, description(schema))


@functools.lru_cache(maxsize=4096)  # the same tools come back in every request of a conversation
def _kind_of(name: str, described: str) -> str:
    if name.lower() in PERSON_NAMES:
        return "person"
    words = f"{name.replace('_', ' ')} {described}".lower()
    name_words = name.lower().replace("_", " ")
    for kind, markers in KIND_WORDS.items():  # the name decides first, then the description
        if any(re.search(rf"\b{re.escape(m)}\b", name_words) or m in name for m in markers):
            return kind
    if IDENTIFIER_NAME.search(name):
        return "identifier"
    for kind, markers in KIND_WORDS.items():
        if any(m in words for m in markers):
            return kind
    return "text"


def mentions(candidates, request: str) -> list[tuple[int, str]]:
    """(position, name) of every known name in the request; the longest match wins a span."""
    hits: list[tuple[int, str]] = []
    taken: list[range] = []
    lowered = request.lower()
    for candidate in sorted(candidates, key=len, reverse=True):
        if candidate.lower() not in lowered:
            continue
        pattern = re.escape(candidate)
        if not txt.is_chinese(candidate):
            pattern = rf"(?<![A-Za-z]){pattern}(?![A-Za-z])"
        for match in re.finditer(pattern, request, flags=re.IGNORECASE):
            span = range(match.start(), match.end())
            if any(span.start < t.stop and t.start < span.stop for t in taken):
                continue
            taken.append(span)
            hits.append((match.start(), candidate))
    return sorted(hits)


def distinct(hits: list[tuple[int, Any]]) -> list[Any]:
    """The values of (position, value) hits, first mention first, each once."""
    seen: list[Any] = []
    for _, value in hits:
        if value not in seen:
            seen.append(value)
    return seen


def mentioned(candidates, request: str) -> list[str]:
    """Known names found in the request, in order of appearance, each once."""
    return distinct(mentions(candidates, request))


def enum_mentions(options: list, request: str) -> list[tuple[int, Any]]:
    """(position, member) of every mention of an enum member (or a synonym of it)."""
    lowered = request.lower()
    hits: list[tuple[int, Any]] = []
    taken: list[range] = []
    spellings = []
    for option in options:
        word = str(option).lower()
        for spelling in (word, *ENUM_SYNONYMS.get(word, ())):
            if spelling and not (len(spelling) < 2 and spelling.isalpha()):
                spellings.append((spelling, option))  # a bare "c" or "f" means nothing
    for spelling, option in sorted(spellings, key=lambda pair: -len(pair[0])):
        if spelling not in lowered:
            continue  # the cheap test first: a long enum costs one substring search per member
        pattern = re.escape(spelling)
        if spelling.isascii() and spelling[-1].isalnum():
            pattern = rf"(?<![a-z0-9]){pattern}(?![a-z0-9])"
        for match in re.finditer(pattern, lowered):
            span = range(match.start(), match.end())
            if any(span.start < t.stop and t.start < span.stop for t in taken):
                continue
            taken.append(span)
            hits.append((match.start(), option))
    return sorted(hits, key=lambda hit: hit[0])


def enum_values(options: list, request: str) -> list[Any]:
    """Enum members the request mentions, first mention first, each once."""
    return distinct(enum_mentions(options, request))


ENGLISH_NUMBER = re.compile(
    r"(?<![A-Za-z])(" + "|".join(ENGLISH_NUMBERS) + r")(?![A-Za-z])", flags=re.IGNORECASE
)
CHINESE_COUNT = re.compile(r"([一二两三四五六七八九十])(?=[条个篇本天项次件份位])")
# One pattern per currency word, compiled once (a request is searched for every one of them).
CURRENCY_PATTERNS = [
    (
        re.compile(
            re.escape(word) if txt.is_chinese(word) else rf"(?<![A-Za-z]){word}(?![A-Za-z])",
            flags=re.IGNORECASE,
        ),
        code,
    )
    for word, code in txt.CURRENCIES.items()
]


def numbers(request: str, wants_expression: bool) -> list[float | int]:
    """Numbers in order of appearance; digits inside an arithmetic expression do not count."""
    text = txt.EXPRESSION.sub(" ", request) if wants_expression else request
    found: list[tuple[int, float | int]] = []
    for match in NUMBER.finditer(text):
        value = float(match.group(0))
        found.append((match.start(), int(value) if value.is_integer() else value))
    for match in ENGLISH_NUMBER.finditer(text):
        found.append((match.start(), ENGLISH_NUMBERS[match.group(1).lower()]))
    for match in CHINESE_COUNT.finditer(text):
        found.append((match.start(), CHINESE_DIGITS[match.group(1)]))
    return [value for _, value in sorted(found, key=lambda hit: hit[0])]


def currency_mentions(request: str) -> list[tuple[int, str]]:
    """(position, ISO code) of every currency the request names."""
    hits: list[tuple[int, str]] = []
    for pattern, code in CURRENCY_PATTERNS:
        for match in pattern.finditer(request):
            hits.append((match.start(), code))
    return sorted(hits)


def language_mentions(request: str) -> list[tuple[int, str]]:
    """(position, language name) of every language the request names."""
    return [(position, txt.LANGUAGES[word]) for position, word in mentions(txt.LANGUAGES, request)]


def identifiers(request: str) -> list[str]:
    """Identifiers such as order numbers ("A1001"), in order of appearance, each once."""
    return distinct((m.start(), m.group(0)) for m in IDENTIFIER.finditer(request))


def quoted(request: str) -> list[str]:
    return [next(g for g in match.groups() if g) for match in txt.QUOTED.finditer(request)]


def tags(request: str) -> list[str]:
    match = TAG_TRIGGER.search(request)
    if not match:
        return []
    tail = re.split(r"[.?!;。？！；]|\s+(?:about|limit|top)\b", match.group(1))[0]
    found = [t.strip(" '\"“”") for t in LIST_SPLIT.split(tail)]
    return [t for t in found if t and not t.isdigit()]


def topic(request: str, tool_concepts: set[str]) -> str | None:
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
