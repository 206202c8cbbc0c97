"""A registry of tools: register once, describe many times, dispatch by name without raising.

Registration does all the expensive work once: it reflects the function (`inspect_function`),
builds its OpenAI tool, and compiles a pydantic validator for its arguments. Every later request
(`schemas()`, `call()`) reuses that work, so a registry of hundreds of tools stays cheap.

`call(name, arguments)` is what an agent loop runs for each tool call the model makes. It never
raises and always returns a string, because whatever goes wrong must go back to the model as a
tool result it can read and act on, not crash the loop:

    {"error": "unknown tool 'get_wether'; did you mean 'get_weather'? ...", ...}
    {"error": "invalid arguments for tool 'get_weather': days: expected integer, got ...", ...}
    {"error": "tool 'get_weather' failed: ValueError: no such city: Atlantis", ...}

What `call` catches: every `Exception` a tool raises, and `SystemExit` (a tool must not end the
host process). What it lets through on purpose: `KeyboardInterrupt` (Ctrl-C and Jupyter's stop
button must still stop an agent) and `asyncio.CancelledError` / `GeneratorExit` (cancellation is
the caller's decision, not a tool failure).

Reading a call's arguments and every error answer `call` gives live in `call_errors`.
"""

from __future__ import annotations

import asyncio
import dataclasses
import inspect
import re
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pydantic

from . import parameters
from .call_errors import (
    CallError,
    arguments_validator,
    describe_exception,
    failure,
    needs_schema_check,
    positional_only,
    result_text,
    short,
    unknown_tool,
    validated_arguments,
)
from .formats import convert_tool, openai_tool
from .nulls import DefaultNulls
from .results import DEFAULT_MAX_CHARS, MIN_MAX_CHARS
from .validation import compile_validator, validate_arguments

__all__ = ["MAX_NAME_LENGTH", "RegisteredTool", "ToolRegistry", "check_tool_name"]

MAX_NAME_LENGTH = 64
_NAME_CHARS = re.compile(r"[A-Za-z0-9_-]")
_CAUGHT = (Exception, SystemExit)
_PLAIN_RESULTS = (str, dict, list, tuple, int, float, type(None))


def check_tool_name(name: Any) -> None:
    """Raise `ValueError` unless every provider accepts `name`, saying which rule it breaks.

    OpenAI and Anthropic accept `^[a-zA-Z0-9_-]{1,64}$`; Gemini also wants the first character
    to be a letter or an underscore. A name all three accept works everywhere.
    """
    if not isinstance(name, str):
        raise ValueError(f"a tool name must be a string, got {type(name).__name__}")
    if not name:
        raise ValueError("a tool name cannot be empty; pass name='...'")
    bad = sorted({ch for ch in name if not _NAME_CHARS.fullmatch(ch)})
    if bad:
        raise ValueError(
            f"tool name {short(name)!r} contains {', '.join(map(repr, bad))}: providers accept "
            "only ASCII letters, digits, '_' and '-'; pass name='...' to register it under "
            "another name"
        )
    if len(name) > MAX_NAME_LENGTH:
        raise ValueError(
            f"tool name {short(name)!r} is {len(name)} characters long: OpenAI, Anthropic and "
            f"Gemini accept at most {MAX_NAME_LENGTH}; pass a shorter name='...'"
        )
    if not (name[0].isalpha() or name[0] == "_"):
        raise ValueError(
            f"tool name {name!r} starts with {name[0]!r}: Gemini requires a letter or '_' first; "
            "pass name='...' to register it under another name"
        )


@dataclasses.dataclass(eq=False)
class RegisteredTool:
    """One registered tool: the function and everything computed for it at registration."""

    name: str
    function: Callable[..., Any]
    description: str
    parameters: dict[str, Any]
    spec: parameters.FunctionSpec
    tags: frozenset[str] = frozenset()
    owner: str | None = None
    version: str | None = None
    is_async: bool = False
    _validator: pydantic.TypeAdapter[Any] = dataclasses.field(default=None, repr=False)  # type: ignore[assignment]
    _needs_schema_check: bool = dataclasses.field(default=False, repr=False)
    _positional_only: tuple[str, ...] = dataclasses.field(default=(), repr=False)
    _default_nulls: DefaultNulls | None = dataclasses.field(default=None, repr=False)
    _formats: dict[str, dict[str, Any]] = dataclasses.field(default_factory=dict, repr=False)
    _schema_validator: Any = dataclasses.field(default=None, repr=False)

    def argument_problems(self, arguments: Any) -> list[str]:
        """`validate_arguments` against this tool's schema, with a validator compiled once."""
        if self._schema_validator is None:  # on first need: jsonschema is slow to import
            self._schema_validator = compile_validator(self.parameters)
        return validate_arguments(self.parameters, arguments, validator=self._schema_validator)

    def schema(self, format: str = "openai", strict: bool = False) -> dict[str, Any]:
        """This tool in a provider's format, converted once and then served from the cache.

        `strict=True` gives the OpenAI strict-mode version (see `to_strict`) and raises
        `ValueError` naming the tool when its parameters cannot be made strict. The dict is
        shared with the registry: copy it before changing it.
        """
        key = f"{format}:strict" if strict else format
        cached = self._formats.get(key)
        if cached is None:
            base = self._strict_openai() if strict else self._formats["openai"]
            cached = base if format == "openai" else convert_tool(base, format)
            self._formats[key] = cached
        return cached

    def _strict_openai(self) -> dict[str, Any]:
        cached = self._formats.get("openai:strict")
        if cached is None:
            try:
                cached = openai_tool(self.name, self.description, self.parameters, strict=True)
            except ValueError as exc:
                raise ValueError(
                    f"tool {self.name!r} cannot be offered in strict mode: {exc}"
                ) from None
            self._formats["openai:strict"] = cached
        return cached


