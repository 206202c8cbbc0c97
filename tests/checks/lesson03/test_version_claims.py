"""What lesson 03 says about particular Python versions, checked on the version running.

Each test states the claim for every supported version (3.10 to 3.14) and asserts the branch of
the version it runs on, so a CI run on another version checks that version's branch.
"""

from __future__ import annotations

import importlib.util
import inspect
import sys
import textwrap
import types
import typing
from typing import Optional

import pytest

from course_lib.reference import parameters_schema


def search_notes(keyword: str, limit: int = None) -> list:  # noqa: RUF013 (the pitfall itself)
    return []


def test_get_type_hints_makes_a_none_default_optional_on_python_3_10_only():
    """3.10: ``Optional[int]``; 3.11, 3.12, 3.13 and 3.14: ``int``, as written."""
    limit = typing.get_type_hints(search_notes)["limit"]
    if sys.version_info < (3, 11):
        assert limit == Optional[int]  # noqa: UP045 (the spelling 3.10 returns)
    else:
        assert limit is int


def test_signature_with_eval_str_reads_the_annotation_as_written_on_every_version():
    """``inspect.signature(func, eval_str=True)`` adds no ``Optional`` on 3.10 to 3.14."""
    parameter = inspect.signature(search_notes, eval_str=True).parameters["limit"]
    assert parameter.annotation is int and parameter.default is None


def test_the_reference_refuses_a_none_default_from_3_11_and_lets_3_10_make_it_nullable():
    """3.10: the reference sees ``Optional[int]`` and builds a nullable ``limit``; 3.11 to 3.14:
    ``TypeError`` naming the function and the parameter."""
    if sys.version_info < (3, 11):
        limit = parameters_schema(search_notes)["properties"]["limit"]
        assert "null" in limit["type"] and limit["default"] is None
    else:
        refusal = r"search_notes\(\): parameter 'limit' defaults to None"
        with pytest.raises(TypeError, match=refusal):
            parameters_schema(search_notes)


def test_the_two_union_spellings_are_two_objects_up_to_3_13_and_one_kind_from_3_14():
    """Up to 3.13 ``int | None`` is a ``types.UnionType`` and ``Optional[int]`` a
    ``typing.Union``; 3.14 makes them the same kind (``types.UnionType`` is ``typing.Union``)."""
    origins = {typing.get_origin(int | None), typing.get_origin(Optional[int])}  # noqa: UP045
    if sys.version_info < (3, 14):
        assert origins == {types.UnionType, typing.Union}
    else:
        assert len(origins) == 1


FUTURE_MODULE = textwrap.dedent(
    """
    from __future__ import annotations


    def plan_trip(city: str, days: int) -> str:
        return city
    """
)


def test_annotationlib_returns_the_future_imports_strings_unless_eval_str_from_3_14():
    """3.14+: ``annotationlib.get_annotations`` returns ``'int'`` under the future import and
    ``int`` only with ``eval_str=True``; before 3.14 the module does not exist."""
    if sys.version_info < (3, 14):
        assert importlib.util.find_spec("annotationlib") is None
        return
    import annotationlib  # type: ignore[import-not-found]

    namespace: dict = {}
    exec(FUTURE_MODULE, namespace)  # noqa: S102
    plan_trip = namespace["plan_trip"]
    assert annotationlib.get_annotations(plan_trip)["days"] == "int"
    assert annotationlib.get_annotations(plan_trip, eval_str=True)["days"] is int


def test_the_future_import_stores_annotations_as_text_on_every_version():
    namespace: dict = {}
    exec(FUTURE_MODULE, namespace)  # noqa: S102
    assert namespace["plan_trip"].__annotations__["days"] == "int"
    assert typing.get_type_hints(namespace["plan_trip"])["days"] is int
