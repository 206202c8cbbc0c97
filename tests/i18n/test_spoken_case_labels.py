"""What a Chinese learner reads when a check of lessons 02, 03, 05, 07 fails: the case label (what
the case is about) and the values shown beside it speak the language, the English run is
unchanged (found by a learner walkthrough of the zh-CN lessons: they were English constants
made at import, or f-strings).

The wrong answers are the ones the lessons' check tests already prove break one rule.
"""

from __future__ import annotations

import re

import pytest
from test_check_feedback import english_lines, failure_in, wrong_answer

from course_lib.checks import EXERCISES


def said(tests: str, exercise_id: str, rule_id: str, lang: str) -> str:
    return str(failure_in(lang, exercise_id, wrong_answer(tests, exercise_id, rule_id)))


@pytest.mark.parametrize(
    ("tests", "exercise_id", "rule_id", "chinese", "english"),
    [
        ("lesson05.test_agent_loop", "05.1", "steps", "[两个并行调用，然后是回答]",
         "[two parallel calls, then an answer]"),
        ("lesson05.test_agent_loop", "05.1", "repeat_parsed", "[一个重复调用，键的顺序和空格不同]",
         "[a repeat with reordered keys and other spacing]"),
        ("lesson05.test_stream", "05.4", "no_choices",
         "用量（usage）数据块>)", "a final usage chunk without choices>)"),
        ("lesson02.test_json_type", "02.1", "fresh",
         "json_type(str) 调用两次；调用方往第一次的结果里加了一个键",
         "json_type(str) called twice; the caller added a key to the first result"),
        ("lesson02.test_function_to_tool", "02.4", "no_description",
         "(def f(x: int)，没有 docstring, description=None)",
         "(def f(x: int), no docstring, description=None)"),
        ("lesson02.test_function_to_tool", "02.4", "no_summary",
         "(def h(city: str)，docstring 为 'Args:\\n        city: The city name.\\n    ', "
         "description=None)",
         "(def h(city: str) with docstring 'Args:\\n        city: The city name.\\n    ', "
         "description=None)"),
        ("lesson02.test_function_to_tool", "02.4", "empty_given",
         "，docstring 为 'Get the weather for a city.', description='')",
         " with docstring 'Get the weather for a city.', description='')"),
        ("lesson02.test_drift", "02.5", "untyped", ", 它的工具，其中 days 没有 type)",
         ", its tool where days has no type)"),
        ("lesson02.test_drift", "02.5", "only_type", ", 它的工具，带有描述、枚举值和另一个默认值)",
         ", its tool with descriptions, an enum and another default)"),
        ("lesson03.test_union", "03.1", "null_given",
         "(Optional[int], json_type)，传入的 json_type 会标记每一个成员",
         "(Optional[int], json_type), with a json_type that marks every member"),
        ("lesson03.test_containers", "03.3", "given_basic",
         "(list[int], json_type)，传入的 json_type 会标记每一个部分",
         "(list[int], json_type), with a json_type that marks every part"),
        ("lesson03.test_json_type", "03.4", "fresh",
         "json_type(None) 调用两次；调用方改动了第一次的结果",
         "json_type(None) called twice; the caller changed the first result"),
        ("lesson03.test_annotations", "03.5", "own_module",
         "-> 'Hotel'，Hotel 是那个模块里的一个 dataclass)",
         "-> 'Hotel', where Hotel is a dataclass of that module)"),
        ("lesson03.test_annotations", "03.5", "type_error",
         "开头，Hotel 只在 `if TYPE_CHECKING:` 下导入)",
         ", where Hotel is imported only under `if TYPE_CHECKING:`)"),
        # 08.4's labels were English words between <> (found by a learner walkthrough of 08)
        ("lesson08.test_structured_result", "08.4", "structured", ", <天气>)", ", <weather>)"),
        ("lesson08.test_structured_result", "08.4", "any_type", ", <一个列表>)", ", <a list>)"),
        ("lesson08.test_structured_result", "08.4", "misfit_error", ", <类型不对>)",
         ", <a wrong type>)"),
        ("lesson03.test_parameters_schema", "03.6", "enum_default",
         "Priority = Priority.HIGH)，它用到的类定义在它上面)",
         "Priority = Priority.HIGH), where its classes are defined above it)"),
    ],
)  # fmt: skip
def test_a_visible_cases_label_speaks_the_language(tests, exercise_id, rule_id, chinese, english):
    rule = EXERCISES[exercise_id].rule(rule_id)
    zh = failure_in("zh-CN", exercise_id, wrong_answer(tests, exercise_id, rule_id)).failure
    en = failure_in("en", exercise_id, wrong_answer(tests, exercise_id, rule_id)).failure
    assert en.case == rule.case and en.case.endswith(english), en.case
    assert zh.case.endswith(chinese), zh.case
    assert not english_lines(zh.case), zh.case


