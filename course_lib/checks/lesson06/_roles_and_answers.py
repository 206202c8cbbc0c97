"""What the checks of lesson 06 share: the notebook's name, the roles and permissions, and showing
an answer.

Some answers of this lesson are not JSON at all (a calculator that ran ``__import__('os')`` and
returned a module, or ``inf``): the driver sends back their type (and a repr), never the object.
``shown_answer`` turns that into what the Got line shows, with no path or address in it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from course_lib.checks.compare import HintText, Plain, fail
from course_lib.checks.learner import Reply, raise_learner_error
from course_lib.i18n import translate

NOTEBOOK = "06_hardening"
# The roles and permissions of the lesson (cell w06-roles); the tests prove the notebook defines
# the same ones.
ROLES = {"guest": {"read"}, "member": {"read", "write"}, "admin": {"read", "write", "admin"}}
PERMISSIONS = frozenset({"read", "write", "admin"})

TEXTS = {
    "object": "a {type} object (not JSON)",
    "raised": "{raised}",
}
# Types whose repr is the same on every machine and says what the value is (inf, a complex).
REPR_TYPES = ("float", "int", "complex", "bool", "str")


def shown_answer(reply: Reply) -> Any:
    """What came back, as the Got line shows it: the JSON value, or a plain description."""
    if reply.raised:
        return Plain(translate(TEXTS, "raised", raised=reply.raised_text))
    if "unjson" not in reply.data:
        return reply.value
    if reply.type in REPR_TYPES:
        return Plain(reply.data.get("repr", "")[:200])
    return Plain(translate(TEXTS, "object", type=reply.type))


def expect_value_error(
    label: str,
    reply: Reply,
    expected: Plain,
    no_raise: HintText,
    wrong_type: Callable[[str], HintText],
) -> None:
    """A run whose reply is ``[result, input]`` must have raised ValueError: ``no_raise`` when it
    returned, ``wrong_type(the exception's type)`` when it raised something else."""
    __tracebackhide__ = True
    if not reply.raised:
        got = shown_answer(reply) if "unjson" in reply.data else reply.value[0]
        fail(label, expected, got, no_raise)
    if not reply.raised_a("ValueError"):
        chosen = wrong_type(reply.type)
        raise_learner_error(label, reply, [(lambda r: True, chosen)])
