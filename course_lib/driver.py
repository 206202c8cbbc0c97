"""The driver: the thin half of every check that runs beside the learner's code.

A check is written once (``course_lib/checks/<lesson>/``) and never trusts the learner's objects:
it sends this driver requests as plain JSON and gets plain JSON back. A request says "build this
input from this source text, call target T (or method M of the object kept as handle H) with it,
and send back what it returned, or the type and message of what it raised". Nothing the check
knows (expected values, the comparison, the hint, the verdict) is ever sent here.

Two channels carry the same requests:

- in the learner's own notebook, ``check()`` calls :meth:`Driver.handle` in process;
- when grading, the check runs in the grader's process and the request travels to the kernel,
  where :func:`install` put a driver into the notebook's namespace. A model the learner's code
  talks to answers from the grader's side: each HTTP request of the client the driver builds
  goes back over the kernel's stdin channel (``input_request``), so the grader sees exactly what
  the learner's code sent.

A notebook can replace this driver and forge its answers, but a forged answer must still be the
right answer, which takes solving the exercise.

Two modules hold its parts and are exported from here: ``driver_values`` (how a learner's value
is reported) and ``driver_clients`` (the SDK clients whose requests go over the model link). Their
names start with ``course_lib.driver``, so a cell naming them is seen as touching the driver
(``grading.routes.touches_driver``).
"""

from __future__ import annotations

import builtins
import contextlib
import itertools
import json
import threading
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from course_lib.case_budget import Budget, EndlessLoop, bounded, model_request
from course_lib.driver_clients import (  # noqa: F401 (exported: checks import them from here)
    LOCAL_ANTHROPIC_BASE_URL,
    LOCAL_API_KEY,
    LOCAL_BASE_URL,
    DriverError,
    ModelLink,
    build_client,
)
from course_lib.driver_kernel import no_input, shell_route, stdin_request
from course_lib.driver_values import (  # noqa: F401 (exported: checks import them from here)
    ADDRESS,
    CASE_MODULE,
    ENGLISH,
    MAX_TEXT,
    error_reply,
    exception_data,
    json_problem_at,
    safe_repr,
    said,
    said_value,
    scrub,
    type_name,
)
from course_lib.origins import origins

MAX_REPLY_CHARS = 2_000_000  # a reply larger than this is reported, not sent
# The kernel channel's prompts (``input_request``): the model's requests, the driver's answers,
# and the grader's word that a check is over.
MODEL_PROMPT = "course-model:"
DRIVER_PROMPT = "course-driver:"
STOP = "course-driver-stop"

# What a case's source text may use without importing it.
PRELUDE_SOURCE = """\
import dataclasses, datetime, decimal, enum, json, typing
from dataclasses import dataclass, field
from datetime import date, datetime as DateTime
from decimal import Decimal
from enum import Enum, IntEnum
from typing import (Annotated, Any, Dict, List, Literal, NamedTuple, Optional, Set, Tuple,
                    TypedDict, Union)
"""

# Taken when the kernel starts, before any notebook cell: a notebook that rebinds ``json.loads``
# for its own reasons must not break every check (a notebook that means to forge answers can,
# but a forged answer still has to be the right one).
_loads, _dumps = json.loads, json.dumps


def driver_failed(name: str, message: str) -> dict[str, str]:
    """The answer a request gets when the driver itself failed (raised ``name``)."""
    return error_reply("driver_failed", name=name, error=scrub(message)[:300])


