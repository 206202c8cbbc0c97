"""Statements with no effect are dropped before fingerprinting (``no_effect``), and only they:
a padder's fillers go, whatever their form; whatever does something stays, however useless it
looks, and so does every name something reads (a later statement, a string naming it, the rest
of the notebook, the exercise's target)."""

from __future__ import annotations

import ast

import pytest
from attacks.disguise import DEAD_CODE, dead_coded, dead_stored, padded

from course_lib.grading.fingerprint import effective_source, fingerprints

ORIGINAL = '''import math


def area(shape, size=1.0):
    """The area of a square or a circle."""
    if shape == "square":
        side = size
        return side * side
    radius = size / 2
    return math.pi * radius**2
'''
LIVE = frozenset({"area"})


def effective(source: str, live: frozenset[str] | None = LIVE) -> str:
    return effective_source(source, live)


@pytest.mark.parametrize("filler", range(len(DEAD_CODE)))
def test_each_kind_of_dead_filler_is_dropped(filler):
    disguised = dead_coded(ORIGINAL)
    source = padded(ORIGINAL, (DEAD_CODE[filler],))
    assert source != ORIGINAL
    assert effective(source) == effective(ORIGINAL)
    assert effective(disguised) == effective(ORIGINAL)


def test_the_red_teams_dead_stores_leave_the_same_fingerprints():
    assert fingerprints(dead_stored(ORIGINAL), LIVE) == fingerprints(ORIGINAL, LIVE)


@pytest.mark.parametrize(
    "kept",
    [
        "_log = []\n_log.append(1)",  # a store into something read
        "_p = print(end='')",  # a call
        "print(end='')",
        "import os as _unused",  # an import
        "for _ in range(3):\n    print()",  # a loop
        "with open(__file__) as _f:\n    print()",
        "if math.isnan(0.0):\n    print()",  # a test that calls
        "_p = (lambda: 1)()",
        "_n = 1\nglobals()['_n']",  # a string names it... read by a call
        "@staticmethod\ndef _decorated():\n    return 1",  # a decorator runs
        "def _default(a=print()):\n    return a",  # a default that calls
        "class _Sub(math.Base):\n    k = 1",  # a base that is not a builtin
        "class _Kw(metaclass=type):\n    k = 1",
        "__all__ = ['area']",  # read by Python itself
        "_t = 0\nwhile _t < 3:\n    _t += 1",  # read by a test that is kept
        "_x = 1\n_y = [_x]\nprint(_y)",  # a chain that ends in something kept
    ],
)
def test_what_does_something_stays(kept):
    source = ORIGINAL + "\n" + kept + "\n"
    assert ast.dump(ast.parse(effective(source))) == ast.dump(ast.parse(source)), kept


def test_a_class_body_keeps_its_attributes_and_a_method_its_reads():
    source = (
        "class Shape:\n    sides = 4\n    _cache = None\n\n"
        "    def area(self):\n        unused = 2\n        return self.sides\n"
    )
    expected = (
        "class Shape:\n    sides = 4\n    _cache = None\n\n"
        "    def area(self):\n        return self.sides"
    )
    assert effective(source, frozenset({"Shape"})) == expected


def test_names_read_elsewhere_are_live():
    source = "TABLE = {'a': 1}\nLIMIT = 3\n_p = 4\n\ndef f(x):\n    return TABLE[x]"
    # the rest of the notebook reads LIMIT; the exercise's target is f
    assert effective(source, frozenset({"f", "LIMIT"})) == (
        "TABLE = {'a': 1}\nLIMIT = 3\n\ndef f(x):\n    return TABLE[x]"
    )
    # the target alone: a store nobody reads goes, the table f reads stays
    assert "LIMIT" not in effective(source, frozenset({"f"}))
    # nothing said: nothing is dropped from the top level (the course's own sources)
    assert effective(source, None) == ast.unparse(ast.parse(source))


def test_a_name_a_kept_string_names_is_live():
    source = "_hidden = 3\n\ndef f():\n    return globals()['_hidden']"
    assert "_hidden = 3" in effective(source, frozenset({"f"}))


def test_a_function_nobody_calls_and_its_helpers_go_together():
    source = (
        "def _helper():\n    return 1\n\ndef _unused():\n    return _helper()\n\n"
        "def f():\n    return 2"
    )
    assert effective(source, frozenset({"f"})) == "def f():\n    return 2"


def test_the_effective_code_does_what_the_padded_code_does():
    disguised = dead_coded(ORIGINAL)
    for source in (disguised, effective(disguised)):
        namespace: dict = {}
        exec(source, namespace)
        assert namespace["area"]("square", 3) == 9
        assert round(namespace["area"]("circle", 2), 6) == round(3.141592653589793, 6)


def test_an_empty_block_under_a_test_that_calls_keeps_the_test():
    assert effective("if math.isnan(0.0):\n    pass", frozenset()) == "if math.isnan(0.0):"


def test_a_deeply_nested_source_is_still_read():
    source = "x = " + "-" * 150 + "1\n_p = 1\n"  # deeper than an expression is judged: kept
    assert effective(source, frozenset()).startswith("x = " + "-" * 150 + "1")
    deep = "x = 1" + " + 1" * 5000 + "\n"  # deeper than Python parses: compared as text
    assert effective(deep, frozenset()).startswith("x = 1 + 1")
