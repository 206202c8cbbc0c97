"""A check's feedback in the learner's language: a wrong answer in the Chinese edition gets the
catalog's Chinese hint, the same answer in the English edition the English one; and
``i18n status`` counts the check catalogs.

One exercise per lesson whose check catalog is translated; the wrong answers are the ones the
lesson's check tests already prove break one rule (``WRONG_BY_RULE``).
"""

from __future__ import annotations

import importlib
import re
import subprocess
import sys
from pathlib import Path

import pytest

from course_lib.checks import EXERCISES, CheckFailed, NotDoneYet, check
from course_lib.checks.scenarios import PartlyRight
from course_lib.i18n import set_language, speaking
from course_lib.i18n.catalog import read_catalog
from course_lib.i18n.messages import LOCALE, TABLES, context, owner

ROOT = Path(__file__).resolve().parents[2]
CHECK_TESTS = ROOT / "tests" / "checks"
# (the lesson's check tests, exercise, rule): a rule whose hint has no placeholders.
TRANSLATED = [
    ("lesson00.test_greeting", "00.1", "returns"),
    ("lesson01.test_tool_message", "01.3", "json_text"),
    ("lesson02.test_json_type", "02.1", "bool"),
    ("lesson03.test_union", "03.1", "any_of"),
    ("lesson04.test_to_text", "04.5", "isoformat"),  # a hint made at import (TEXT_HINTS)
    ("lesson05.test_tool_calls", "05.3", "empty"),
    ("lesson06.test_to_strict", "06.2", "defaults"),
    ("lesson07.test_chat_to_responses", "07.2", "no_empty_message"),
    ("lesson08.test_openai_tools", "08.2", "parameters"),
    ("lesson09.test_routing", "09.1", "once"),
]


def wrong_answer(tests: str, exercise_id: str, rule_id: str) -> tuple:
    """The targets of the wrong answer (one, or a list of them)."""
    if str(CHECK_TESTS) not in sys.path:  # where pytest puts it for tests/checks (rootdir)
        sys.path.insert(0, str(CHECK_TESTS))
    wrong = importlib.import_module(tests).WRONG_BY_RULE[exercise_id][rule_id]
    return tuple(wrong) if isinstance(wrong, (list, tuple)) else (wrong,)


def failure_in(lang: str, exercise_id: str, wrong: tuple) -> CheckFailed:
    with speaking(lang):
        with pytest.raises(CheckFailed) as caught:
            check(exercise_id, *wrong)
    failed = caught.value
    assert not isinstance(failed, (NotDoneYet, PartlyRight)), str(failed)
    return failed


def catalog_translation(exercise_id: str, key: str, english: str) -> str:
    """The msgstr of the entry of the exercise's check catalog for its ``HINTS[key]``, read from
    the PO file (``english`` is what the English failure said)."""
    module = sys.modules[EXERCISES[exercise_id].run.__module__]
    where = context(*owner(module.HINTS), key)
    lesson = module.__name__.split(".")[2]
    found = [
        entry
        for entry in read_catalog(LOCALE / "zh-CN" / f"checks-{lesson}.po")
        if entry.key == where and entry.english.format() == english
    ]
    assert len(found) == 1, (where, english)
    assert found[0].translated, f"{found[0].key} is not translated"
    return found[0].text.format()


@pytest.mark.parametrize(("tests", "exercise_id", "rule_id"), TRANSLATED)
def test_a_wrong_answer_gets_the_catalogs_chinese_hint_in_chinese_and_english_in_english(
    tests, exercise_id, rule_id
):
    wrong = wrong_answer(tests, exercise_id, rule_id)
    rule = EXERCISES[exercise_id].rule(rule_id)
    english = failure_in("en", exercise_id, wrong)
    chinese = failure_in("zh-CN", exercise_id, wrong)
    assert english.failure.hint_key == chinese.failure.hint_key == rule.hint
    assert english.failure.case == rule.case  # the Chinese case label may be translated

    zh_hint = catalog_translation(exercise_id, rule.hint, english.failure.hint)
    assert chinese.failure.hint == zh_hint != english.failure.hint
    assert any("\u4e00" <= char <= "\u9fff" for char in zh_hint)
    assert f"提示：{zh_hint}" in str(chinese)
    assert str(chinese).startswith(f"练习 {exercise_id}")
    assert f"Hint: {english.failure.hint}" in str(english)
    assert str(english).startswith(f"Exercise {exercise_id}")


