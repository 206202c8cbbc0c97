"""The course's MCP server processes this test process started (Linux: read /proc).

Only descendants of the running test process count: under ``pytest -n 2`` the other worker's
servers are alive for its own tests, and a server this process failed to stop stays its child
(a client starts the server directly; a living parent keeps its children).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

MARKERS = ("course_lib.mcp_servers.notes", "serve-mcp")


def _read(pid: str) -> tuple[list[str], str, int] | None:
    """A process's arguments, state and parent pid, or None when it is gone."""
    entry = Path("/proc") / pid
    try:
        raw = (entry / "cmdline").read_bytes().split(b"\0")
        fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return [a.decode(errors="replace") for a in raw], fields[0], int(fields[1])


def course_servers() -> list[int]:
    """Pids of live descendants started as ``<this python> ... <a course MCP server>``.

    A zombie (exited, not yet reaped) is not running."""
    table = {pid: info for pid in os.listdir("/proc") if pid.isdigit() if (info := _read(pid))}
    parents = {int(pid): info[2] for pid, info in table.items()}

    def descends_from_us(pid: int) -> bool:
        seen = set()
        while pid > 1 and pid not in seen:
            seen.add(pid)
            pid = parents.get(pid, 0)
            if pid == os.getpid():
                return True
        return False

    found = []
    for pid, (args, state, _) in table.items():
        if state == "Z" or not args or args[0] != sys.executable:
            continue
        if any(marker in args for marker in MARKERS) and descends_from_us(int(pid)):
            found.append(int(pid))
    return sorted(found)
