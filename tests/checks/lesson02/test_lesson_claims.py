"""What lesson 02 says about other libraries, checked against the installed versions.

Section 5's "One text, two readers": the OpenAI Agents SDK's ``function_tool`` takes the docstring's
summary unless given ``description_override``; the ``mcp`` SDK's ``MCPServer.tool`` falls back to
the whole docstring (``Args:`` included) unless given ``description``.
"""

from __future__ import annotations

import asyncio
import inspect

import pytest


def convert(amount: float) -> float:
    """Multiply by the rate table.

    Args:
        amount: Amount in CNY.
    """
    return amount


def test_the_agents_sdk_takes_the_docstring_summary_unless_given_an_override():
    agents = pytest.importorskip("agents")
    assert {"description_override", "use_docstring_info"} <= set(
        inspect.signature(agents.function_tool).parameters
    )
    assert agents.function_tool(convert).description == "Multiply by the rate table."
    overridden = agents.function_tool(convert, description_override="Convert money.")
    assert overridden.description == "Convert money."
    assert overridden.params_json_schema["properties"]["amount"]["description"] == "Amount in CNY."


def test_the_mcp_sdk_falls_back_to_the_whole_docstring_unless_given_a_description():
    from mcp.server import MCPServer

    server = MCPServer("claims")
    server.tool()(convert)
    server.tool(name="convert_described", description="Convert money.")(convert)
    described = {tool.name: tool.description for tool in asyncio.run(server.list_tools())}
    assert described == {"convert": convert.__doc__, "convert_described": "Convert money."}
    assert "Args:" in described["convert"]
