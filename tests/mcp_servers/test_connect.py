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


@pytest.mark.parametrize("protocol", ["auto", "2026-07-28"])
def test_a_server_too_slow_for_the_first_probe_still_gets_2026_07_28(monkeypatch, protocol):
    # The SDK gives server/discover a fixed time; a stdio server starting on a busy machine can
    # miss it. Here the first probe's time is zero: the probe reaches the server (which from then
    # on serves 2026-07-28) but the client stops waiting at once.
    import mcp.client.session as client_session

    send_discover = client_session.ClientSession.send_discover
    normal = client_session.DISCOVER_TIMEOUT_SECONDS
    probes = []

    async def first_one_too_slow(self, version):
        probes.append(version)
        monkeypatch.setattr(client_session, "DISCOVER_TIMEOUT_SECONDS", normal)
        if len(probes) == 1:
            monkeypatch.setattr(client_session, "DISCOVER_TIMEOUT_SECONDS", 0.0)
        return await send_discover(self, version)

    monkeypatch.setattr(client_session.ClientSession, "send_discover", first_one_too_slow)

    async def main():
        async with connect_in_memory(course_tools_server(), protocol=protocol) as session:
            names = [tool.name for tool in (await session.list_tools()).tools]
            return session.protocol_version, names

    version, names = anyio.run(main)
    assert version == "2026-07-28" and "get_weather" in names
    assert len(probes) == 2
