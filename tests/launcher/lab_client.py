"""Talking to a running JupyterLab as its web page does: REST calls, the Terminal's websocket and
a kernel's websocket (with tornado, which JupyterLab itself is built on).

Used to type the README's self-check into JupyterLab's Terminal and to run it in a notebook cell
of a server the launcher started, exactly as a learner would, without a browser.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
import urllib.error
import urllib.request
import uuid
from dataclasses import dataclass

from tornado.websocket import websocket_connect

MESSAGE_PROTOCOL = "5.3"


@dataclass(frozen=True)
class Lab:
    """A JupyterLab server: its base URL (``http://127.0.0.1:PORT``) and token."""

    base: str
    token: str

    @classmethod
    def from_url(cls, url: str) -> Lab:
        match = re.match(r"(http://[^/]+)/.*[?&]token=(\w+)", url)
        assert match, f"not a JupyterLab URL with a token: {url}"
        return cls(match.group(1), match.group(2))

    def api(self, method: str, path: str, body: object | None = None) -> object:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(
            f"{self.base}{path}",
            data=data,
            method=method,
            headers={"Authorization": f"token {self.token}", "Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=30) as reply:
            text = reply.read()
        return json.loads(text) if text else None

    def answers(self) -> bool:
        try:
            self.api("GET", "/api/status")
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            return False
        return True

    def websocket_url(self, path: str) -> str:
        return f"{self.base.replace('http://', 'ws://')}{path}?token={self.token}"


async def _terminal_session(lab: Lab, lines: list[str], until: re.Pattern, seconds: float) -> str:
    name = lab.api("POST", "/api/terminals")["name"]
    socket = await websocket_connect(lab.websocket_url(f"/terminals/websocket/{name}"))
    screen = ""
    try:
        socket.write_message(json.dumps(["set_size", 40, 200, 800, 1600]))
        for line in lines:
            socket.write_message(json.dumps(["stdin", line + "\r"]))
        deadline = time.monotonic() + seconds
        while not until.search(screen) and time.monotonic() < deadline:
            try:
                message = await asyncio.wait_for(socket.read_message(), timeout=5)
            except asyncio.TimeoutError:
                continue
            if message is None:
                break
            kind, *payload = json.loads(message)
            if kind == "stdout":
                screen += payload[0]
    finally:
        socket.close()
        lab.api("DELETE", f"/api/terminals/{name}")
    return screen


def type_in_terminal(lab: Lab, lines: list[str], until: str, seconds: float = 180) -> str:
    """Open a Terminal, type ``lines``, and return what it showed once ``until`` (a regular
    expression) appears, or after ``seconds``."""
    return asyncio.run(_terminal_session(lab, lines, re.compile(until), seconds))


def _execute_request(code: str, session: str) -> tuple[str, str]:
    msg_id = uuid.uuid4().hex
    message = {
        "header": {
            "msg_id": msg_id,
            "username": "learner",
            "session": session,
            "msg_type": "execute_request",
            "version": MESSAGE_PROTOCOL,
        },
        "parent_header": {},
        "metadata": {},
        "content": {
            "code": code,
            "silent": False,
            "store_history": False,
            "user_expressions": {},
            "allow_stdin": False,
            "stop_on_error": True,
        },
        "channel": "shell",
        "buffers": [],
    }
    return msg_id, json.dumps(message)


async def _run_cell(lab: Lab, kernel_id: str, code: str, seconds: float) -> str:
    socket = await websocket_connect(lab.websocket_url(f"/api/kernels/{kernel_id}/channels"))
    session = uuid.uuid4().hex
    msg_id, request = _execute_request(code, session)
    output = ""
    try:
        socket.write_message(request)
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            try:
                raw = await asyncio.wait_for(socket.read_message(), timeout=5)
            except asyncio.TimeoutError:
                continue
            if raw is None:
                break
            message = json.loads(raw)
            if message.get("parent_header", {}).get("msg_id") != msg_id:
                continue
            kind, content = message["header"]["msg_type"], message["content"]
            if kind == "stream":
                output += content["text"]
            elif kind == "error":
                output += "\n".join(content.get("traceback", []))
            elif kind == "status" and content["execution_state"] == "idle":
                break
    finally:
        socket.close()
    return output


def run_in_notebook_cell(lab: Lab, notebook: str, code: str, seconds: float = 180) -> str:
    """Run ``code`` as a cell of ``notebook`` (a path under the server's root), in a kernel the
    server starts for it, as opening the notebook does; the cell's printed output."""
    session = lab.api(
        "POST",
        "/api/sessions",
        {"path": notebook, "name": notebook, "type": "notebook", "kernel": {"name": "python3"}},
    )
    try:
        return asyncio.run(_run_cell(lab, session["kernel"]["id"], code, seconds))
    finally:
        lab.api("DELETE", f"/api/sessions/{session['id']}")