def without_repeated_steps(*args, **kwargs):
    """A run_agent that answers a repeated call but records no Step for it (a learner's
    reading of "a repeated call is not run")."""
    from dataclasses import replace

    from lesson05.test_agent_loop import make_loop

    result = make_loop()(*args, **kwargs)
    if result.stopped != "repeated_call":
        return result
    kept = [step for step in result.steps if '"error"' not in step.result]
    return replace(result, steps=kept)


def test_the_marker_of_the_learners_repeated_call_error_speaks_the_language():
    """05.1 shows a repeated call's result as a marker on both sides (its wording is the
    learner's): the marker was English."""
    chinese = str(failure_in("zh-CN", "05.1", (without_repeated_steps,)))
    english = str(failure_in("en", "05.1", (without_repeated_steps,)))
    assert '"result": "<your repeated-call error>"' in english
    assert '"result": "<你对重复调用的错误回应>"' in chinese
    assert "提示：为每个调用记录一个 Step，重复调用也要记录" in chinese


def test_the_function_defined_inside_another_is_said_so_in_the_language():
    """02.4's case of a function a factory made: not a rule's own case (its hint is "qualname")."""
    from course_lib.checks.lesson02.function_to_tool import INNER, case_of
    from course_lib.i18n import speaking

    english = case_of(INNER, None)
    with speaking("zh-CN"):
        chinese = case_of(INNER, None)
    assert english.startswith("function_to_tool(def lookup(city: str) -> str, defined inside ")
    assert "make_tool(), with docstring 'Look up a city.'" in english
    assert chinese == (
        "function_to_tool(def lookup(city: str) -> str，在 make_tool() 里面定义，"
        "docstring 为 'Look up a city.', description=None)"
    )


@pytest.mark.parametrize(
    ("tests", "exercise_id", "rule_id", "chinese", "english"),
    [
        ("lesson02.test_docstring", "02.3", "tuple",
         ("期望：一个 tuple (summary, descriptions)", "实际：一个 list"),
         ("Expected: a tuple (summary, descriptions)", "Got:      a list")),
        ("lesson02.test_drift", "02.5", "type_names",
         ('期望："type: limit 在函数里是 integer，在工具里是 string"',
          "期望类似 `type: limit 在函数里是 integer，在工具里是 string` 的写法"),
         ('Expected: "type: limit is integer in the function but string in the tool"',)),
        ("lesson03.test_annotations", "03.5", "from_exc", ("（没有原因）",), ("(no cause)",)),
        ("lesson07.test_extract", "07.4", "instance", ("而不是一个 dict。",), ("not a dict.",)),
        # the example message was English in the Chinese hint (learner walkthrough of 09)
        ("lesson09.test_permissions", "09.2", "names_role", ("例如 未知的角色 'admin'。",),
         ("e.g. unknown role 'admin'.",)),
    ],
)  # fmt: skip
def test_what_a_failure_expected_and_got_speaks_the_language(
    tests, exercise_id, rule_id, chinese, english
):
    zh = said(tests, exercise_id, rule_id, "zh-CN")
    en = said(tests, exercise_id, rule_id, "en")
    assert all(part in zh for part in chinese), zh
    assert all(part in en for part in english), en


def test_no_chinese_hint_of_lessons_02_03_05_keeps_an_english_stand_in():
    """Stand-ins for a value in a hint's example, such as `<json_type of T>`, were left in
    English in the Chinese hints of 03 (the notebook writes `json_type(T)`)."""
    import re

    from course_lib.i18n.catalog import read_catalog
    from course_lib.i18n.messages import LOCALE

    english = re.compile(r"<[a-z_]+ of [^>]*>")
    left = [
        (entry.key, found)
        for lesson in ("02", "03", "05")
        for entry in read_catalog(LOCALE / "zh-CN" / f"checks-lesson{lesson}.po")
        for found in english.findall(entry.text)
    ]
    assert not left, left


