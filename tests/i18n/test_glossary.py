"""The Chinese edition says each term one way (``/work/shared/zh_GLOSSARY.md``, its copy in the
issue, and ``translations/zh-CN/TERMS.md``): no catalog uses a variant the glossary rejects, and
what the course builds from the catalogs (a not-done message, a failure's Where line, a value
that spans lines) reads as Chinese does.

A learner walkthrough of lessons 01, 04 and 06 (issue 28) found the scorecard saying 未过 and 待做
where the glossary says 未通过 and 尚未完成, "required" said two ways (必需, 必填), JSON Lines also
called JSON 行, the Where line's location said three ways (位置, 位于 ..., 在 ... 处), and an
ASCII space after 。 where the course joins sentences. The forms refused are read from one place,
the "Said one way" table of TERMS.md, which the translators read too.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import dropwhile, takewhile
from pathlib import Path

import pytest

from course_lib.checks import CheckFailed, check, messages
from course_lib.checks.compare import first_difference
from course_lib.checks.failures import Failure, NotDoneYet, render
from course_lib.i18n import speaking
from course_lib.i18n.catalog import TRANSLATIONS, Entry, read_catalog, write_catalog
from course_lib.i18n.messages import LOCALE

CATALOGS = sorted([*(LOCALE / "zh-CN").glob("*.po"), *(TRANSLATIONS / "zh-CN").glob("*.po")])
TERMS = TRANSLATIONS / "zh-CN" / "TERMS.md"
TABLE = "## Said one way"
# An entry whose English is a location (the Where line's value): only there a location form counts.
WHERE_ENGLISH = re.compile(r"at (\{\w+\}|\$)")


@dataclass(frozen=True)
class Rejected:
    """A form TERMS.md says never to use: ``form`` as written there (``…``: any text)."""

    form: str
    use: str  # what to say instead, the table's "use" column
    location: bool  # only at the start of an entry whose English is a location

    @property
    def pattern(self) -> re.Pattern[str]:
        body = ".*?".join(map(re.escape, self.form.split("…")))
        return re.compile(("^" if self.location else "") + body)

    def found_in(self, entry: Entry) -> bool:
        if self.location and not WHERE_ENGLISH.match(entry.english):
            return False
        return bool(self.pattern.search(entry.text))


def rejected_forms(terms: Path = TERMS) -> list[Rejected]:
    """The "never" column of TERMS.md's "Said one way" table, one ``Rejected`` per form."""
    text = terms.read_text(encoding="utf-8")
    assert TABLE in text, f"{terms} has no {TABLE!r} table"
    after = dropwhile(lambda line: not line.startswith("|"), text.split(TABLE, 1)[1].splitlines())
    rows = list(takewhile(lambda line: line.startswith("|"), after))
    forms = []
    for row in rows[2:]:  # the header and its |---| line
        english, use, never, where = (cell.strip() for cell in row.strip("|").split("|"))
        for form in re.findall(r"`([^`]+)`", never):
            forms.append(Rejected(form, use, location=where == "a location"))
    return forms


REJECTED = rejected_forms()


def variants(catalogs: list[Path] = CATALOGS) -> set[tuple[str, str, str]]:
    found = set()
    for path in catalogs:
        for entry in read_catalog(path):
            if entry.text:
                found |= {(path.name, entry.key, r.form) for r in REJECTED if r.found_in(entry)}
    return found


def test_terms_lists_the_forms_the_walkthroughs_found():
    """Those stay refused; a translator may add rows."""
    forms = {(r.form, r.location) for r in REJECTED}
    everywhere = {(form, False) for form in ("必需", "JSON 行", "未过", "待做", "。 ")}
    assert forms >= everywhere | {("位于…", True), ("在…处", True)}


def test_no_catalog_uses_a_variant_the_glossary_rejects():
    """Every catalog, lesson 07's included (its three 必需 were the last left)."""
    use = {r.form: r.use for r in REJECTED}
    found = sorted(variants())
    assert not found, "\n".join(
        f"{name} {key}: {form!r} (TERMS.md: say {use[form]})" for name, key, form in found
    )


def example(rejected: Rejected) -> Entry:
    """A translated entry that uses ``rejected`` (its English a location when the form is one)."""
    text = rejected.form.replace("…", " {path} ")
    return Entry("a:TEXTS:k", "at {path}" if rejected.location else "x", f"{text}。")


@pytest.mark.parametrize("rejected", REJECTED, ids=lambda r: r.form)
def test_a_catalog_using_a_rejected_form_fails_the_test(rejected, tmp_path):
    catalog = tmp_path / "checks-lesson99.po"
    write_catalog(catalog, "zh-CN", "a test", [example(rejected)])
    assert variants([catalog]) == {(catalog.name, "a:TEXTS:k", rejected.form)}


@pytest.mark.parametrize("rejected", [r for r in REJECTED if r.location], ids=lambda r: r.form)
def test_a_location_form_counts_only_for_a_location(rejected):
    entry = example(rejected)
    assert rejected.found_in(entry)
    assert not rejected.found_in(Entry(entry.key, "the path {path}", entry.text))
    assert not rejected.found_in(Entry(entry.key, entry.english, "位置：" + entry.text))


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