class Driver:
    """Answers check requests against ``namespace`` (where the learner's targets live).

    Objects that are not JSON and that a later request needs (a registry, a loop's result) are
    kept under a handle; a request refers to them as ``{"handle": "h3"}``.
    """

    def __init__(self, namespace: Mapping[str, Any], link: ModelLink | None = None) -> None:
        self.namespace = namespace
        self.link = link
        self.handles: dict[str, Any] = {}
        self._numbers = itertools.count(1)
        self._lock = threading.Lock()

    # --- entry points ------------------------------------------------------------------------

    def handle_json(self, text: str, *, ascii_only: bool = False) -> str:
        """A channel's entry point: a request as JSON text, the reply as JSON text (all ASCII
        with ``ascii_only``, so that a lone surrogate the learner's code returned travels too)."""
        reply = self.handle(_loads(text))
        out = _dumps(reply, ensure_ascii=ascii_only)
        if len(out) > MAX_REPLY_CHARS:
            out = _dumps(error_reply("reply_too_large", limit=MAX_REPLY_CHARS))
        return out

    def handle(self, request: dict[str, Any]) -> dict[str, Any]:
        try:
            op = request.get("op")
            if op == "batch":
                return {"replies": [self.handle(item) for item in request["requests"]]}
            if op == "call":
                return self._call(request)
            if op == "run":
                return self._run(request)
            if op == "describe":
                return self._describe(request)
            if op == "release":
                for handle in request.get("handles", []):
                    self.handles.pop(handle, None)
                return {"released": True}
            raise DriverError("unknown_op", op=repr(op))
        except DriverError as exc:
            return exc.reply
        except (KeyError, TypeError, ValueError) as exc:
            return error_reply("malformed_request", error=f"{type(exc).__name__}: {exc}")

    # --- values ------------------------------------------------------------------------------

    def value(self, spec: Any, scope: dict[str, Any] | None = None) -> Any:
        """The object a value spec describes (see the module docstring of ``checks.learner``)."""
        if not isinstance(spec, dict) or len(spec) == 0:
            raise DriverError("not_a_spec", spec=repr(spec)[:182])  # 200 characters in all
        if "json" in spec:
            return spec["json"]
        if "target" in spec or "handle" in spec:
            return self._named(spec)
        if "source" in spec:
            return self._evaluated(spec, scope)
        if "client" in spec:
            if self.link is None:
                raise DriverError("no_link")
            return build_client(self._locked_link, spec["client"], spec.get("api", "openai"))
        if "attr" in spec:
            return getattr(self.value(spec["of"], scope), spec["attr"])
        for kind, build in (("list", list), ("tuple", tuple)):
            if kind in spec:
                return build(self.value(item, scope) for item in spec[kind])
        if "dict" in spec:
            return {key: self.value(item, scope) for key, item in spec["dict"].items()}
        raise DriverError("not_a_spec", spec=repr(sorted(spec)))

    def _named(self, spec: dict[str, Any]) -> Any:
        """A learner's ``target`` (by its name in the namespace) or an object kept as ``handle``."""
        if "target" in spec:
            name = spec["target"]
            if name not in self.namespace:
                raise _Missing(name)
            return self.namespace[name]
        if spec["handle"] not in self.handles:
            raise DriverError("no_handle", handle=repr(spec["handle"]))
        return self.handles[spec["handle"]]

    def _evaluated(self, spec: dict[str, Any], scope: dict[str, Any] | None) -> Any:
        """The value of a case's ``source`` expression, after its ``setup`` statements."""
        namespace = scope if scope is not None else self.case_namespace()
        if spec.get("setup"):
            exec(compile(spec["setup"], "<check case>", "exec", dont_inherit=True), namespace)
        return eval(compile(spec["source"], "<check case>", "eval", dont_inherit=True), namespace)

    def _locked_link(self, message: dict[str, Any]) -> dict[str, Any]:
        # the learner's code may call the model from several threads; each request counts
        # against the call's budget (course_lib.case_budget), its CPU time not the learner's
        with self._lock, model_request():
            return self.link(message)

    @staticmethod
    def case_namespace() -> dict[str, Any]:
        """A fresh namespace for one case's source text, with the prelude's names in it."""
        namespace: dict[str, Any] = {"__name__": CASE_MODULE, "__builtins__": builtins}
        exec(compile(PRELUDE_SOURCE, "<check prelude>", "exec", dont_inherit=True), namespace)
        return namespace

    # --- ops ---------------------------------------------------------------------------------

    def _call(self, request: dict[str, Any]) -> dict[str, Any]:
        scope = self.case_namespace()
        try:
            fn = self.value(request["fn"], scope)
            args = [self.value(arg, scope) for arg in request.get("args", [])]
            kwargs = {key: self.value(arg, scope) for key, arg in request.get("kwargs", {}).items()}
        except _Missing as missing:
            return {"missing": missing.name}
        except DriverError:
            raise
        except Exception as exc:  # noqa: BLE001 (a case's own source failed: the author's bug)
            raise DriverError("case_failed", error=f"{type(exc).__name__}: {exc}") from exc
        if not callable(fn):
            return {"not_callable": type_name(fn), "repr": safe_repr(fn)[:300]}
        return self._learner_code(request, lambda: fn(*args, **kwargs))

    def _run(self, request: dict[str, Any]) -> dict[str, Any]:
        scope = self.case_namespace()
        try:
            for name, spec in request.get("bind", {}).items():
                scope[name] = self.value(spec, scope)
        except _Missing as missing:
            return {"missing": missing.name}

        def snippet() -> Any:
            exec(compile(request["code"], "<check case>", "exec", dont_inherit=True), scope)
            return eval(compile(request["result"], "<check case>", "eval"), scope)

        return self._learner_code(request, snippet)

    def _learner_code(self, request: dict[str, Any], work: Callable[[], Any]) -> dict[str, Any]:
        """Run ``work`` (the learner's code, or a snippet around it) under the request's budget
        (``course_lib.case_budget``) and say what it did: returned, raised, or passed the budget
        (whatever it did after: learner code may catch the interruption)."""
        state: dict[str, Any] = {}
        try:
            with _budget(request) as budget:
                state["budget"] = budget
                try:
                    state["result"] = work()
                except (KeyboardInterrupt, EndlessLoop):
                    raise
                except BaseException as exc:  # noqa: BLE001 (SystemExit too: the learner's)
                    state["raised"] = exception_data(exc)
        except EndlessLoop as exc:  # an interruption the budget did not make: the learner's own
            if state.get("budget") is None or state["budget"].tripped is None:
                state["raised"] = exception_data(exc)
        budget = state.get("budget")
        if budget is not None and budget.tripped is not None:
            return {"endless": budget.tripped}
        if "raised" in state:
            return {"raised": state["raised"]}
        return self._returned(state["result"], request.get("keep", False))

    def _returned(self, value: Any, keep: bool) -> dict[str, Any]:
        reply: dict[str, Any] = {"type": type_name(value)}
        if keep:
            handle = f"h{next(self._numbers)}"
            self.handles[handle] = value
            reply["handle"] = handle
        problem = json_problem_at(value)
        if problem:
            reply |= _unjson(problem)
            reply["repr"] = safe_repr(value)[:600]
            return reply
        try:
            reply["returned"] = _loads(_dumps(value, ensure_ascii=False))
        except (TypeError, ValueError, RecursionError) as exc:
            error = f"{type(exc).__name__}: {scrub(str(exc))}"
            return reply | _unjson({"message": "json_error", "path": "$", "error": error})
        return reply

    def _describe(self, request: dict[str, Any]) -> dict[str, Any]:
        try:
            value = self.value(request["value"])
        except _Missing as missing:
            return {"missing": missing.name}
        code = getattr(value, "__code__", None)
        reply = {
            "type": type_name(value),
            "callable": callable(value),
            "is_class": isinstance(value, type),
            "is_ellipsis": value is ...,
            "names_used": sorted(_names_used(code)) if code is not None else [],
        }
        if isinstance(request["value"], dict) and "target" in request["value"]:
            reply["origins"] = origins(value)  # facts for the grader to judge (provenance)
        return reply


