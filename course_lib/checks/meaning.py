"""Does a free-text message say what a contract asks it to say, in English or in Chinese?

Where a contract leaves the wording of a message to the learner but asks it to name the problem
("a message with the word `missing`"), the check asks for the *meaning*, not an English word:
``缺少必要参数 city`` says "missing" as well as ``city: missing required argument`` does, and
``参数必须是一个 JSON 对象`` says "object". A check names the concept (a key of ``CONCEPTS``) and
:func:`says` accepts any of its spellings; anything else (a path, a tool name, an enum value
written as JSON) must appear as it is.

The spellings are the words a message for a model uses for the problem, not synonyms at large:
JSON Schema's own type names and their usual Chinese terms. They are data, kept here once, so a
check in any lesson judges the same message the same way, and adding a language adds spellings.
"""

from __future__ import annotations

import re

# A concept and every spelling that says it, compared case-insensitively. English first.
CONCEPTS: dict[str, tuple[str, ...]] = {
    # a required parameter that is absent
    "missing": ("missing", "required", "缺少", "缺失", "必填", "必需", "必要", "未提供"),
    # a key the schema does not allow
    "unexpected": (
        "unexpected",
        "unknown",
        "not allowed",
        "未知",
        "多余",
        "不允许",
        "不支持",
        "意外",
    ),
    # arguments that do not parse
    "JSON": ("json", "解析"),
    # a person said no to a call (lesson 09's approval)
    "refused": (
        "refused",
        "declined",
        "denied",
        "rejected",
        "not approved",
        "拒绝",
        "不同意",
        "未批准",
    ),
    # JSON Schema's seven type names
    "object": ("object", "对象"),
    "string": ("string", "字符串"),
    "integer": ("integer", "整数"),
    "number": ("number", "数字", "数值"),
    "boolean": ("boolean", "布尔"),
    "array": ("array", "数组"),
    "null": ("null", "空值"),
}


def spellings(word: str) -> tuple[str, ...]:
    """Every accepted spelling of ``word``: a concept's spellings, else the word itself."""
    return CONCEPTS.get(word, (word,))


def says(message: str, word: str) -> bool:
    """Whether ``message`` says ``word``: any spelling of the concept ``word``, or the literal
    ``word`` (a path, a name, a JSON value) when it is no concept; case does not matter."""
    folded = message.casefold()
    return any(spelling.casefold() in folded for spelling in spellings(word))


def says_all(message: str, words: tuple[str, ...] | list[str]) -> bool:
    return all(says(message, word) for word in words)


def first_unsaid(message: str, words: tuple[str, ...] | list[str]) -> str | None:
    """The first of ``words`` that ``message`` does not say, or ``None``."""
    return next((word for word in words if not says(message, word)), None)


def shown(word: str) -> str:
    """How a check shows ``word`` as expected: ``missing (缺少)``, ``"c"``: the English
    spelling and the first Chinese one, so a learner sees that either language passes."""
    found = spellings(word)
    other = next((s for s in found[1:] if not s.isascii()), None)
    return f"{word} ({other})" if other else word


def names(message: str, name: str) -> bool:
    """Whether ``message`` names ``name`` as a whole identifier: ``city`` in ``缺少参数city`` or
    ``stops[0].city``, but not inside ``velocity``."""
    pattern = rf"(?<![A-Za-z0-9_]){re.escape(name)}(?![A-Za-z0-9_])"
    return re.search(pattern, message) is not None