# Lesson 04's case labels (its five checks): a Chinese label may keep code (calls, names of tools,
# of fields and of parameters) but no English word of its own. A word is code when it touches
# code punctuation (``registry.tool``, ``get_weather``, ``Point(``, ``tags=``) or is one of these.
LESSON04 = [
    ("lesson04.test_registry", "04.1"),
    ("lesson04.test_value_problem", "04.2"),
    ("lesson04.test_validate_arguments", "04.3"),
    ("lesson04.test_dispatch", "04.4"),
    ("lesson04.test_to_text", "04.5"),
]
CODE_WORDS = {
    "now", "json", "dataclass", "pydantic", "docstring", "tags", "parameters", "description",
    "owner", "version", "function", "null", "object", "dict", "list", "str",
}  # fmt: skip
LOOSE_WORD = re.compile(r"(?<![\w.@=(])[a-z][A-Za-z]+(?![\w.(=])")  # True, Point: code
STRING_LITERAL = re.compile(r"'[^'\n]*'|\"[^\"\n]*\"")


def english_words(label: str) -> list[str]:
    """The words of ``label`` that are neither code nor inside a string literal."""
    return [
        word
        for word in LOOSE_WORD.findall(STRING_LITERAL.sub("''", label))
        if word not in CODE_WORDS
    ]


def test_english_words_finds_the_words_of_an_english_label_and_leaves_code_alone():
    assert english_words("@registry.tool on get_weather：它的 tags") == ["on"]
    assert english_words('registry.schemas(format="openai") for the visible tools') == [
        "for", "the", "visible", "tools",
    ]  # fmt: skip
    assert english_words("registry.tool(find_city, name='tagged', tags=tags)，然后调用方") == []
    assert english_words("to_text(Point(1, 2))（json 无法编码的类）") == []


def lesson04_rules():
    import importlib

    from test_check_feedback import wrong_answer  # noqa: F401 (puts tests/checks on sys.path)

    wrong_answer("lesson04.test_registry", "04.1", "metadata")
    return [
        (tests, exercise_id, rule_id)
        for tests, exercise_id in LESSON04
        for rule_id in importlib.import_module(tests).WRONG_BY_RULE[exercise_id]
    ]


@pytest.mark.parametrize(("tests", "exercise_id", "rule_id"), lesson04_rules())
def test_every_case_label_of_lesson_04_speaks_the_language(tests, exercise_id, rule_id):
    wrong = wrong_answer(tests, exercise_id, rule_id)
    zh = failure_in("zh-CN", exercise_id, wrong).failure
    en = failure_in("en", exercise_id, wrong).failure
    assert en.case == EXERCISES[exercise_id].rule(rule_id).case, en.case
    assert not english_words(zh.case), zh.case


def test_the_case_labels_of_lesson_04_no_rule_reaches_speak_the_language():
    """The hidden registrations' labels and those of the registries the checks build."""
    from course_lib.checks.lesson04.dispatch import registry_case
    from course_lib.checks.lesson04.registry import hidden_registrations, labels
    from course_lib.i18n import speaking

    with speaking("zh-CN"):
        said = [
            *(item.label() for item in hidden_registrations()),
            labels.hidden_names_case(),
            labels.hidden_registry_case(),
            labels.schemas_case("anthropic", "hidden"),
            labels.default_case("hidden"),
            registry_case(),
        ]
    left = [label for label in said if english_words(label)]
    assert not left, left
    assert labels.hidden_registry_case() == "ToolRegistry() for the hidden cases"
    assert registry_case() == "DispatchRegistry() with the check's tools in registry._tools"


def test_the_part_of_an_annotation_that_fails_is_said_so_in_the_language():
    """03.4 names the smallest part of an annotation that fails, "..., a part of ..." (an
    English f-string)."""
    from lesson03.test_json_type import with_override

    def true_without_enum(annotation):
        literal = getattr(annotation, "__origin__", None) is not None and repr(annotation)
        return {"type": "boolean"} if literal == "typing.Literal[True]" else None

    wrong = (with_override(true_without_enum),)
    chinese = failure_in("zh-CN", "03.4", wrong).failure.case
    english = failure_in("en", "03.4", wrong).failure.case
    assert english.startswith("json_type(Literal[True]), a part of json_type("), english
    assert chinese.startswith("json_type(Literal[True])，json_type("), chinese
    assert chinese.endswith(") 的一部分") and "a part of" not in chinese, chinese
