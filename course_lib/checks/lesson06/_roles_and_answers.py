"""What the checks of lesson 06 share: the notebook's name, the roles and permissions, showing
an answer, and running a transformation (06.2, 06.5) on a copy of its input.

Some answers of this lesson are not JSON at all (a calculator that ran ``__import__('os')`` and
returned a module, or ``inf``): the driver sends back their type (and a repr), never the object.
``shown_answer`` turns that into what the Got line shows, with no path or address in it.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from course_lib.checks.compare import HintText, Plain, fail, first_difference
from course_lib.checks.learner import Learner, Reply, raise_learner_error
from course_lib.i18n import translate

NOTEBOOK = "06_hardening"
# The roles and permissions of the lesson (cell w06-roles); the tests prove the notebook defines
# the same ones.
ROLES = {"guest": {"read"}, "member": {"read", "write"}, "admin": {"read", "write", "admin"}}
PERMISSIONS = frozenset({"read", "write", "admin"})

TEXTS = {"object": "a {type} object (not JSON)", "raised": "{raised}"}
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


def run_on_copy(learner: Learner, function: str, argument: str, value: Any) -> Reply:
    """``function(argument)`` beside the learner's code, on a copy of ``value``: the reply is
    ``[result, the input as it is afterwards]``, so a changed input shows (06.2 and 06.5)."""
    return learner.run(
        f"result = {function}({argument})",
        result=f"[result, {argument}]",
        bind={function: learner.target(function), argument: copy.deepcopy(value)},
    )


def returned_dict(
    label: str,
    reply: Reply,
    given: Any,
    hint: Callable[..., HintText],
    wanted: Plain,
    unchanged: Plain,
    refused: HintText,
) -> dict:
    """The new dict a ``run_on_copy`` returned: plain JSON, the input left as it was, a dict;
    else ``label`` fails with the hint ``not_json``, ``mutated`` or ``not_dict``, or
    ``refused`` for a ValueError raised (another exception is the learner's error)."""
    __tracebackhide__ = True
    if reply.raised:
        if reply.raised_a("ValueError"):
            fail(label, wanted, shown_answer(reply), refused)
        raise_learner_error(label, reply)
    if "unjson" in reply.data:
        fail(label, wanted, shown_answer(reply), hint("not_json"))
    out, after = reply.value
    if first_difference(given, after) is not None:
        fail(label, unchanged, after, hint("mutated"))
    if not isinstance(out, dict):
        fail(label, wanted, out, hint("not_dict"))
    return out


def expect_open_map_refused(
    label: str, reply: Reply, expected: Plain, hint: Callable[..., HintText]
) -> None:
    """A ``run_on_copy`` on an open map must have raised ValueError: the hint ``open_map`` when
    it returned, ``open_map_type`` (naming the exception's type) when it raised another."""
    __tracebackhide__ = True
    if not reply.raised:
        got = shown_answer(reply) if "unjson" in reply.data else reply.value[0]
        fail(label, expected, got, hint("open_map"))
    if not reply.raised_a("ValueError"):
        chosen = hint("open_map_type", type=reply.type)
        raise_learner_error(label, reply, [(lambda r: True, chosen)])
