"""The course's MCP servers as subprocesses for the tests: over HTTP on a free loopback port,
and over stdio one JSON line at a time. Every wait is bounded generously (a server that hangs
fails the test instead of hanging it); nothing here measures time."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import anyio

from course_lib.mcp_servers.connect import COURSE_TOOLS_SERVER

ENV = {**os.environ, "PYTHONUNBUFFERED": "1"}
BOUND = 120  # seconds: for a hung server, not for a slow one


def run(main):
    """``anyio.run(main)`` within ``BOUND`` seconds."""

    async def bounded():
        with anyio.fail_after(BOUND):
            return await main()

    return anyio.run(bounded)


@contextmanager
def http_server(server=COURSE_TOOLS_SERVER) -> Iterator[tuple[subprocess.Popen, str]]:
    """``server --http`` on any free loopback port: the process and its URL (from its banner)."""
    process = subprocess.Popen(
        [sys.executable, *server, "--http", "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=ENV,
    )
    try:
        banner = process.stdout.readline()
        url = banner.split(" at ")[1].split()[0]
        assert url.startswith("http://127.0.0.1:") and url.endswith("/mcp"), banner
        yield process, url
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        process.stdout.close()
        process.stderr.close()


class StdioWire:
    """A stdio server written to and read from line by line, as a hand-written client would."""

    def __init__(self, server=COURSE_TOOLS_SERVER) -> None:
        self.process = subprocess.Popen(
            [sys.executable, *server],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            encoding="utf-8",
            env=ENV,
        )
        self.lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self.process.stdout:
            self.lines.put(line)

    def write(self, message: Any) -> None:
        """One line: ``message`` as JSON, or a ``str`` written as it is (plus a newline)."""
        text = message if isinstance(message, str) else json.dumps(message, ensure_ascii=False)
        self.process.stdin.write(text + "\n")
        self.process.stdin.flush()

    def answer(self) -> dict:
        """The next line the server writes, as JSON (fails after ``BOUND`` seconds of silence)."""
        return json.loads(self.lines.get(timeout=BOUND))

    def ask(self, message: Any) -> dict:
        self.write(message)
        return self.answer()

    def close(self) -> tuple[int, str]:
        """Close stdin (goodbye); the exit status and what the server wrote on stderr."""
        self.process.stdin.close()
        status = self.process.wait(timeout=BOUND)
        err = self.process.stderr.read()
        self.process.stderr.close()
        return status, err
