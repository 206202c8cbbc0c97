"""What the checks of lessons 02 and 03 share: inputs built from source text, replies read as JSON,
the table of cases that must raise TypeError, and the earlier exercise that must pass first.

A check never holds the learner's objects, and its inputs are source text: a function such as
``def get_weather(city: str, unit: str = 'c')`` is sent as a ``learner.source(...)`` spec and
built beside the learner's code. The oracle needs the same function, so :func:`local` builds it
here too, in the check's own process, from the very same text (with the driver's namespace).
"""

from __future__ import annotations
import __future__

import inspect
import pprint
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

from course_lib.checks import messages
from course_lib.checks.cases import Case, Judge, run_cases
from course_lib.checks.catalog import Catalog
from course_lib.checks.compare import (
    Hint,
    HintText,
    Plain,
    fail,
    first_difference,
    pick_hint,
    where_they_differ,
)
from course_lib.checks.failures import CheckFailed, NotDoneYet
from course_lib.checks.learner import Learner, Reply
from course_lib.driver import Driver

EMPTY = inspect.Parameter.empty
FUTURE = "from __future__ import annotations\n"

HINTS = Catalog() | {
    "not_json": (
        "A schema holds only dicts with string keys, lists, strings, numbers, booleans and None: "
        "the value named under Where is none of these. Convert it or leave it out."
    ),
    "empty_default": (
        'inspect.Parameter.empty is how inspect says "no default": a parameter whose default is '
        'Parameter.empty has none, so it gets no "default" key and belongs in required.'
    ),
    "type_error_names": (
        "Say in the message what could not be handled: it does not mention {missing}."
    ),
    "wrong_exception": (
        "Raise TypeError (not {kind}) with a message that names {names}: test for this case "
        "before it breaks something else."
    ),
    "earlier_first": (
        "{name} calls your {earlier_name}, which does not pass its own check (exercise "
        "{earlier}) yet: fix {earlier} first, then run this check again. {hint}"
    ),
}

# What a case label and an expected value say (case labels are made in English at import: the
# rules' ``case``; the same label made at a failure speaks the learner's language).
TEXTS = Catalog() | {
    "future_label": "{signature}, in a module that starts with `{future}`",
    "type_error_naming": "a TypeError naming {names}",
}

hint = HINTS.hint


# --- inputs as source text -----------------------------------------------------------------


@dataclass(frozen=True)
class Source:
    """A case's input as source text: ``expr`` evaluated after ``setup`` has run."""

    expr: str
    setup: str = ""

    def spec(self, learner: Learner) -> dict[str, Any]:
        return learner.source(self.expr, setup=self.setup)

    def value(self) -> Any:
        return local(self.setup, self.expr)


def local(setup: str, expr: str) -> Any:
    """The object ``expr`` names after ``setup``, built in the check's process exactly as the
    driver builds it beside the learner's code: the oracle's copy of the case's input. Cases
    with the same setup share its namespace (and so its classes), as one module would."""
    return _evaluated(setup, expr)


@lru_cache(maxsize=4096)
def _evaluated(setup: str, expr: str) -> Any:
    namespace = _namespace(setup)
    return eval(compile(expr, "<check case>", "eval", dont_inherit=True), namespace)  # noqa: S307


@lru_cache(maxsize=1024)
def _namespace(setup: str) -> dict[str, Any]:
    namespace = Driver.case_namespace()
    return run_source(setup, "<check case>", namespace=namespace) if setup else namespace


def run_source(
    source: str, filename: str, name: str = "", *, namespace: dict | None = None, postponed=False
) -> dict[str, Any]:
    """The namespace (``namespace``, else a fresh one named ``name``) ``source`` ran in: a check's
    own copy of what the learner is given. ``postponed``: ``from __future__ import annotations``."""
    namespace = namespace if namespace is not None else {"__name__": name} if name else {}
    flags = __future__.annotations.compiler_flag if postponed else 0
    exec(compile(source, filename, "exec", flags=flags, dont_inherit=True), namespace)  # noqa: S102
    return namespace


def parameter_text(name: str, annotation: str | None, default: str | None = None) -> str:
    """``name: annotation = default`` as written in a signature (``None`` leaves a part out)."""
    text = name if annotation is None else f"{name}: {annotation}"
    if default is not None:
        text += f" = {default}" if annotation is not None else f"={default}"
    return text


