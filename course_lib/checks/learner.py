"""The learner, as a check sees it: targets it can call through a channel, never touch.

A check receives a :class:`Learner`. It builds inputs as *value specs* (plain data), asks the
learner's code to run on them, and gets :class:`Reply` objects back: what came back as JSON, or
the type and message of what was raised. The check never holds one of the learner's objects, so
the learner's ``__eq__``, ``__repr__`` or patched modules cannot decide anything::

    def run(learner: Learner) -> str:
        got = learner.call("json_type", learner.source("list[int]"), case="json_type(list[int])")
        ...

Value specs (the arguments of ``call`` and the bindings of ``run``):

- plain JSON values, passed as they are (``"北京"``, ``{"city": "上海"}``);
- ``learner.source(expr, setup="")``: Python source evaluated beside the learner's code, in a fresh
  namespace with the typing names of the prelude (``setup`` may define classes or functions, and
  may start with ``from __future__ import annotations``);
- ``learner.target(name)``: one of the exercise's targets; ``learner.handle(h)``: an object kept
  from an earlier reply (``keep=True``); ``learner.attr(spec, name)``: an attribute of either;
- ``learner.client(session)``: a real SDK client wired to a model session on the check's side.

The channel is in process in the learner's notebook and the kernel when grading (see
``course_lib.driver``); the check is the same code either way.

One module because ``Learner`` is the whole of a check's side of the channel: the value specs
it builds, the ``Reply`` it returns and the failures it raises for what came back are one
vocabulary that every check imports from here; split, one call would need three modules.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from course_lib.case_budget import CPU_SECONDS, MAX_REQUESTS
from course_lib.checks import messages
from course_lib.checks.compare import HintText, hint_key, spoken
from course_lib.checks.failures import CheckFailed, Failure, NotDoneYet
from course_lib.driver import said, said_value


class Channel(Protocol):
    """Carries one driver request and brings its reply back (both plain JSON)."""

    def send(self, request: dict[str, Any]) -> dict[str, Any]: ...

    def add_session(self, session: ModelSession) -> None: ...


@dataclass(frozen=True)
class Reply:
    """What the learner's code did with one request, as data."""

    data: dict[str, Any]

    @property
    def raised(self) -> bool:
        return "raised" in self.data

    @property
    def returned(self) -> bool:
        return "returned" in self.data

    @property
    def value(self) -> Any:
        """The returned value as plain JSON (``None`` when nothing JSON came back)."""
        return self.data.get("returned")

    @property
    def type(self) -> str:
        """The Python type of the returned value (``tuple``, ``dict``, ...) or of the exception."""
        if self.raised:
            return self.data["raised"]["type"]
        return self.data.get("type", "")

    @property
    def exception_types(self) -> tuple[str, ...]:
        """The raised exception's class and its bases, e.g. ``("KeyError", "LookupError", ...)``."""
        return tuple(self.data["raised"]["types"]) if self.raised else ()

    @property
    def cause_types(self) -> tuple[str, ...]:
        """The class and bases of the exception it was raised ``from`` (empty without ``from``)."""
        return tuple(self.data["raised"].get("cause_types", ())) if self.raised else ()

    @property
    def message(self) -> str:
        return self.data["raised"]["message"] if self.raised else ""

    @property
    def endless(self) -> dict[str, Any] | None:
        """The budget the call passed (``{"cpu": s}`` or ``{"requests": n}``), if it did."""
        return self.data.get("endless")

    @property
    def handle(self) -> str | None:
        return self.data.get("handle")

    def raised_a(self, name: str) -> bool:
        """Whether the exception is a ``name`` (its class or one of its bases)."""
        return name in self.exception_types

    @property
    def raised_text(self) -> str:
        """``TypeError: message`` for a raised exception."""
        return f"{self.type}: {self.message}" if self.message else self.type


