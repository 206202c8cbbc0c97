"""The connection helpers raise what the body of ``async with`` raised, not the SDK's
exception groups around it (a learner's ``KeyError`` reads as a ``KeyError``)."""

from __future__ import annotations

import sys

import anyio
import pytest

from course_lib.mcp_servers.connect import connect_in_memory, plain_errors
from course_lib.mcp_servers.course_tools import course_tools_server

if sys.version_info < (3, 11):  # pragma: no cover
    from exceptiongroup import BaseExceptionGroup, ExceptionGroup


def test_an_error_in_the_body_of_an_in_memory_session_comes_out_as_itself():
    async def main():
        async with connect_in_memory(course_tools_server()) as session:
            await session.list_tools()
            raise KeyError("arguments")

    with pytest.raises(KeyError, match="arguments") as caught:
        anyio.run(main)
    assert not isinstance(caught.value, BaseExceptionGroup)


def test_a_single_error_nested_in_two_groups_is_raised_alone():
    with pytest.raises(ValueError, match="inner"), plain_errors():
        raise ExceptionGroup("outer", [ExceptionGroup("middle", [ValueError("inner")])])


def test_a_group_of_two_errors_stays_a_group():
    with pytest.raises(BaseExceptionGroup) as caught, plain_errors():
        raise ExceptionGroup("two", [ValueError("a"), KeyError("b")])
    assert len(caught.value.exceptions) == 2


def test_an_error_outside_any_group_passes_through_unchanged():
    error = LookupError("plain")
    with pytest.raises(LookupError) as caught, plain_errors():
        raise error
    assert caught.value is error
