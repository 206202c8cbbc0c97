"""Where a learner's value stops being JSON (``course_lib.driver_values``) is said in the
learner's language: the driver's reply says it in English and as data, and the check says it
again in the language in force. The English a check prints is what it printed before."""

from __future__ import annotations

import json

from test_check_feedback import failure_in, wrong_answer

from course_lib.driver import Driver, json_problem_at
from course_lib.driver_values import MESSAGES, said
from course_lib.i18n import speaking


def lines(lang: str, exercise_id: str, wrong: tuple) -> list[str]:
    return str(failure_in(lang, exercise_id, wrong)).splitlines()


def where_lines(exercise_id: str, wrong: tuple) -> tuple[str, str]:
    """The one Where line of the failure of ``wrong``: in Chinese, then in English."""
    chinese, english = (lines(lang, exercise_id, wrong) for lang in ("zh-CN", "en"))
    (where,) = [line for line in chinese if line.startswith("位置：")]
    (was,) = [line for line in english if line.startswith("Where:")]
    return where, was


def test_a_tool_message_holding_a_set_is_told_where_in_chinese_and_in_english_as_before():
    """01.3: the content of the tool message is a set (the Where line of ``formats``'s
    ``not_json``)."""

    def tool_message(tool_call, result):
        call = tool_call["id"] if isinstance(tool_call, dict) else tool_call.id
        return {"role": "tool", "tool_call_id": call, "content": {result}}

    where, was = where_lines("01.3", (tool_message,))
    assert where.startswith("位置：$.content，set 类型的值（{"), where
    assert was.startswith("Where:    at $.content: a set ({"), was
    assert (
        where.removeprefix("位置：$.content，set 类型的值（")
        == was.removeprefix("Where:    at $.content: a set (").removesuffix(")") + "）"
    )


def test_a_registry_entry_holding_bytes_is_told_where_in_chinese_and_in_english_as_before():
    """04.1: the entry keeps its owner as bytes (the Where line of ``entry_report``)."""
    wrong_answer("lesson04.test_registry", "04.1", "tags")  # puts tests/checks on the path
    from lesson04.test_registry import wrong

    cls = wrong('"owner": owner,', '"owner": owner.encode() if owner else b"",')
    where, was = where_lines("04.1", (cls,))
    assert where.startswith("位置：$.owner，bytes 类型的值（b'"), where
    assert was.startswith("Where:    at $.owner: a bytes (b'"), was


def test_a_loops_messages_holding_a_set_are_told_where_in_chinese_and_in_english_as_before():
    """05.2: the kernel describes what the loop returned (``_agent_tools.as_data``) and the check
    says where it stops being JSON (``unwrap``)."""
    wrong_answer("lesson05.test_fixed_loop", "05.2", "requests")  # puts tests/checks on the path
    from lesson05.test_fixed_loop import make_fixed_loop

    right = make_fixed_loop()

    def fixed_loop(client, registry, question, **kwargs):
        messages = right(client, registry, question, **kwargs)
        return [{**messages[0], "content": {messages[0]["content"]}}, *messages[1:]]

    where, was = where_lines("05.2", (fixed_loop,))
    assert where.startswith("位置：$[0].content，set 类型的值（{'"), where
    assert was.startswith("Where:    at $[0].content: a set ({'"), was


def test_each_problem_is_said_from_the_catalog_in_english_as_before_and_in_chinese():
    """The four problems ``json_problem_at`` finds (and the driver's ``json_error``): the English
    is what it was, byte for byte; the Chinese puts the path alone after 位置：'s label."""
    deep: list = []
    for _ in range(101):
        deep = [deep]
    cases = {
        "json_value": (
            {"tags": {1, 2}},
            "at $.tags: a set ({1, 2})",
            "$.tags，set 类型的值（{1, 2}）",
        ),
        "json_number": (
            {"x": [float("nan")]},
            "at $.x[0]: the number nan, which JSON cannot hold",
            "$.x[0]，数字 nan，JSON 无法表示它",
        ),
        "json_key": ({1: "a"}, "at $: the key 1, which is not a string", "$，键 1 不是字符串"),
        "json_too_deep": (
            {"a": deep},
            f"at $.a{'[0]' * 100}: nesting deeper than 100 levels",
            f"$.a{'[0]' * 100}，嵌套超过 100 层",
        ),
    }
    for key, (value, english, chinese) in cases.items():
        problem = json_problem_at(value)
        assert problem["message"] == key and said(problem, "en") == english
        with speaking("zh-CN"):
            assert said(problem) == chinese
            assert said(problem, "en") == english  # what the driver writes, whatever is spoken
    assert {key for key in MESSAGES if key.startswith("json_")} == {*cases, "json_error"}
    assert json_problem_at({"a": [1, "b", None, 2.5]}) is None and json_problem_at([]) is None


def test_the_driver_writes_its_unjson_in_english_whatever_language_is_spoken():
    request = {"op": "run", "code": "", "result": "{'tags': {1, 2}}"}
    with speaking("zh-CN"):
        reply = json.loads(Driver({}).handle_json(json.dumps(request)))
    assert reply["unjson"] == "at $.tags: a set ({1, 2})"
    assert said(reply["unjson_at"], "zh-CN") == "$.tags，set 类型的值（{1, 2}）"


def test_no_english_rendering_of_a_json_problem_is_left_for_a_check_to_send():
    """``json_problem`` wrote the problem in English where it was found (lesson 05's meeting
    registry and 08's kernel side did, and a Chinese learner read it): the problem travels as
    data now, and the check says it."""
    import course_lib.driver as driver
    import course_lib.driver_values as driver_values

    assert not hasattr(driver_values, "json_problem") and not hasattr(driver, "json_problem")


def test_the_driver_replies_in_english_and_as_data_and_a_forged_problem_is_not_said():
    request = {"op": "run", "code": "", "result": "[b'ab']"}
    reply = json.loads(Driver({}).handle_json(json.dumps(request)))  # as both channels send it
    assert reply["unjson"] == "at $[0]: a bytes (b'ab')"
    assert reply["unjson_at"] == {"message": "json_value", "path": "$[0]", "kind": "bytes",
                                  "value": "b'ab'"}  # fmt: skip
    with speaking("zh-CN"):
        assert said(reply["unjson_at"]) == "$[0]，bytes 类型的值（b'ab'）"
    error = {"message": "json_error", "path": "$", "error": "ValueError: Circular reference"}
    assert said(error, "en") == "at $: ValueError: Circular reference"
    assert said(error, "zh-CN") == "$，ValueError: Circular reference"
    for forged in ("at $: a set", {"message": "nope"}, {"message": "json_key", "path": "$"}, None):
        assert said(forged) is None


def test_the_prose_scan_covers_driver_values_and_fails_on_its_old_english_put_back():
    from test_other_domains import ROOT, SHARED_CHECKS, shared_check_prose

    path = ROOT / "course_lib" / "driver_values.py"
    assert path in SHARED_CHECKS
    source = path.read_text(encoding="utf-8")
    assert shared_check_prose(path, source) == []
    old = source.replace(
        '        return {"message": "json_too_deep", "path": path, "levels": MAX_DEPTH}',
        '        return f"at {path}: nesting deeper than 100 levels"',
    )
    assert old != source
    (found,) = shared_check_prose(path, old)
    assert found.endswith(": 'at {}: nesting deeper than 100 levels'")
