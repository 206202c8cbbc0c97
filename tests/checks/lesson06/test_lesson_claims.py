"""What lesson 06 says about other libraries, checked against the installed versions.

The lesson states these in prose (its learner's install has neither langchain-core nor a reason
to run them), so a new release that changes them shows up here, not as a stale sentence.
"""

from __future__ import annotations

import langchain_core
from asteval import Interpreter
from langchain_core.utils.function_calling import convert_to_openai_tool


def search_notes(keyword: str, limit: int = 5, filters: dict[str, str] | None = None) -> list:
    """Search my notes for a keyword.

    Args:
        keyword: The word to look for.
        limit: How many notes at most.
        filters: Field values the notes must have.
    """
    return []


def test_langchain_core_strict_rewrites_an_open_map_into_an_object_that_accepts_no_keys():
    assert langchain_core.__version__.split(".")[0] == "1"  # the lesson names langchain-core 1.8
    parameters = convert_to_openai_tool(search_notes, strict=True)["function"]["parameters"]
    assert parameters["required"] == ["keyword", "limit", "filters"]
    assert parameters["properties"]["limit"] == {
        "default": 5,
        "description": "How many notes at most.",
        "type": "integer",
    }
    object_branch = parameters["properties"]["filters"]["anyOf"][0]
    assert object_branch["type"] == "object" and object_branch["additionalProperties"] is False
    assert "properties" not in object_branch  # no key is allowed at all


def test_asteval_limits_and_state_are_those_the_lesson_tables():
    interpreter = Interpreter(minimal=True, use_numpy=False)
    assert interpreter.eval("2 ** 10000", show_errors=False, raise_errors=True) == 2**10000
    for refused in ("2 ** 10001", "1 + " * 12_500 + "1", "__import__('os')", "().__class__"):
        interpreter.error = []
        assert interpreter.eval(refused, show_errors=False) is None
        assert interpreter.error, refused
    interpreter.eval("x = 42", raise_errors=True)
    assert interpreter.eval("x + 1", raise_errors=True) == 43
    assert Interpreter(minimal=True, use_numpy=False).eval("x", show_errors=False) is None
