"""The course's MCP server processes this checkout's Python is running (Linux: read /proc)."""

from __future__ import annotations

import sys
from pathlib import Path

MARKERS = ("course_lib.mcp_servers.notes", "serve-mcp")


def course_servers() -> list[int]:
    """Pids of live processes started as ``<this python> ... <a course MCP server>``.

    Other checkouts run their own Python (another path), so their servers do not count; a
    zombie (exited, not yet reaped) is not running either."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            args = [
                a.decode(errors="replace") for a in (entry / "cmdline").read_bytes().split(b"\0")
            ]
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if state == "Z" or not args or args[0] != sys.executable:
            continue
        if any(marker in args for marker in MARKERS):
            found.append(int(entry.name))
    return found