def status_lines() -> dict[str, list[str]]:
    run = subprocess.run(
        [sys.executable, "-m", "course_lib", "i18n", "status", "--lang", "zh-CN"],
        cwd=ROOT, capture_output=True, text=True, timeout=120, check=True,
    )  # fmt: skip
    return {line.split()[0]: line.split()[1:] for line in run.stdout.splitlines()[1:]}


def test_status_reports_every_check_catalog_with_its_counts():
    lines = status_lines()
    for domain in (d for d in TABLES if d.startswith("checks-")):
        entries = read_catalog(LOCALE / "zh-CN" / f"{domain}.po")
        translated = sum(entry.translated for entry in entries)
        percent = 100 * translated // len(entries)
        assert lines[domain][:4] == [str(translated), "/", str(len(entries)), f"{percent}%"]
        assert lines[domain][4:] == ["pending", str(len(entries) - translated), "stale", "0"]
    for tests, _, _ in TRANSLATED:
        assert lines[f"checks-{tests.split('.')[0]}"][3] == "100%"


def test_the_language_is_the_one_in_force_when_the_check_fails_not_when_it_was_imported(
    monkeypatch,
):
    """explicit > COURSE_LANG > the notebook's edition, read at each failure (04.5's hint was
    built when its module was imported, in English)."""
    tests, exercise_id, rule_id = "lesson04.test_to_text", "04.5", "isoformat"
    wrong = wrong_answer(tests, exercise_id, rule_id)
    english = failure_in("en", exercise_id, wrong).failure.hint
    zh_hint = catalog_translation(exercise_id, EXERCISES[exercise_id].rule(rule_id).hint, english)

    def hint_now(*targets) -> str:
        with pytest.raises(CheckFailed) as caught:
            check(exercise_id, *targets)
        return caught.value.failure.hint

    monkeypatch.setenv("COURSE_LANG", "zh-CN")
    assert hint_now(*wrong) == zh_hint
    try:
        set_language("en")  # explicit beats the environment
        assert hint_now(*wrong) == english
    finally:
        set_language(None)
    monkeypatch.setenv("COURSE_LANG", "en")
    assert hint_now(*wrong) == english


def test_the_where_line_of_a_chinese_failure_is_chinese_and_the_english_one_unchanged():
    def wrong(name):
        return f"Hello {name}!!"

    chinese = str(failure_in("zh-CN", "00.1", (wrong,))).splitlines()
    english = str(failure_in("en", "00.1", (wrong,))).splitlines()
    assert '位置：两段文本从索引 5 处的字符开始不同：期望 ", Ada!"，实际是 " Ada!!"' in chinese
    assert (
        'Where:    the texts differ from character 5 on: expected ", Ada!", got " Ada!!"' in english
    )


def test_what_a_shared_check_expects_of_a_type_error_speaks_the_language():
    """function_cases.expect_type_error's expected value (it was an English f-string)."""
    wrong = wrong_answer("lesson02.test_json_type", "02.1", "names_it")
    chinese = failure_in("zh-CN", "02.1", wrong).failure.expected
    english = failure_in("en", "02.1", wrong).failure.expected
    assert english.startswith("a TypeError naming "), english
    names = english.removeprefix("a TypeError naming ")
    assert chinese == f"一个消息里提到 {names} 的 TypeError"


def test_the_names_a_type_error_must_hold_are_joined_in_the_language():
    """03.5 wants a TypeError naming the function and the missing name: the two were joined with
    an English " and " in the Chinese edition too (function_cases.names_text)."""
    from course_lib.checks.function_cases import names_text

    wrong = wrong_answer("lesson03.test_annotations", "03.5", "names_it")
    chinese = failure_in("zh-CN", "03.5", wrong).failure.expected
    english = failure_in("en", "03.5", wrong).failure.expected
    assert chinese == "一个消息里提到 find 和 Hotel 的 TypeError", chinese
    assert english == "a TypeError naming find and Hotel", english
    with speaking("zh-CN"):
        assert names_text(["a"]) == "a"
        assert names_text(["a", "b", "c"]) == "a、b 和 c"
    assert names_text(["a"]) == "a"
    assert names_text(["a", "b", "c"]) == "a, b and c"


