"""Lesson 04's tools in the reference registry: what ``python -m course_lib serve-mcp`` serves.

The same three tools lesson 04 registers (the weather, a notes search, a colleague finder), with
the same data in English and Chinese, so a desktop MCP client connected to ``serve-mcp`` sees
the registry the course built: ``tools/list`` is ``registry.schemas()``, ``tools/call`` is
``registry.call()`` (see ``course_lib.reference.mcp_server``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from course_lib.reference import ToolRegistry

if TYPE_CHECKING:
    from mcp.server.lowlevel import Server

WEATHER = {"北京": 31, "上海": 27, "Paris": 18}
NOTES = ["北京 trip: book the train", "Shopping: milk, 豆腐, rice", "Call Zhang San about 上海"]
STAFF = {"Zhang San": "Engineering, 上海 office", "李四": "Sales, 北京 office"}


def get_weather(city: str, unit: Literal["c", "f"] = "c") -> dict:
    """Current weather for a city, e.g. 北京 or Paris.

    Args:
        city: The city, e.g. 上海.
        unit: "c" for Celsius, "f" for Fahrenheit.
    """
    if city not in WEATHER:
        raise ValueError(f"no weather for {city}; the cities are {', '.join(WEATHER)}")
    celsius = WEATHER[city]
    temperature = celsius if unit == "c" else round(celsius * 9 / 5 + 32)
    return {"city": city, "temperature": temperature, "unit": unit}


def search(keyword: str, limit: int = 5) -> list[str]:
    """Search my notes for a keyword.

    Args:
        keyword: A word to look for, e.g. 豆腐.
        limit: How many notes to return at most.
    """
    return [note for note in NOTES if keyword.lower() in note.lower()][:limit]


def find_colleague(name: str) -> str:
    """Find a colleague by name, e.g. Zhang San or 李四, and tell where they work."""
    if name not in STAFF:
        raise LookupError(f"nobody called {name} works here")
    return STAFF[name]


def course_registry() -> ToolRegistry:
    """A fresh registry holding lesson 04's three tools, in lesson 04's order."""
    registry = ToolRegistry()
    registry.tool(get_weather, tags=["weather"])
    registry.tool(search, name="search_notes", tags=["notes"])
    registry.tool(find_colleague, tags=["people"])
    return registry


def course_tools_server() -> Server:
    """Lesson 04's registry as an MCP server object (what ``serve-mcp`` runs), for clients in
    this process (``connect_in_memory``)."""
    from course_lib.reference.mcp_server import serve_registry

    return serve_registry(course_registry())