class ToolRegistry:
    """Tools by name: a decorator to register them, their schemas, and `call` to run them.

    `max_result_chars` limits the text of each result (see `to_text`); `include_traceback`
    adds the traceback to a tool's error result (useful while developing, noise for a model).
    A limit too small to hold the cut marker is refused here, not on the first long result.
    """

    def __init__(
        self, *, max_result_chars: int = DEFAULT_MAX_CHARS, include_traceback: bool = False
    ) -> None:
        if max_result_chars < MIN_MAX_CHARS:
            raise ValueError(
                f"max_result_chars={max_result_chars} leaves no room for the marker that says a "
                f"long result was cut; use at least {MIN_MAX_CHARS}"
            )
        self._tools: dict[str, RegisteredTool] = {}
        self.max_result_chars = max_result_chars
        self.include_traceback = include_traceback

    # -- registration ----------------------------------------------------------------------

    def tool(
        self,
        func: Callable[..., Any] | str | None = None,
        /,
        *,
        name: str | None = None,
        description: str | None = None,
        tags: Iterable[str] | str = (),
        owner: str | None = None,
        version: str | None = None,
        replace: bool = False,
    ) -> Any:
        """Register a function as a tool; returns the function unchanged.

        Three forms: `@registry.tool`, `@registry.tool("description")` and
        `@registry.tool(name=..., description=..., tags=..., owner=..., version=...)`;
        `registry.tool("description")(func)` works too.
        """
        if isinstance(func, str):
            if description is not None:
                raise TypeError("description given twice: as the first argument and description=")
            func, description = None, func

        def register(function: Callable[..., Any]) -> Callable[..., Any]:
            self.register(
                function,
                name=name,
                description=description,
                tags=tags,
                owner=owner,
                version=version,
                replace=replace,
            )
            return function

        if func is None:
            return register
        if not callable(func):
            raise TypeError(
                f"registry.tool expects a function or a description string, got "
                f"{type(func).__name__}"
            )
        return register(func)

    def register(
        self,
        function: Callable[..., Any],
        *,
        name: str | None = None,
        description: str | None = None,
        tags: Iterable[str] | str = (),
        owner: str | None = None,
        version: str | None = None,
        replace: bool = False,
    ) -> RegisteredTool:
        """Register `function` (the decorator's plain-call form) and return its record."""
        spec = parameters.inspect_function(function)  # raises TypeError naming the parameter
        name = spec.name if name is None else name
        check_tool_name(name)
        existing = self._tools.get(name)
        if existing is not None and not replace:
            raise ValueError(
                f"a tool named {name!r} is already registered (function "
                f"{_qualified(existing.function)}); give this one another name with name='...', "
                "or pass replace=True to replace the existing tool on purpose"
            )
        description = spec.description if description is None else description
        record = RegisteredTool(
            name=name,
            function=function,
            description=description,
            parameters=spec.parameters,
            spec=spec,
            tags=_tag_set(tags),
            owner=owner,
            version=version,
            is_async=spec.is_async,
            _validator=arguments_validator(spec, name),
            _needs_schema_check=needs_schema_check(spec.parameters),
            _positional_only=spec.positional_only,
            _default_nulls=DefaultNulls(spec.parameters)
            if DefaultNulls.needed(spec.parameters)
            else None,
        )
        record._formats["openai"] = openai_tool(name, description, spec.parameters)
        self._tools[name] = record
        return record

    # -- looking things up -------------------------------------------------------------------

    def schemas(
        self,
        format: str = "openai",
        tags: Iterable[str] | str | None = None,
        strict: bool = False,
    ) -> list[dict[str, Any]]:
        """Every tool in `format`, in registration order; with `tags`, those having any of them.

        `strict=True` offers the tools in OpenAI's strict mode: every parameter required, the
        optional ones nullable (`call` reads their null as "use the default"). A tool whose
        parameters cannot be strict (open maps, tuples, `Any`) raises `ValueError` naming it.
        Each tool is converted once per format and served from a cache afterwards: treat the
        dicts as read-only.
        """
        wanted = None if tags is None else _tag_set(tags)
        return [
            tool.schema(format, strict=strict)
            for tool in self._tools.values()
            if wanted is None or tool.tags & wanted
        ]

    def names(self) -> list[str]:
        """The registered tool names, in registration order."""
        return list(self._tools)

    def get(self, name: str) -> RegisteredTool | None:
        """The record for `name`, or None."""
        return self._tools.get(name) if isinstance(name, str) else None

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name in self._tools

    def __len__(self) -> int:
        return len(self._tools)

    def __iter__(self) -> Iterator[RegisteredTool]:
        return iter(self._tools.values())

    # -- dispatch ----------------------------------------------------------------------------

    def call(self, name: str, arguments: dict[str, Any] | str | None = None) -> str:
        """Run tool `name` with `arguments` (a dict or JSON text) and return its result as text.

        Never raises for anything the model or the tool did: problems come back as a JSON
        object `{"error": ...}`. None, "" and the JSON text `null` all mean "no arguments"
        (models send each of them for tools without parameters). A `null` for a parameter that
        has a default but whose annotation does not allow None means "use the default": that is
        how a model says "not given" to a tool offered in strict mode (`schemas(strict=True)`),
        and it means the same inside nested models, dataclasses and TypedDicts (see `nulls`).
        A `null` for a required parameter that does not allow None stays an error.

        Async tools are run to completion, also from inside a running event loop (Jupyter):
        there on a helper thread with a loop of its own, so a tool that needs objects bound to
        the caller's loop should be run with `await registry.acall(...)` instead.
        """
        try:
            tool, args, kwargs = self._prepare(name, arguments)
        except CallError as problem:
            return problem.text
        try:
            result = tool.function(*args, **kwargs)
            if tool.is_async or _maybe_awaitable(result):
                result = _run_to_completion(result)
        except _CAUGHT as exc:
            return failure(tool, exc, self.include_traceback)
        return result_text(tool, result, self.max_result_chars)

    async def acall(self, name: str, arguments: dict[str, Any] | str | None = None) -> str:
        """`call` for async code: async tools are awaited, plain ones run on a worker thread."""
        try:
            tool, args, kwargs = self._prepare(name, arguments)
        except CallError as problem:
            return problem.text
        try:
            if tool.is_async:
                result = await tool.function(*args, **kwargs)
            else:
                result = await asyncio.to_thread(tool.function, *args, **kwargs)
            if _maybe_awaitable(result):
                result = await result
        except _CAUGHT as exc:
            return failure(tool, exc, self.include_traceback)
        return result_text(tool, result, self.max_result_chars)

    def _prepare(self, name: Any, arguments: Any) -> tuple[RegisteredTool, list[Any], dict]:
        """Find the tool and turn `arguments` into validated, converted Python values."""
        try:
            tool = self._tools.get(name) if isinstance(name, str) else None
            if tool is None:
                raise CallError(unknown_tool(name, list(self._tools)))
            kwargs = validated_arguments(tool, arguments)
            args = positional_only(tool, kwargs) if tool._positional_only else []
            return tool, args, kwargs
        except CallError:
            raise
        except Exception as exc:  # a hostile input that broke our own code: still an answer
            raise CallError(
                {
                    "error": f"could not read the call: {describe_exception(exc)}",
                    "tool": short(name),
                }
            ) from None


# -- small helpers -----------------------------------------------------------------------------


def _run_to_completion(awaitable: Any) -> Any:
    """Run a coroutine to its end from sync code, even inside a running loop (Jupyter)."""

    async def wait() -> Any:
        return await awaitable

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(wait())
    # This thread's loop is busy running us; give the coroutine a loop of its own.
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, wait()).result()


def _maybe_awaitable(result: Any) -> bool:
    """`inspect.isawaitable`, skipped for the plain values almost every tool returns."""
    return not isinstance(result, _PLAIN_RESULTS) and inspect.isawaitable(result)


def _tag_set(tags: Iterable[str] | str) -> frozenset[str]:
    items = [tags] if isinstance(tags, str) else list(tags)
    for tag in items:
        if not isinstance(tag, str) or not tag:
            raise ValueError(f"tags must be non-empty strings, got {tag!r}")
    return frozenset(items)


def _qualified(function: Callable[..., Any]) -> str:
    module = getattr(function, "__module__", None) or "?"
    return f"{module}.{getattr(function, '__qualname__', repr(function))}"