@pytest.mark.parametrize(
    ("tests", "exercise_id", "rule_id", "chinese_case", "english_case"),
    [
        ("lesson09.test_memory", "09.4", "no_tools", "  # 完全没有工具", "  # no tools at all"),
        ("lesson09.test_budget", "09.5", "fits", "  # 正好等于预算", "  # exactly the budget"),
    ],
)
def test_the_capstones_case_labels_and_expected_values_speak_the_language(
    tests, exercise_id, rule_id, chinese_case, english_case
):
    """09.4's and 09.5's case labels end in a comment saying what the case is about; 09.4's
    request with tools expected "no tools" (all were English f-strings and literals)."""
    wrong = wrong_answer(tests, exercise_id, rule_id)
    chinese = failure_in("zh-CN", exercise_id, wrong).failure
    english = failure_in("en", exercise_id, wrong).failure
    assert english.case == EXERCISES[exercise_id].rule(rule_id).case
    assert english.case.endswith(english_case) and chinese.case.endswith(chinese_case)
    assert chinese.case.removesuffix(chinese_case) == english.case.removesuffix(english_case)
    if rule_id == "no_tools":
        assert (english.expected, chinese.expected) == ("no tools", "不带 tools")


ENGLISH_PROSE = re.compile(r"[A-Za-z]{2,}[,.;:!?]?\s+[A-Za-z]{2,}\s+[A-Za-z]{2,}")
# Chinese characters and the full-width punctuation around them split a line into its parts.
CHINESE = re.compile(r"[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]+")
QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"|`[^`]*`|“[^”]*”")  # example data, code: not the course's


def english_lines(text: str) -> list[str]:
    """The lines of ``text`` with English prose (three words in a row) outside quotes, in a part
    of their own or beside Chinese."""
    return [
        line
        for line in text.splitlines()
        if any(ENGLISH_PROSE.search(part) for part in CHINESE.split(QUOTED.sub("''", line)))
    ]


def test_english_lines_finds_an_english_sentence_and_leaves_chinese_and_code_alone():
    said = (
        "练习 09.4 通过：converse（4 段可见对话）\n  no tools at all\nf(x='a b c')\n"
        "练习 03.4 通过：json_type, second version（28 个可见注解）\n"
        "  用例：assistant.ask('What time is it in Paris?', role='customer')"
    )
    assert english_lines(said) == [
        "  no tools at all", "练习 03.4 通过：json_type, second version（28 个可见注解）",
    ]  # fmt: skip


@pytest.mark.parametrize("lesson", sorted(p.name for p in (ROOT / "solutions" / "zh-CN").glob(
    "*.ipynb")))  # fmt: skip
def test_every_check_cell_of_a_chinese_solution_prints_chinese_and_no_english_sentence(lesson):
    """What each check printed when the Chinese solution ran (strict nbval proves these stored
    outputs are what the checks print now, in the edition's kernel)."""
    import nbformat

    nb = nbformat.read(ROOT / "solutions" / "zh-CN" / lesson, as_version=4)
    checks = [cell for cell in nb.cells if "check" in cell.metadata.get("course", {})]
    assert checks
    for cell in checks:
        text = "".join(output.get("text", "") for output in cell.outputs)
        where = f"{lesson} {cell.metadata['course']['check']}"
        assert CHINESE.search(text), where
        assert not english_lines(text), (where, english_lines(text))