def _unjson(problem: dict[str, Any]) -> dict[str, Any]:
    """Where a value stops being JSON: said in English (``unjson``) and as data (``unjson_at``),
    which the check says in the learner's language (``course_lib.checks.learner``)."""
    return {"unjson": said(problem, ENGLISH), "unjson_at": problem}


@contextlib.contextmanager
def _budget(request: dict[str, Any]) -> Iterator[Budget | None]:
    """The request's bound on the learner's code (``{"cpu": seconds, "requests": count}``,
    ``course_lib.case_budget``), or none when it asks for none."""
    spec = request.get("budget")
    if not isinstance(spec, dict):
        yield None
        return
    cpu, requests = spec.get("cpu"), spec.get("requests")
    with bounded(
        float(cpu) if isinstance(cpu, int | float) else None,
        int(requests) if isinstance(requests, int) else None,
    ) as budget:
        yield budget


class _Missing(Exception):
    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.name = name


def _names_used(code: Any, depth: int = 0) -> set[str]:
    names = set(getattr(code, "co_names", ()))
    if depth < 10:
        for const in getattr(code, "co_consts", ()):
            if hasattr(const, "co_names"):
                names |= _names_used(const, depth + 1)
    return names


# --- in the kernel, when grading -------------------------------------------------------------


def install() -> str:
    """Put a driver into the notebook's namespace as ``__course_driver__``; its model link is the
    kernel's stdin channel, which only the grader (the kernel's client) answers."""
    from IPython import get_ipython

    shell = get_ipython()
    driver = _KernelDriver(shell.user_ns, shell.kernel)
    shell.user_ns["__course_driver__"] = driver
    return "installed"


class _KernelDriver(Driver):
    """A driver that talks to the grader through the kernel's stdin channel.

    :meth:`serve` answers a whole check's requests inside one ``execute_request``: each answer
    goes to the grader as the prompt of an ``input_request``, and the grader's ``input_reply``
    is the next request (about 1 ms a request, where an ``execute_request`` each costs about
    5 ms in ipykernel). The model link asks the grader the same way. The route back to the
    grader (the request's ident and parent header) is taken on the kernel's main thread when a
    check starts, so that learner code calling the model from a worker thread still reaches it.
    """

    def __init__(self, namespace: Mapping[str, Any], kernel: Any) -> None:
        super().__init__(namespace, self._ask_grader)
        self.kernel = kernel
        self.route: tuple[Any, Any] | None = None

    def handle_json(self, text: str) -> str:
        self.route = shell_route(self.kernel)
        return super().handle_json(text)

    def serve(self, first: str) -> str:
        """Answer ``first`` and every request after it until the grader sends ``STOP``."""
        self.route = shell_route(self.kernel)
        text = first
        forwarded, builtins.input = builtins.input, no_input  # as a script with no stdin has
        try:
            while text != STOP:
                try:
                    answer = Driver.handle_json(self, text, ascii_only=True)
                except Exception as exc:  # noqa: BLE001 (a forged request: say so, keep serving)
                    answer = _dumps(driver_failed(type(exc).__name__, str(exc)))
                with self._lock:  # not while a worker thread of the learner's waits for the model
                    text = self._ask(DRIVER_PROMPT + answer)
        finally:
            builtins.input = forwarded
        return "stopped"

    def _ask_grader(self, message: dict[str, Any]) -> dict[str, Any]:
        return _loads(self._ask(MODEL_PROMPT + _dumps(message, ensure_ascii=False)))

    def _ask(self, prompt: str) -> str:
        kernel = self.kernel
        if self.route is None or not hasattr(kernel, "stdin_socket"):
            return kernel.raw_input(prompt)
        ident, parent = self.route
        return stdin_request(kernel, prompt, ident, parent)
