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
"""

from __future__ import annotations

import builtins
import contextlib
import itertools
import json
import re
import threading
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from course_lib.case_budget import Budget, EndlessLoop, bounded, model_request
from course_lib.origins import origins

MAX_REPLY_CHARS = 2_000_000  # a reply larger than this is reported, not sent
MAX_TEXT = 2_000  # characters of an exception message or repr kept
ADDRESS = re.compile(r"\b0x[0-9a-fA-F]{4,}\b")
LOCAL_BASE_URL = "http://local-model.invalid/v1"
LOCAL_ANTHROPIC_BASE_URL = "http://local-model.invalid"  # the SDK adds /v1/messages itself
LOCAL_API_KEY = "local-model-needs-no-key"
CASE_MODULE = "check_case"
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

ModelLink = Callable[[dict[str, Any]], dict[str, Any]]

# Taken when the kernel starts, before any notebook cell: a notebook that rebinds ``json.loads``
# for its own reasons must not break every check (a notebook that means to forge answers can,
# but a forged answer still has to be the right one).
_loads, _dumps = json.loads, json.dumps


def driver_failed(name: str, message: str) -> dict[str, str]:
    """The answer a request gets when the driver itself failed (raised ``name``)."""
    return {"error": f"the notebook's driver failed: {name}: {scrub(message)[:300]}"}


class DriverError(Exception):
    """A request the driver cannot carry out (a check author's mistake, or a forged request)."""


def scrub(text: str) -> str:
    """``text`` without memory addresses, cut to ``MAX_TEXT``: messages must not differ between
    two runs of the same notebook."""
    text = ADDRESS.sub("0x…", text)
    return text if len(text) <= MAX_TEXT else text[:MAX_TEXT] + "…"


def type_name(value: Any) -> str:
    kind = type(value)
    module = getattr(kind, "__module__", "")
    name = getattr(kind, "__qualname__", kind.__name__)
    return name if module in ("builtins", CASE_MODULE, "__main__") else f"{module}.{name}"


def safe_repr(value: Any) -> str:
    try:
        return scrub(repr(value))
    except Exception as exc:  # noqa: BLE001 (a learner's __repr__ may raise anything)
        return f"<{type_name(value)} whose repr() raised {type(exc).__name__}>"


def exception_data(exc: BaseException) -> dict[str, Any]:
    try:
        message = str(exc)
    except Exception:  # noqa: BLE001
        message = "<the message could not be read>"
    cause = exc.__cause__  # set only by ``raise ... from error``
    return {
        "type": type(exc).__name__,
        "types": [klass.__name__ for klass in type(exc).__mro__],
        "message": scrub(message),
        "cause_types": [klass.__name__ for klass in type(cause).__mro__] if cause else [],
    }


def json_problem(value: Any, path: str = "$", depth: int = 0) -> str:
    """Where ``value`` stops being JSON, e.g. ``at $.tags: a set``."""
    if depth > 100:
        return f"at {path}: nesting deeper than 100 levels"
    if value is None or isinstance(value, bool | int | str):
        return ""
    if isinstance(value, float):
        return (
            ""
            if value == value and value not in (float("inf"), float("-inf"))
            else (f"at {path}: the number {value!r}, which JSON cannot hold")
        )
    if isinstance(value, list | tuple):
        for index, item in enumerate(value):
            found = json_problem(item, f"{path}[{index}]", depth + 1)
            if found:
                return found
        return ""
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                return f"at {path}: the key {safe_repr(key)}, which is not a string"
            found = json_problem(item, f"{path}.{key}", depth + 1)
            if found:
                return found
        return ""
    return f"at {path}: a {type_name(value)} ({safe_repr(value)[:120]})"


class _LinkTransport:
    """An ``httpx2`` transport whose every request is answered over the model link."""

    def __init__(self, link: ModelLink, session: str) -> None:
        self.link, self.session = link, session

    def _exchange(self, method: str, path: str, headers: dict[str, str], body: bytes):
        answer = self.link(
            {
                "session": self.session,
                "method": method,
                "path": path,
                "headers": headers,
                "body": body.decode("utf-8", errors="replace"),
            }
        )
        return (
            int(answer["status"]),
            answer.get("content_type", "application/json"),
            answer["body"].encode("utf-8"),
        )


def _httpx2_transports(link: ModelLink, session: str):
    import httpx2

    base = _LinkTransport(link, session)

    def respond(request: Any) -> Any:
        status, content_type, content = base._exchange(
            request.method, request.url.path, dict(request.headers), request.read()
        )
        return httpx2.Response(
            status, headers={"content-type": content_type}, content=content, request=request
        )

    class Sync(httpx2.BaseTransport):
        def handle_request(self, request):
            return respond(request)

    class Async(httpx2.AsyncBaseTransport):
        async def handle_async_request(self, request):
            await request.aread()
            return respond(request)

    return Sync(), Async()


def build_client(link: ModelLink, session: str, api: str) -> Any:
    """A real SDK client whose HTTP requests go to the model ``session`` over ``link``."""
    if api in ("openai", "async_openai"):
        import httpx2
        import openai

        sync, async_ = _httpx2_transports(link, session)
        if api == "openai":
            return openai.OpenAI(
                api_key=LOCAL_API_KEY,
                base_url=LOCAL_BASE_URL,
                http_client=httpx2.Client(transport=sync),
                max_retries=0,
            )
        return openai.AsyncOpenAI(
            api_key=LOCAL_API_KEY,
            base_url=LOCAL_BASE_URL,
            http_client=httpx2.AsyncClient(transport=async_),
            max_retries=0,
        )
    if api in ("anthropic", "async_anthropic"):
        import anthropic
        import httpx2

        sync, async_ = _httpx2_transports(link, session)
        if api == "anthropic":
            return anthropic.Anthropic(
                api_key=LOCAL_API_KEY,
                base_url=LOCAL_ANTHROPIC_BASE_URL,
                http_client=httpx2.Client(transport=sync),
                max_retries=0,
            )
        return anthropic.AsyncAnthropic(
            api_key=LOCAL_API_KEY,
            base_url=LOCAL_ANTHROPIC_BASE_URL,
            http_client=httpx2.AsyncClient(transport=async_),
            max_retries=0,
        )
    raise DriverError(f"unknown client api {api!r}")


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
            out = _dumps({"error": f"the reply is larger than {MAX_REPLY_CHARS} characters"})
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
            raise DriverError(f"unknown op {op!r}")
        except DriverError as exc:
            return {"error": str(exc)}
        except (KeyError, TypeError, ValueError) as exc:
            return {"error": f"malformed request: {type(exc).__name__}: {exc}"}

    # --- values ------------------------------------------------------------------------------

    def value(self, spec: Any, scope: dict[str, Any] | None = None) -> Any:
        """The object a value spec describes (see the module docstring of ``checks.learner``)."""
        if not isinstance(spec, dict) or len(spec) == 0:
            raise DriverError(f"not a value spec: {spec!r}"[:200])
        if "json" in spec:
            return spec["json"]
        if "target" in spec:
            name = spec["target"]
            if name not in self.namespace:
                raise _Missing(name)
            return self.namespace[name]
        if "handle" in spec:
            if spec["handle"] not in self.handles:
                raise DriverError(f"no handle {spec['handle']!r}")
            return self.handles[spec["handle"]]
        if "source" in spec:
            namespace = scope if scope is not None else self.case_namespace()
            if spec.get("setup"):
                exec(compile(spec["setup"], "<check case>", "exec", dont_inherit=True), namespace)
            return eval(
                compile(spec["source"], "<check case>", "eval", dont_inherit=True), namespace
            )
        if "client" in spec:
            if self.link is None:
                raise DriverError("this driver has no model link")
            return build_client(self._locked_link, spec["client"], spec.get("api", "openai"))
        if "attr" in spec:
            value = self.value(spec["of"], scope)
            return getattr(value, spec["attr"])
        if "list" in spec:
            return [self.value(item, scope) for item in spec["list"]]
        if "tuple" in spec:
            return tuple(self.value(item, scope) for item in spec["tuple"])
        if "dict" in spec:
            return {key: self.value(item, scope) for key, item in spec["dict"].items()}
        raise DriverError(f"not a value spec: {sorted(spec)!r}")

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
            raise DriverError(f"building the case failed: {type(exc).__name__}: {exc}") from exc
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
        problem = json_problem(value)
        if problem:
            reply["unjson"] = problem
            reply["repr"] = safe_repr(value)[:600]
            return reply
        try:
            reply["returned"] = _loads(_dumps(value, ensure_ascii=False))
        except (TypeError, ValueError, RecursionError) as exc:
            reply["unjson"] = f"at $: {type(exc).__name__}: {scrub(str(exc))}"
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
        self.route = _shell_route(self.kernel)
        return super().handle_json(text)

    def serve(self, first: str) -> str:
        """Answer ``first`` and every request after it until the grader sends ``STOP``."""
        self.route = _shell_route(self.kernel)
        text = first
        forwarded, builtins.input = builtins.input, _no_input  # as a script with no stdin has
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
        return _stdin_request(kernel, prompt, ident, parent)


def _stdin_request(kernel: Any, prompt: str, ident: Any, parent: Any) -> str:
    """One ``input_request`` to the grader and its reply's value: ipykernel's own
    ``_input_request`` without the two stream flushes it makes first (each waits for the IOPub
    thread; nothing the grader reads depends on the order of the learner's printed output)."""
    import zmq

    socket, session = kernel.stdin_socket, kernel.session
    while True:  # a reply left from an earlier request is not this one's
        try:
            socket.recv_multipart(zmq.NOBLOCK)
        except zmq.Again:
            break
    content = {"prompt": prompt, "password": False}
    session.send(socket, "input_request", content, parent, ident=ident)
    while True:
        try:  # a short wait, so that an interrupt gets through
            readable, _, broken = zmq.select([socket], [], [socket], 0.01)
        except KeyboardInterrupt:
            raise KeyboardInterrupt("Interrupted by user") from None
        if readable or broken:
            _, reply = session.recv(socket)
            if reply is not None:
                break
    return str(reply["content"]["value"])


def _no_input(prompt: object = "") -> str:
    """``input()`` while a check runs: nobody is there to type, as for a script whose stdin is
    closed."""
    raise EOFError("EOF when reading a line")


def _shell_route(kernel: Any) -> tuple[Any, Any] | None:
    """The ident and parent header of the shell request being handled (ipykernel 6 and 7)."""
    try:
        if hasattr(kernel, "_get_shell_context_var"):
            ident = kernel._get_shell_context_var(kernel._shell_parent_ident)
        else:
            ident = kernel._parent_ident["shell"]
        return ident, kernel.get_parent("shell")
    except Exception:  # noqa: BLE001 (another ipykernel: fall back to raw_input)
        return None
