"""What the checks of lesson 08 share: the notebook's name, and the way a check reads what a real
MCP client saw in the kernel (``kernel_side``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from course_lib.checks.failures import Failure, NotDoneYet
from course_lib.checks.learner import Reply
from course_lib.checks.lesson08 import kernel_side
from course_lib.checks.messages import stub_text
from course_lib.driver import said_value
from course_lib.i18n import ENGLISH, translate

NOTEBOOK = "08_mcp"
CHECK_MODEL = "toy-mcp-check"  # not MODEL: the learner must pass ``model`` through
# ``kernel_side``'s text, sent as a case's setup: a grading kernel cannot read (so cannot import)
# anything under ``course_lib/checks``; what the text itself imports (the SDK, ``course_lib``'s
# driver and MCP connections) it can.
KERNEL_SOURCE = Path(__file__).with_name("kernel_side.py").read_text(encoding="utf-8")


def kernel_helper(name: str) -> dict[str, Any]:
    """A value spec for ``kernel_side``'s function or class ``name``, defined in the kernel."""
    from course_lib.checks.learner import Learner

    return Learner.source(name, setup=KERNEL_SOURCE)


def stub_of(reply_data: dict[str, Any], own: str) -> str | None:
    """The exercise id a ``NotImplementedError`` stub names (``Exercise 08.2: ...``), if any; the
    stub of ``own``, the exercise checked, ends the check as not done yet."""
    from course_lib.checks.learner import STUB_ID

    raised = reply_data.get("raised") or {}
    if "NotImplementedError" not in raised.get("types", ()):
        return None
    found = STUB_ID.match(str(raised.get("message", "")).strip())
    if found and found["id"] == own:
        raise NotDoneYet(Failure(detail=stub_text(raised["message"])))
    return found["id"] if found else ""


def raised_reply(data: dict[str, Any]) -> Reply:
    """A ``Reply`` for an exception the kernel-side helper reported as data, its message said in
    the learner's language when it is the course's (``said_message``)."""
    raised = data["raised"]
    if isinstance(raised, dict) and "message" in raised:
        raised = {**raised, "message": said_message(raised["message"])}
    return Reply({"raised": raised})


def said_message(message: Any) -> Any:
    """A message of an exception raised in the kernel, in the learner's language when the course
    wrote it there in English: ``kernel_side``'s timeout, the driver's stand-in for a message it
    could not read (``said_value``). Known by its whole form; any other message (the learner's
    own, the SDK's) as it is."""
    seconds = kernel_side.JOIN_SECONDS
    if message == translate(kernel_side.MESSAGES, "timeout", ENGLISH, seconds=seconds):
        return translate(kernel_side.MESSAGES, "timeout", seconds=seconds)
    return said_value(message)
