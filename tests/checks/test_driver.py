"""The driver: the kernel-side half of a check, which answers requests with data only."""

from __future__ import annotations

import json

import pytest

from course_lib.driver import Driver, json_problem_at, said, scrub


def ask(driver: Driver, **request):
    """One request through the JSON text entry point, as both channels send it."""
    return json.loads(driver.handle_json(json.dumps(request)))


@pytest.fixture
def driver():
    def double(x):
        return 2 * x

    def boom():
        raise KeyError("no such key")

    class Box:
        def __init__(self):
            self.items = []

        def add(self, item):
            self.items.append(item)
            return len(self.items)

    return Driver({"double": double, "boom": boom, "Box": Box, "answer": 42})


def test_a_call_returns_plain_json_and_the_python_type(driver):
    assert ask(driver, op="call", fn={"target": "double"}, args=[{"json": 21}]) == {
        "type": "int",
        "returned": 42,
    }


def test_an_exception_comes_back_as_its_type_its_bases_and_its_message(driver):
    reply = ask(driver, op="call", fn={"target": "boom"})
    assert reply["raised"]["type"] == "KeyError"
    assert reply["raised"]["types"][:2] == ["KeyError", "LookupError"]
    assert reply["raised"]["message"] == "'no such key'"


def test_an_exception_raised_from_another_names_its_cause_and_only_an_explicit_one():
    def wrapped():
        try:
            int("x")
        except ValueError as error:
            raise LookupError("wrapped") from error

    def implicit():
        try:
            int("x")
        except ValueError:
            raise LookupError("not from") from None

    driver = Driver({"wrapped": wrapped, "implicit": implicit})
    assert ask(driver, op="call", fn={"target": "wrapped"})["raised"]["cause_types"][:1] == [
        "ValueError"
    ]
    assert ask(driver, op="call", fn={"target": "implicit"})["raised"]["cause_types"] == []
    assert (
        ask(Driver({"boom": lambda: {}["k"]}), op="call", fn={"target": "boom"})["raised"][
            "cause_types"
        ]
        == []
    )


def test_source_text_builds_inputs_with_the_prelude_names(driver):
    reply = ask(
        driver,
        op="run",
        code="",
        result="[str(Optional[int]), repr(Literal['c', 'f'])]",
    )
    assert reply["returned"] == ["typing.Optional[int]", "typing.Literal['c', 'f']"]


def test_setup_may_start_with_a_future_import_and_annotations_stay_strings():
    driver = Driver({})
    setup = "from __future__ import annotations\ndef f(x: int) -> str: ...\n"
    reply = ask(
        driver,
        op="call",
        fn={"source": "lambda func: func.__annotations__"},
        args=[{"source": "f", "setup": setup}],
    )
    assert reply["returned"] == {"x": "int", "return": "str"}


def test_an_object_kept_as_a_handle_is_used_by_later_requests(driver):
    made = ask(driver, op="call", fn={"target": "Box"}, keep=True)
    assert "unjson" in made and made["handle"] == "h1"
    add = {"attr": "add", "of": {"handle": "h1"}}
    assert ask(driver, op="call", fn=add, args=[{"json": "北京"}])["returned"] == 1
    assert ask(driver, op="call", fn=add, args=[{"json": "上海"}])["returned"] == 2
    items = ask(driver, op="run", code="", result="box.items", bind={"box": {"handle": "h1"}})
    assert items["returned"] == ["北京", "上海"]


def test_what_json_cannot_hold_is_reported_with_its_path(driver):
    reply = ask(driver, op="run", code="", result="{'tags': {1, 2}}")
    assert reply["unjson"].startswith("at $.tags: a set")
    nan = said(json_problem_at({"x": [float("nan")]}), "en")
    assert nan == "at $.x[0]: the number nan, which JSON cannot hold"
    assert said(json_problem_at({1: "a"}), "en") == "at $: the key 1, which is not a string"


def test_a_tuple_comes_back_as_an_array_but_its_type_says_tuple(driver):
    reply = ask(driver, op="run", code="", result="('summary', {'city': 'the city'})")
    assert reply == {"type": "tuple", "returned": ["summary", {"city": "the city"}]}


def test_a_missing_target_and_a_value_that_is_not_callable_are_told_apart(driver):
    assert ask(driver, op="call", fn={"target": "nothing"}) == {"missing": "nothing"}
    assert ask(driver, op="call", fn={"target": "answer"})["not_callable"] == "int"


def test_messages_never_hold_memory_addresses_so_regrades_are_identical(driver):
    reply = ask(driver, op="run", code="class A: pass", result="A()")
    assert "0x" not in reply["repr"].replace("0x…", "")
    assert scrub("<object at 0x7f3a2b1c0d90>") == "<object at 0x…>"


def test_a_malformed_request_is_an_error_reply_never_an_exception(driver):
    assert "error" in ask(driver, op="fly")
    assert "error" in ask(driver, op="call", fn={"nonsense": 1})
    assert "error" in ask(driver, op="call")


def test_the_learners_system_exit_is_data_too(driver):
    reply = ask(driver, op="run", code="import sys\nsys.exit(3)", result="None")
    assert reply["raised"]["type"] == "SystemExit"


def test_describe_says_what_a_target_is_without_calling_it(driver):
    assert ask(driver, op="describe", value={"target": "Box"})["is_class"] is True
    double = ask(driver, op="describe", value={"target": "double"})
    assert (double["callable"], double["is_ellipsis"]) == (True, False)