@dataclass
class ModelSession:
    """A local model on the check's side: the learner's client talks to it, and every request
    and reply is recorded here (``exchanges``), whatever the learner's code reports."""

    policy: Any
    model_name: str
    seed: int = 0
    id: str = ""
    exchanges: list[Exchange] = field(default_factory=list)

    def __post_init__(self) -> None:
        from course_lib.local_model.endpoint import LocalEndpoint

        self.endpoint = LocalEndpoint(self.policy, seed=self.seed, model_name=self.model_name)

    def answer(self, message: dict[str, Any]) -> dict[str, Any]:
        """One HTTP request from the learner's client, answered and recorded."""
        body = str(message.get("body", ""))
        headers = message.get("headers")
        reply = self.endpoint.handle(
            str(message.get("method", "")),
            str(message.get("path", "")),
            body.encode("utf-8"),
            {str(k): str(v) for k, v in headers.items()} if isinstance(headers, dict) else {},
        )
        content = reply.body if isinstance(reply.body, bytes) else b"".join(reply.body)
        text = content.decode("utf-8")
        try:
            request = json.loads(body) if body else {}
        except ValueError:
            request = {}
        try:
            answer = json.loads(text) if reply.content_type.startswith("application/json") else {}
        except ValueError:
            answer = {}
        self.exchanges.append(Exchange(request, reply.status, answer))
        return {"status": reply.status, "content_type": reply.content_type, "body": text}


@dataclass(frozen=True)
class Exchange:
    """One request the learner's code sent and the model's reply (``{}`` for a stream)."""

    request: dict
    status: int
    reply: dict


# The bound on every call into learner code (course_lib.case_budget): CPU seconds of the calling
# thread in learner code, and model requests.
BUDGET = {"cpu": CPU_SECONDS, "requests": MAX_REQUESTS}
ExceptionHint = tuple[Callable[[Reply], bool], str]


def raised_with(kind: str, *parts: str) -> Callable[[Reply], bool]:
    """An ``ExceptionHint``'s predicate: the call raised a ``kind`` whose message holds every one
    of ``parts``."""
    return lambda reply: reply.raised_a(kind) and all(part in reply.message for part in parts)


# The start of every stub's message (``course_lib.authoring`` writes "Exercise NN.K: <hint>").
# In every language (course_lib.authoring.blocks.MESSAGES; tests/i18n checks each one matches).
STUB_ID = re.compile(r"(?:Exercise |练习 )(?P<id>\d+\.\d+)[:：]")