@dataclass(frozen=True)
class FunctionCase:
    """A function written as source: its parameters as written, an optional return annotation
    and docstring, and whether its module starts with ``from __future__ import annotations``."""

    name: str
    parts: tuple[str, ...]
    returns: str | None = None
    doc: str | None = None
    future: bool = False
    before: str = ""  # module source above the function (classes, imports)
    context: str = ""  # what a case label adds about that module, e.g. "where ..."

    @property
    def signature(self) -> str:
        arrow = f" -> {self.returns}" if self.returns else ""
        return f"def {self.name}({', '.join(self.parts)}){arrow}"

    @property
    def setup(self) -> str:
        body = f"    {self.doc!r}\n" if self.doc is not None else ""
        head = f"{FUTURE if self.future else ''}{self.before}"
        return f"{head}{self.signature}:\n{body}    return None\n"

    @property
    def label(self) -> str:
        """How a case names it: the signature, and the module's future import if it has one."""
        label = self.signature
        if self.future:
            label = TEXTS.text("future_label", signature=label, future=FUTURE.strip())
        return f"{label}, {self.context}" if self.context else label

    def source(self) -> Source:
        return Source(self.name, self.setup)

    def spec(self, learner: Learner) -> dict[str, Any]:
        return self.source().spec(learner)

    def value(self) -> Callable[..., Any]:
        return self.source().value()


def string_annotations(func: Callable[..., Any]) -> list[str]:
    """The annotations of ``func`` that Python stored as text (quoted, or under the future
    import), as they appear in a message: ``'str'`` and ``str``."""
    texts = [
        p.annotation
        for p in inspect.signature(func).parameters.values()
        if isinstance(p.annotation, str)
    ]
    return [*{f"'{text}'" for text in texts}, *texts]


def py(value: Any, limit: int = 300) -> str:
    """An input as Python spells it (``None``, ``True``, ``'text'``), for a case label."""
    text = repr(value)
    if len(text) <= limit:
        return text
    return messages.say("more_characters", text=text[:limit], count=len(text) - limit)


def python_text(value: Any, kind: str = "") -> Plain:
    """A JSON value shown in Python spelling; ``kind="tuple"`` shows a top-level array as the
    tuple it was (the reply's ``.type``), so a tuple never looks like a list."""
    if kind == "tuple" and isinstance(value, list):
        value = tuple(value)
    return Plain(pprint.pformat(value, width=88, sort_dicts=False))


# --- replies -------------------------------------------------------------------------------


def returned_json(case: str, reply: Reply, expected: Any, hints: Sequence[Any] = ()) -> Any:
    """The reply's value as JSON. A value JSON cannot hold fails the case, with the path and the
    name of the first such value (``at $.properties.city.default: a type (<class ...>)``) and
    the first ``(predicate on that text, hint)`` of ``hints`` that holds."""
    __tracebackhide__ = True
    problem = reply.data.get("unjson")
    if problem is None:
        return reply.value
    chosen = next((text for test, text in hints if test(problem)), None)
    if chosen is None:
        chosen = hint("empty_default") if "inspect._empty" in problem else hint("not_json")
    fail(case, expected, Plain(reply.data.get("repr", "")), chosen, where=problem)
    return None


def run_json_cases(
    learner: Learner, target: str, cases: Sequence[Case], judge: Judge | None = None
) -> int:
    """``cases.run_cases`` for a function whose value may not be JSON at all (a type, a set):
    such a value fails its case with where it is (``returned_json``) before any comparison."""
    __tracebackhide__ = True
    return run_cases(learner, target, cases, returned_json, judge)


def narrow(expected: dict, got: Any) -> tuple[str, Any, Any] | None:
    """(where, expected part, got part) when one key, or one property, holds every difference:
    showing only that part keeps Expected and Got short enough to read whole."""
    if not isinstance(got, dict) or list(got) != list(expected):
        return None
    differing = [k for k in expected if first_difference(expected[k], got[k]) is not None]
    if len(differing) != 1:
        return None
    key = differing[0]
    if key == "properties" and isinstance(got[key], dict):
        props, got_props = expected[key], got[key]
        if list(got_props) == list(props):
            names = [n for n in props if first_difference(props[n], got_props[n]) is not None]
            if len(names) == 1:
                return f"properties.{names[0]}", props[names[0]], got_props[names[0]]
    return key, expected[key], got[key]


def expect_schema(
    case: str, expected: dict, got: Any, hints: list[Hint], default: HintText
) -> None:
    """Fail unless ``got`` is ``expected`` with properties in order. When one part holds every
    difference, Expected and Got show only that part, and Where names its path."""
    __tracebackhide__ = True
    difference = first_difference(expected, got)
    if difference is None and list(got["properties"]) == list(expected["properties"]):
        return
    chosen = pick_hint(got, hints, default)
    part = narrow(expected, got) if difference is not None else None
    if part is not None:
        where, part_expected, part_got = part
        detail = first_difference(part_expected, part_got, f"$.{where}")
        fail(case, part_expected, part_got, chosen, where=detail)
    fail(case, expected, got, chosen, where=where_they_differ(expected, got))


def names_text(names: Iterable[str]) -> str:
    return messages.names_list(names)


