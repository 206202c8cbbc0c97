"""The Chinese edition says each term one way (``/work/shared/zh_GLOSSARY.md``, its copy in the
issue, and ``translations/zh-CN/TERMS.md``): no catalog uses a variant the glossary rejects, and
what the course builds from the catalogs (a not-done message, a failure's Where line, a value
that spans lines) reads as Chinese does.

A learner walkthrough of lessons 01, 04 and 06 (issue 28) found the scorecard saying 未过 and 待做
where the glossary says 未通过 and 尚未完成, "required" said two ways (必需, 必填), JSON Lines also
called JSON 行, the Where line's location said three ways (位置, 位于 ..., 在 ... 处), and an
ASCII space after 。 where the course joins sentences.
"""

from __future__ import annotations

import re

import pytest

from course_lib.checks import CheckFailed, check, messages
from course_lib.checks.compare import first_difference
from course_lib.checks.failures import Failure, NotDoneYet, render
from course_lib.i18n import speaking
from course_lib.i18n.catalog import TRANSLATIONS, read_catalog
from course_lib.i18n.messages import LOCALE

CATALOGS = sorted([*(LOCALE / "zh-CN").glob("*.po"), *(TRANSLATIONS / "zh-CN").glob("*.po")])

# A rejected variant and the word the glossary uses instead.
REJECTED = {
    "未过": "failed is 未通过",
    "待做": "not done yet is 尚未完成",
    "必需": "required is 必填 (one word for it everywhere)",
    "JSON 行": "JSON Lines keeps its name",
}
# Chinese puts no space after a full stop; a table cell or a diagram label may end in ？.
SPACE_AFTER_STOP = re.compile("。 ")
# The Where line's label is 位置; the location under it is the path alone, not 位于/在 ... 处.
WHERE_ENGLISH = re.compile(r"at (\{\w+\}|\$)")
WHERE_REJECTED = re.compile(r"^(位于|在 ?\{)")


def variants() -> set[tuple[str, str, str]]:
    found = set()
    for path in CATALOGS:
        for entry in read_catalog(path):
            if not entry.text:
                continue
            for word in REJECTED:
                if word in entry.text:
                    found.add((path.name, entry.key, word))
            if SPACE_AFTER_STOP.search(entry.text):
                found.add((path.name, entry.key, "。 "))
            if WHERE_ENGLISH.match(entry.english) and WHERE_REJECTED.match(entry.text):
                found.add((path.name, entry.key, "where"))
    return found


def test_no_catalog_uses_a_variant_the_glossary_rejects():
    """Every catalog, lesson 07's included (its three 必需 were the last left)."""
    found = sorted(variants())
    assert not found, "\n".join(
        f"{name} {key}: {word!r} ({REJECTED.get(word, 'see the module docstring')})"
        for name, key, word in found
    )


@pytest.mark.parametrize("text", ["尚未完成。 在上面", "位于 {path}"])
def test_the_glossary_test_finds_a_rejected_form(text):
    assert SPACE_AFTER_STOP.search(text) or WHERE_REJECTED.match(text)


def test_a_not_done_message_puts_no_space_after_a_chinese_full_stop():
    failure = Failure(detail="`WEATHER_TOOL` 仍然是 `...`。", exercise="01.1", title="WEATHER_TOOL")
    with speaking("zh-CN"):
        chinese = render(failure, NotDoneYet.header)
    assert "。 " not in chinese and "尚未完成。`WEATHER_TOOL`" in chinese, chinese
    english = render(Failure(detail="`WEATHER_TOOL` is still `...`.", exercise="01.1",
                             title="WEATHER_TOOL"), NotDoneYet.header)  # fmt: skip
    assert "is not done yet. `WEATHER_TOOL` is still `...`. Write your solution" in english


def test_a_chinese_where_line_is_the_location_alone():
    with speaking("zh-CN"):
        where = first_difference({"a": {"b": 1}}, {"a": {"b": 2}})
        line = messages.say("line_where", where=where)
        with pytest.raises(CheckFailed) as caught:
            check("01.1", {"type": "function", "function": {"name": "weather"}})
    assert line.startswith("位置：$.a.b，"), line
    assert "\n位置：$.function.name\n" in str(caught.value), str(caught.value)


def test_a_chinese_failure_puts_the_later_lines_of_a_value_under_its_first():
    failure = Failure(case="c", expected='[\n  "a"\n]', got='[\n  "b"\n]')
    with speaking("zh-CN"):
        lines = render(failure).splitlines()
    assert lines[1:7] == ["期望：[", '        "a"', "      ]", "实际：[", '        "b"', "      ]"]
    assert render(failure).splitlines()[1:4] == ["Expected: [", '            "a"', "          ]"]