def test_case_labels_made_when_a_check_runs_speak_the_language():
    """The labels of hidden and cut cases, made as the check runs (were English f-strings)."""
    from dataclasses import replace
    from random import Random

    from course_lib.checks.lesson02 import function_to_tool
    from course_lib.checks.lesson04 import to_text
    from course_lib.checks.lesson05.agent_loop import cases as loop_cases
    from course_lib.checks.lesson05.stream import cases as stream_cases
    from course_lib.checks.lesson06.to_strict import cases as strict_cases

    def labels() -> list[str]:
        undocumented = replace(function_to_tool.NOTES, doc=None)
        return [
            function_to_tool.case_of(undocumented, None),
            function_to_tool.case_of(function_to_tool.NOTES, None),
            *(case.label for case in to_text.cut_cases()),
            loop_cases.hidden_cases(Random(1), 1)[0][0],
            stream_cases.stream_cases(Random(1))[-1][0],
            strict_cases.hidden_cases(1)[0].name,
        ]

    english = labels()
    with speaking("zh-CN"):
        chinese = labels()
    assert ", no docstring, description=None)" in english[0]
    assert "，没有 docstring, description=None)" in chinese[0]
    assert (
        ") with docstring 'Search the no" in english[1] and "，docstring 为 'Search" in chinese[1]
    )
    english, chinese = english[1:], chinese[1:]
    assert english[1:3] == [
        "to_text(a 50,000 character string)",
        "to_text(a string exactly max_chars long, max_chars=300)",
    ]
    assert chinese[1] == "to_text(一个 50,000 个字符的字符串)"
    assert english[5].startswith("to_text(hidden text 0 (") and chinese[5].startswith(
        "to_text(隐藏文本 0（"
    )
    assert english[-3:-1] == ["hidden case 1", english[-2]] and chinese[-3] == "隐藏用例 1"
    assert english[-2].startswith("hidden stream ") and chinese[-2].startswith("隐藏的流 ")
    assert english[-1].startswith("hidden schema 0 {") and chinese[-1].startswith("隐藏 schema 0 {")
    assert len(english) == len(chinese) and all(
        c != e for c, e in zip(chinese, english, strict=True)
    )


@pytest.mark.parametrize(
    ("exercise_id", "chinese"),
    [
        ("01.5", "to_anthropic 和 to_responses"),
        ("03.4", "json_type，第二版"),
        ("03.6", "parameters_schema，第二版"),
        ("06.3", "select_tools 和 call_as"),
        ("00.1", "greeting"),  # a title that is a name stays as it is
    ],
)
def test_an_exercise_title_that_says_more_than_a_name_speaks_the_language(exercise_id, chinese):
    spec = EXERCISES[exercise_id]
    with speaking("zh-CN"):
        assert spec.spoken_title == chinese
        with pytest.raises(CheckFailed) as failed:
            check(exercise_id, *([None] * len(spec.targets)))
    assert spec.spoken_title == spec.title  # English: the title as registered
    assert str(failed.value).startswith(f"练习 {exercise_id}（{chinese}）")


def whole_value_wrong(exercise_id: str):
    """A wrong answer whose first value differs from the expected one as a whole (its kind)."""
    wrong_answer("lesson03.test_json_type", "03.4", "fresh")  # puts tests/checks on sys.path
    from lesson03._solution import solution

    json_type = solution()["json_type"]

    def parse_google_docstring(doc):
        return {}

    def parameters_schema(func):
        return []

    def json_type_in_a_list(annotation):
        return [json_type(annotation)]

    return {
        "02.2": parameters_schema,
        "02.3": parse_google_docstring,
        "03.4": json_type_in_a_list,
    }[exercise_id]


@pytest.mark.parametrize("exercise_id", ["02.2", "02.3", "03.4"])
def test_a_value_wrong_as_a_whole_gets_no_where_line_in_either_language(exercise_id):
    """Expected and Got already show a difference of the whole value; three checks dropped the
    Where line by testing its English words (``startswith("expected ")``), so in Chinese it
    repeated both values whole (function_cases.expect_schema, 02.3's docstring check, 03.4)."""
    wrong = (whole_value_wrong(exercise_id),)
    chinese = failure_in("zh-CN", exercise_id, wrong)
    english = failure_in("en", exercise_id, wrong)
    assert english.failure.where is None, english.failure.where
    assert chinese.failure.where is None, chinese.failure.where
    assert "\n位置：" not in str(chinese) and "实际：" in str(chinese)