def expect_type_error(
    learner: Learner,
    fn: Any,
    *args: Any,
    case: str,
    names: Sequence[str],
    no_raise: HintText,
    other_exception: HintText | None = None,
    **kwargs: Any,
) -> None:
    """``fn(*args, **kwargs)`` must raise TypeError whose message contains every one of
    ``names``; ``no_raise`` is the hint when it returns instead, ``other_exception`` when it
    raises something else (by default a hint saying to raise TypeError)."""
    __tracebackhide__ = True
    wanted = Plain(TEXTS.text("type_error_naming", names=names_text(names)))
    reply = learner.attempt(fn, *args, **kwargs)
    if reply.raised_a("TypeError"):
        absent = [name for name in names if name not in reply.message]
        if absent:
            fail(
                case, wanted, Plain(reply.raised_text), hint("type_error_names", missing=absent[0])
            )
        return
    if reply.raised:
        other = other_exception or hint("wrong_exception", kind=reply.type, names=names_text(names))
        fail(case, wanted, Plain(reply.raised_text), other)
    got = Plain(reply.data.get("repr", "")) if "unjson" in reply.data else reply.value
    fail(case, wanted, got, no_raise)


@dataclass(frozen=True)
class Refusal:
    """A case the function must refuse: ``args`` must raise TypeError naming every one of
    ``names``; ``no_raise`` is the hint when it returns instead (``expect_type_error``)."""

    label: str
    args: tuple[Any, ...]
    names: Sequence[str]
    no_raise: HintText
    other_exception: HintText | None = None


def expect_refusals(learner: Learner, target: str, refusals: Sequence[Refusal]) -> int:
    """Every refusal in order (``expect_type_error``); the number of them."""
    __tracebackhide__ = True
    for refusal in refusals:
        expect_type_error(
            learner,
            target,
            *refusal.args,
            case=refusal.label,
            names=refusal.names,
            no_raise=refusal.no_raise,
            other_exception=refusal.other_exception,
        )
    return len(refusals)


# --- an earlier exercise that must pass first ----------------------------------------------


class AliasChannel:
    """A channel that sends ``{"target": name}`` as another spec (a handle): an earlier
    exercise's check runs against the function a later target calls, found in its globals."""

    def __init__(self, channel: Any, aliases: dict[str, dict[str, Any]]) -> None:
        self.channel, self.aliases = channel, aliases

    def add_session(self, session: Any) -> None:
        self.channel.add_session(session)

    def send(self, request: dict[str, Any]) -> dict[str, Any]:
        return self.channel.send(self._rewrite(request))

    def _rewrite(self, value: Any) -> Any:
        if isinstance(value, dict):
            if set(value) == {"target"} and value["target"] in self.aliases:
                return self.aliases[value["target"]]
            return {key: self._rewrite(item) for key, item in value.items()}
        if isinstance(value, list):
            return [self._rewrite(item) for item in value]
        return value


FIND_GLOBAL = "found = getattr(fn, '__globals__', {}).get(name)"


def failing_earlier(
    learner: Learner, target: str, earlier: Sequence[tuple[str, str]]
) -> tuple[str, str] | None:
    """(name, exercise id) of the first earlier exercise's function that ``target`` calls and
    whose own check fails, else ``None``."""
    from course_lib.checks.core import EXERCISES, run_check

    used = set(learner.describe(target).get("names_used", []))
    for name, exercise_id in earlier:
        if name not in used or exercise_id not in EXERCISES:
            continue
        bind = {"fn": learner.target(target), "name": name}
        found = learner.run(FIND_GLOBAL, result="found", bind=bind, keep=True)
        if found.type != "function" or found.handle is None:
            if found.handle:
                learner.release(found.handle)
            continue
        try:
            channel = AliasChannel(learner.channel, {name: learner.handle(found.handle)})
            outcome = run_check(EXERCISES[exercise_id], channel)
        finally:
            learner.release(found.handle)
        if isinstance(outcome, CheckFailed) and not isinstance(outcome, NotDoneYet):
            return name, exercise_id
    return None


def after_earlier(
    learner: Learner, target: str, earlier: Sequence[tuple[str, str]], run: Callable[[], str]
) -> str:
    """``run()``; when it fails and ``target`` calls the function of an earlier exercise whose
    check fails too, the hint says to fix that one first."""
    __tracebackhide__ = True
    try:
        return run()
    except NotDoneYet:
        raise
    except CheckFailed as failed:
        found = failing_earlier(learner, target, earlier)
        if found is None:
            raise
        name, exercise_id = found
        note = hint(
            "earlier_first",
            name=target,
            earlier_name=name,
            earlier=exercise_id,
            hint=failed.failure.hint or "",
        )
        raise CheckFailed(replace(failed.failure, hint=str(note), hint_key=note.key)) from None