class Learner:
    """The exercise's targets, reachable only through ``channel``."""

    def __init__(self, channel: Channel, exercise_id: str, targets: Sequence[str]) -> None:
        self.channel = channel
        self.exercise_id = exercise_id
        self.targets = tuple(targets)
        self._sessions = 0

    # --- value specs -------------------------------------------------------------------------

    @staticmethod
    def source(expr: str, setup: str = "") -> dict[str, Any]:
        return {"source": expr, "setup": setup} if setup else {"source": expr}

    @staticmethod
    def target(name: str) -> dict[str, Any]:
        return {"target": name}

    @staticmethod
    def handle(handle: str) -> dict[str, Any]:
        return {"handle": handle}

    @staticmethod
    def attr(spec: dict[str, Any] | str, name: str) -> dict[str, Any]:
        of = {"target": spec} if isinstance(spec, str) else spec
        return {"attr": name, "of": of}

    def client(self, session: ModelSession, api: str = "openai") -> dict[str, Any]:
        return {"client": session.id, "api": api}

    def model(self, policy: Any, *, model_name: str, seed: int = 0) -> ModelSession:
        """A fresh model session on the check's side, for ``client(session)``."""
        self._sessions += 1
        session = ModelSession(policy, model_name, seed, id=f"m{self._sessions}")
        self.channel.add_session(session)
        return session

    # --- requests ----------------------------------------------------------------------------

    def attempt(
        self,
        fn: Any,
        *args: Any,
        keep: bool = False,
        foreign_stubs_fail: bool = False,
        case: str = "",
        endless_hint: HintText | str | None = None,
        endless_returns: bool = False,
        **kwargs: Any,
    ) -> Reply:
        """Call ``fn`` (a target name or a value spec) and return what happened, whatever it was.

        Only a stub (``NotImplementedError``), a missing target and a call that passed its budget
        (``course_lib.case_budget``: too much CPU time or too many model requests, an endless
        loop; the case fails with ``endless_hint`` or the generic one) end the check here. With
        ``foreign_stubs_fail``, the stub of *another* exercise (its message starts with
        ``Exercise NN.K:`` for another id) comes back as a raised reply instead: code that calls
        an unfinished earlier exercise is not right yet, and a hint can say which to finish.
        With ``endless_returns``, a call that passed its budget comes back (``reply.endless``)
        so that the check can first name the rule the requests it recorded break (07.3's loop
        that starts over gets its "one round trip" hint), then :func:`raise_endless`.
        """
        request = {
            "op": "call",
            "fn": {"target": fn} if isinstance(fn, str) else fn,
            "args": [_spec(arg) for arg in args],
            "kwargs": {key: _spec(arg) for key, arg in kwargs.items()},
            "keep": keep,
            "budget": dict(BUDGET),
        }
        label = case or (messages.say("call_case", name=fn) if isinstance(fn, str) else "")
        return self._checked(
            self.channel.send(request),
            foreign_stubs_fail=foreign_stubs_fail,
            case=label,
            endless_hint=endless_hint,
            endless_returns=endless_returns,
        )

    def call(
        self,
        fn: Any,
        *args: Any,
        case: str,
        hints: Iterable[ExceptionHint] = (),
        keep: bool = False,
        foreign_stubs_fail: bool = False,
        endless_hint: HintText | str | None = None,
        **kwargs: Any,
    ) -> Reply:
        """Like ``attempt``, but an exception the learner's code raised fails the check: with the
        first of ``hints`` whose predicate holds, or the generic "run it yourself" hint."""
        __tracebackhide__ = True
        reply = self.attempt(
            fn,
            *args,
            keep=keep,
            foreign_stubs_fail=foreign_stubs_fail,
            case=case,
            endless_hint=endless_hint,
            **kwargs,
        )
        if reply.raised:
            raise_learner_error(case, reply, hints)
        return reply

    def run(
        self,
        code: str,
        *,
        result: str,
        bind: dict[str, Any] | None = None,
        keep: bool = False,
        case: str = "",
        endless_hint: HintText | str | None = None,
    ) -> Reply:
        """Run ``code`` beside the learner's code (``bind`` names value specs, e.g. targets),
        then evaluate ``result`` there; a stub raising ends the check as "not done yet", a
        snippet passing its budget fails ``case`` (as ``attempt``)."""
        request = {
            "op": "run",
            "code": code,
            "result": result,
            "bind": {key: _spec(value) for key, value in (bind or {}).items()},
            "keep": keep,
            "budget": dict(BUDGET),
        }
        reply = self.channel.send(request)
        return self._checked(reply, case=case, endless_hint=endless_hint)

    def describe(self, spec: Any) -> dict[str, Any]:
        """What kind of object a target or handle is, without calling it."""
        reply = self.channel.send({"op": "describe", "value": _spec_of_target(spec)})
        _raise_driver_error(reply)
        if "missing" in reply:
            raise_missing(self.exercise_id, reply["missing"])
        return reply

    def release(self, *handles: str) -> None:
        self.channel.send({"op": "release", "handles": list(handles)})

    def _checked(
        self,
        reply: dict[str, Any],
        *,
        foreign_stubs_fail: bool = False,
        case: str = "",
        endless_hint: HintText | str | None = None,
        endless_returns: bool = False,
    ) -> Reply:
        __tracebackhide__ = True
        _raise_driver_error(reply)
        if "missing" in reply:
            raise_missing(self.exercise_id, reply["missing"])
        if "endless" in reply and not endless_returns:
            raise_endless(case, reply["endless"], endless_hint)
        if "not_callable" in reply:
            raise CheckFailed(
                Failure(
                    hint=messages.say(
                        "not_callable",
                        kind=reply["not_callable"],
                        value=said_value(reply.get("repr", "")),
                    )
                )
            )
        result = Reply(spoken_reply(reply))
        if result.raised_a("NotImplementedError"):
            if not (foreign_stubs_fail and self._is_foreign_stub(result.message)):
                raise NotDoneYet(Failure(detail=messages.stub_text(result.message)))
        return result

    def _is_foreign_stub(self, message: str) -> bool:
        """Whether ``message`` is the stub text of an exercise other than this one."""
        found = STUB_ID.match(message.strip())
        return found is not None and found["id"] != self.exercise_id


