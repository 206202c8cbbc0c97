"""The grader's end of a check: requests to the driver in the learner's kernel, as data.

When grading, a check runs here, in the grader's process (``course_lib.checks.core.run_check``).
Each request it makes travels to the kernel as one silent ``execute_request`` whose only work is
a ``user_expressions`` entry calling ``__course_driver__.handle_json(...)``; the reply is the JSON
text that call returned. While the kernel works on a request, the learner's model client may send
HTTP requests: they arrive as ``input_request`` messages on the stdin channel and are answered
here, by a local model that lives in this process (``ModelSession``), which records them.

Everything that comes back is untrusted data: it is size-capped and parsed defensively, and a
reply that is not what the driver sends becomes a failed case, never an exception of ours.
"""

from __future__ import annotations

import ast
import json
import time
from typing import Any

import zmq

from course_lib.checks.learner import ModelSession
from course_lib.grading.kernel import KernelDied

MAX_REPLY_CHARS = 4_000_000
MODEL_PROMPT = "course-model:"
POLL_MS = 200


class CheckTimeout(RuntimeError):
    """The learner's code did not answer a check's request before the cell's time ran out."""


class KernelChannel:
    """Sends driver requests to ``kernel`` (a ``GuardedKernel``) until ``deadline``."""

    def __init__(self, kernel: Any, *, timeout: float) -> None:
        self.kernel = kernel
        self.timeout = timeout
        self.deadline = time.monotonic() + timeout
        self.sessions: dict[str, ModelSession] = {}

    def add_session(self, session: ModelSession) -> None:
        self.sessions[session.id] = session

    def send(self, request: dict[str, Any]) -> dict[str, Any]:
        call = f"__course_driver__.handle_json({json.dumps(json.dumps(request))})"
        client = self.kernel.kc
        msg_id = client.execute(
            "", silent=True, store_history=False, allow_stdin=True, user_expressions={"r": call}
        )
        reply = self._await_reply(msg_id)
        return _parse(reply)

    def _await_reply(self, msg_id: str) -> dict[str, Any]:
        client = self.kernel.kc
        poller = zmq.Poller()
        shell, stdin = client.shell_channel.socket, client.stdin_channel.socket
        poller.register(shell, zmq.POLLIN)
        poller.register(stdin, zmq.POLLIN)
        while True:
            left = self.deadline - time.monotonic()
            if left <= 0:
                self.kernel.interrupt()
                raise CheckTimeout(
                    f"the check's calls into the notebook ran for more than {self.timeout:g} s"
                )
            ready = dict(poller.poll(min(POLL_MS, max(1, int(left * 1000)))))
            if stdin in ready:
                self._answer_input(client.get_stdin_msg(timeout=0))
            if shell in ready:
                msg = client.get_shell_msg(timeout=0)
                if msg["parent_header"].get("msg_id") == msg_id:
                    return msg
            if not ready and not self.kernel.is_alive():
                raise KernelDied(f"the kernel died ({self.kernel.exit_description()})")

    def _answer_input(self, msg: dict[str, Any]) -> None:
        prompt = str(msg.get("content", {}).get("prompt", ""))
        if not prompt.startswith(MODEL_PROMPT):
            self.kernel.kc.input("")  # the learner's own input(): there is nobody to answer
            return
        try:
            message = json.loads(prompt[len(MODEL_PROMPT) :])
            session = self.sessions[str(message["session"])]
            answer = session.answer(message)
        except (ValueError, KeyError, TypeError, RecursionError) as exc:
            answer = {
                "status": 400,
                "content_type": "application/json",
                "body": json.dumps({"error": {"message": f"unreadable request: {exc}"}}),
            }
        self.kernel.kc.input(json.dumps(answer, ensure_ascii=False))


def _parse(msg: dict[str, Any]) -> dict[str, Any]:
    """The driver's reply out of an ``execute_reply``, or ``{"error": ...}`` saying why not."""
    try:
        result = msg["content"]["user_expressions"]["r"]
    except (KeyError, TypeError):
        return {"error": "the kernel sent no answer to the check's request"}
    if result.get("status") != "ok":
        name, value = str(result.get("ename", "")), str(result.get("evalue", ""))[:300]
        return {"error": f"the notebook's driver failed: {name}: {value}"}
    text = result.get("data", {}).get("text/plain", "")
    if not isinstance(text, str) or len(text) > MAX_REPLY_CHARS:
        return {"error": "the notebook's answer is larger than the grader reads"}
    if text[:1] not in ("'", '"') or text[-1:] != text[:1]:
        return {"error": "the notebook's answer is not what the driver sends"}
    try:
        payload = json.loads(ast.literal_eval(text))
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return {"error": "the notebook's answer is not what the driver sends"}
    if not isinstance(payload, dict):
        return {"error": "the notebook's answer is not what the driver sends"}
    return payload
