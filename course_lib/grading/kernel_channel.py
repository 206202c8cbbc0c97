"""The grader's end of a check: requests to the driver in the learner's kernel, as data.

When grading, a check runs here, in the grader's process (``course_lib.checks.core.run_check``).
Its first request starts ``__course_driver__.serve(...)`` in the kernel, as one silent
``execute_request``; from then on the two sides take turns over the kernel's stdin channel: the
driver's answer arrives as the prompt of an ``input_request`` and the next request goes back as
its ``input_reply``, until :meth:`KernelChannel.close` sends the word to stop. One execute per
check, not one per request: an ``execute_request`` costs about 5 ms in ipykernel, an
``input_request`` about 1 ms. While the kernel works on a request, the learner's model client
may send HTTP requests: they arrive as ``input_request`` messages too and are answered here, by a
local model that lives in this process (``ModelSession``), which records them.

Everything that comes back is untrusted data: it is size-capped and parsed defensively, and a
reply that is not what the driver sends becomes a failed case, never an exception of ours.
"""

from __future__ import annotations

import json
from typing import Any

import zmq

from course_lib.checks.learner import ModelSession
from course_lib.driver import DRIVER_PROMPT, MODEL_PROMPT, STOP, driver_failed
from course_lib.grading.kernel import ABORTED_RETRIES, KernelDied
from course_lib.grading.own_time import OwnDeadline
from course_lib.grading.texts import say

MAX_REPLY_CHARS = 4_000_000
POLL_MS = 200
CLOSE_GRACE = 10.0  # seconds a finished check waits for the driver to stop serving


class CheckTimeout(RuntimeError):
    """The learner's code did not answer a check's request before the cell's time ran out."""


class KernelChannel:
    """Sends driver requests to ``kernel`` (a ``GuardedKernel``) until ``deadline``."""

    def __init__(self, kernel: Any, *, timeout: float) -> None:
        self.kernel = kernel
        self.timeout = timeout
        self.deadline = kernel.deadline(timeout)  # own time: see ``own_time``
        self.sessions: dict[str, ModelSession] = {}
        self.serving: str | None = None  # the msg_id of the kernel's serve() request, if running
        self.waiting = False  # the driver has answered and waits for the next request
        self.starting = ""  # the code that starts serving, until the driver first answers
        self.attempts = 0  # how many times it was sent (ipykernel may answer "aborted")
        # What the driver said about each target's origins (``describe``): for the grader to
        # judge after the check (``provenance``), as data.
        self.origins: dict[str, Any] = {}

    def add_session(self, session: ModelSession) -> None:
        self.sessions[session.id] = session

    def send(self, request: dict[str, Any]) -> dict[str, Any]:
        text = json.dumps(request)
        client = self.kernel.kc
        if self.serving is None:
            self.starting, self.attempts = f"__course_driver__.serve({text!r})", 0
            self._start_serving()
        else:
            self.waiting = False
            client.input(text)
        reply = self._await_answer(self.deadline)
        value = request.get("value") if request.get("op") == "describe" else None
        if isinstance(value, dict) and isinstance(value.get("target"), str):
            self.origins[value["target"]] = reply.get("origins")
        return reply

    def _start_serving(self) -> None:
        self.attempts += 1
        self.serving = self.kernel.kc.execute(
            self.starting, silent=True, store_history=False, allow_stdin=True
        )

    def close(self) -> None:
        """End the kernel's serve loop, so that the notebook's next cell can run. The driver
        gets the word to stop; if it has not stopped within ``CLOSE_GRACE`` (the learner's code
        may have caught the timeout's interrupt and gone on), the kernel is interrupted, and
        after a second grace the channel gives up (the next cell then times out, as it would)."""
        for _ in range(2):
            if self.serving is None or not self.kernel.is_alive():
                break
            if self.waiting:
                self.waiting = False
                self.kernel.kc.input(STOP)
            try:
                self._await_answer(self.kernel.deadline(CLOSE_GRACE), closing=True)
            except CheckTimeout:
                continue  # interrupted: wait once more
            except KernelDied:
                break
        self.serving, self.waiting = None, False

    def _await_answer(self, deadline: OwnDeadline, *, closing: bool = False) -> dict[str, Any]:
        client = self.kernel.kc
        poller = zmq.Poller()
        shell, stdin = client.shell_channel.socket, client.stdin_channel.socket
        poller.register(shell, zmq.POLLIN)
        poller.register(stdin, zmq.POLLIN)
        while True:
            left = deadline.left()
            if left <= 0:
                self.kernel.interrupt()
                raise CheckTimeout(
                    f"the check's calls into the notebook ran for more than {self.timeout:g} s"
                )
            ready = dict(poller.poll(min(POLL_MS, max(1, int(left * 1000)))))
            if stdin in ready:
                # The channels' own reads: the client's get_*_msg wrappers run an asyncio loop
                # for each message (about half a millisecond, a request takes two).
                prompt = _prompt(client.stdin_channel.get_msg(timeout=0))
                if prompt.startswith(DRIVER_PROMPT):
                    if closing:
                        client.input(STOP)
                        continue
                    self.waiting, self.starting = True, ""
                    return _parse(prompt[len(DRIVER_PROMPT) :])
                self._answer_input(prompt)
            if shell in ready:
                msg = client.shell_channel.get_msg(timeout=0)
                if msg["parent_header"].get("msg_id") == self.serving:
                    if _aborted(msg) and self.starting and self.attempts < ABORTED_RETRIES:
                        self._start_serving()  # see kernel.ABORTED_RETRIES
                        continue
                    self.serving, self.waiting = None, False
                    return _ended(msg)
            if not ready and not self.kernel.is_alive():
                reason = self.kernel.exit_description()
                raise KernelDied(say("kernel_died_because", reason=reason))

    def _answer_input(self, prompt: str) -> None:
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


def _prompt(msg: dict[str, Any]) -> str:
    prompt = msg.get("content", {}).get("prompt", "") if isinstance(msg, dict) else ""
    return prompt if isinstance(prompt, str) else ""


def _parse(text: str) -> dict[str, Any]:
    """The driver's answer, or ``{"error": ...}`` saying why it cannot be read."""
    if len(text) > MAX_REPLY_CHARS:
        return {"error": "the notebook's answer is larger than the grader reads"}
    try:
        payload = json.loads(text)
    except (ValueError, RecursionError):
        return {"error": "the notebook's answer is not what the driver sends"}
    if not isinstance(payload, dict):
        return {"error": "the notebook's answer is not what the driver sends"}
    return payload


def _aborted(msg: dict[str, Any]) -> bool:
    content = msg.get("content") if isinstance(msg, dict) else None
    return isinstance(content, dict) and content.get("status") == "aborted"


def _ended(msg: dict[str, Any]) -> dict[str, Any]:
    """What a request gets when the kernel's serve loop ended instead of answering it."""
    content = msg.get("content") if isinstance(msg, dict) else None
    if isinstance(content, dict) and content.get("status") == "error":
        return driver_failed(str(content.get("ename", "")), str(content.get("evalue", "")))
    return {"error": "the kernel sent no answer to the check's request"}