def _spec(value: Any) -> Any:
    """Plain values travel as ``{"json": value}``; specs made by ``Learner`` pass unchanged."""
    if isinstance(value, dict) and len(value) >= 1 and next(iter(value)) in _SPEC_KEYS:
        return value
    json.dumps(value, allow_nan=False)  # a check author's mistake shows here, not in the kernel
    return {"json": value}


_SPEC_KEYS = ("json", "source", "target", "handle", "client", "attr", "list", "tuple", "dict")


def _spec_of_target(spec: Any) -> Any:
    return {"target": spec} if isinstance(spec, str) else spec


def spoken_reply(reply: dict[str, Any]) -> dict[str, Any]:
    """``reply`` with what the driver wrote in English said in the language in force: where a
    value stops being JSON (``unjson``, from ``unjson_at``) and a value it could not read (the
    ``repr``, the message of what was raised)."""
    spoken = dict(reply)
    where = said(reply.get("unjson_at"))
    if where:
        spoken["unjson"] = where
    if "repr" in reply:
        spoken["repr"] = said_value(reply["repr"])
    raised = reply.get("raised")
    if isinstance(raised, dict) and "message" in raised:
        spoken["raised"] = {**raised, "message": said_value(raised["message"])}
    return spoken


def _raise_driver_error(reply: dict[str, Any]) -> None:
    if not isinstance(reply, dict):
        raise CheckFailed(Failure(hint=messages.say("unreadable_reply")))
    if "error" in reply:
        error = said(reply.get("error_at")) or str(reply["error"])  # the driver's is English
        raise CheckFailed(Failure(hint=messages.say("driver_error", error=error)))


def raise_missing(exercise_id: str, name: str) -> None:
    raise NotDoneYet(Failure(detail=messages.say("target_missing", name=name, id=exercise_id)))


def raise_endless(case: str, tripped: Any, hint: HintText | str | None = None) -> None:
    """Fail ``case``: the learner's code passed its budget (``tripped`` says which: ``{"cpu":
    seconds}`` or ``{"requests": count}``), most likely an endless loop; with the exercise's own
    ``hint`` for it, or the generic one for the kind of budget."""
    __tracebackhide__ = True
    tripped = tripped if isinstance(tripped, dict) else {}
    count = tripped.get("requests")
    if isinstance(count, int):
        detail = messages.say("endless_requests", count=count)
        generic = "endless_model_loop"
    else:
        seconds = tripped.get("cpu")
        shown = seconds if isinstance(seconds, int | float) else CPU_SECONDS
        detail = messages.say("endless_cpu", seconds=shown)
        generic = "endless_loop"
    chosen = hint or HintText.of(messages.MESSAGES, generic)
    raise CheckFailed(
        Failure(case=case or None, detail=detail, hint=spoken(chosen), hint_key=hint_key(chosen))
    )


def raise_learner_error(case: str, reply: Reply, hints: Iterable[ExceptionHint] = ()) -> None:
    """Fail ``case`` because the learner's code raised (``reply``), with the fitting hint."""
    __tracebackhide__ = True
    hint = None
    for predicate, text in hints:
        try:
            if predicate(reply):
                hint = text
                break
        except Exception:  # noqa: BLE001 (a predicate written for another shape of answer)
            continue
    chosen = hint or HintText.of(messages.MESSAGES, "run_it_yourself")
    raise CheckFailed(
        Failure(case=case, raised=reply.raised_text, hint=spoken(chosen), hint_key=hint_key(chosen))
    )
