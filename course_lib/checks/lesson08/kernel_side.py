"""The kernel's half of lesson 08's checks: real MCP clients and servers beside the learner's code.

Lesson 08's targets are MCP objects (a ``Server``, an ``async`` loop on a ``ClientSession``),
which no JSON request can carry. So a check sends this module's text as a case's setup (a
grading kernel cannot read ``course_lib/checks``, so it must not import from there, nor may this
text) and a short snippet that calls one of its functions on the learner's target; what comes
back is plain data, what a real
client saw on the wire (a tool listing, call results, the error a protocol failure carried) or
what the learner's loop returned or raised. The verdict stays with the check, on its side.

The kernel runs an event loop of its own while a cell executes, so ``anyio.run`` cannot start
another one in its thread: every exchange runs on a fresh thread with its own loop
(``run_in_fresh_loop``), bounded in time both inside (``anyio.fail_after``, which cancels the
exchange and so stops its server) and outside (the thread's join). A stdio server is started
with the session and stopped with it; one that a runaway learner loop keeps busy past the outer
bound still stops when its stdin closes, at the latest when the kernel ends.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import inspect
import logging
import threading
from collections.abc import Awaitable, Callable, Iterator, Sequence
from typing import Any

import anyio

from course_lib.driver import exception_data, json_problem_at, safe_repr, type_name
from course_lib.i18n import ENGLISH, translate

# Bounds for learner code that hangs, not for speed: generous, so that a loaded machine (a
# class graded on two cores) never turns a slow answer into a wrong one.
EXCHANGE_SECONDS = 60.0  # one listing with its calls, or one conversation
# How long the caller waits for an exchange that outlives its bound (code that never awaits
# cannot be cancelled): then ``run_in_fresh_loop`` raises its ``timeout`` message.
JOIN_SECONDS = EXCHANGE_SECONDS + 5
READ_SECONDS = 30.0  # one request to a server
# Written in English here: this text runs as a case's setup, where neither the learner's language
# nor this table's translations are known. The check says it again in the learner's language
# (``_kernel_bridge.said_message``).
MESSAGES = {"timeout": "The exchange with the MCP server took longer than {seconds:g} seconds."}


# The revision a learner's server is asked in. On 2025-11-25 an exception a handler raises
# reaches the client as a JSON-RPC error with its message, which the hints quote ("can't be used
# in 'await' expression" means a handler that is not async); on 2026-07-28 the SDK answers
# -32603 "Internal server error" and keeps the message in the server's log.
LEARNER_SERVER_PROTOCOL = "2025-11-25"

# 08.4's results are asked for in the newest revision, whose structuredContent may be any JSON
# value (2025-11-25 allows only an object); a learner's exception is read on the server's side.
STRUCTURED_PROTOCOL = "2026-07-28"

# The SDK's loggers ("client" is the name its ClientSession logs under).
SDK_LOGGERS = ("mcp", "client")


@contextlib.contextmanager
def quiet_sdk_logs() -> Iterator[None]:
    """Keep the SDK's log records (a traceback for every handler that raised) out of the
    learner's cell while a check runs: the check reports what went wrong, once."""
    saved = []
    for name in SDK_LOGGERS:
        logger = logging.getLogger(name)
        handler = logging.NullHandler()
        saved.append((logger, handler, logger.propagate))
        logger.addHandler(handler)
        logger.propagate = False
    try:
        yield
    finally:
        for logger, handler, propagate in saved:
            logger.removeHandler(handler)
            logger.propagate = propagate


def run_in_fresh_loop(main: Callable[[], Awaitable[Any]], *, timeout: float) -> Any:
    """``anyio.run(main)`` on a new thread, the SDK's logs kept quiet; its result, or what it
    raised."""
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["value"] = anyio.run(main)
        except BaseException as exc:  # noqa: BLE001 (handed to the caller's thread)
            box["error"] = exc

    thread = threading.Thread(target=run, name="course-check-mcp", daemon=True)
    with quiet_sdk_logs():
        thread.start()
        thread.join(timeout)
    if thread.is_alive():
        raise TimeoutError(translate(MESSAGES, "timeout", ENGLISH, seconds=timeout))
    if "error" in box:
        raise box["error"]
    return box.get("value")


def wire(model: Any) -> Any:
    """An SDK object as the JSON that travels (camelCase names, no unset fields)."""
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)


def protocol_error(exc: BaseException) -> dict[str, Any] | None:
    """``{"code", "message"}`` when ``exc`` is a protocol error (``mcp.MCPError``)."""
    from mcp.shared.exceptions import MCPError

    if isinstance(exc, MCPError):
        return {"code": exc.code, "message": exc.message}
    return None


async def outcome(awaitable: Awaitable[Any], dump: Callable[[Any], Any]) -> dict[str, Any]:
    """What one request brought back: ``{"result": ...}``, ``{"protocol_error": ...}`` or
    ``{"raised": ...}`` (an exception on this side, e.g. a result the SDK could not read)."""
    try:
        return {"result": dump(await awaitable)}
    except Exception as exc:  # noqa: BLE001 (reported as data)
        error = protocol_error(exc)
        return {"protocol_error": error} if error else {"raised": exception_data(exc)}


def serve_and_ask(server: Any, calls: Sequence[Sequence[Any]]) -> dict[str, Any]:
    """Connect a real ``ClientSession`` to ``server`` in memory, list its tools, make ``calls``
    (``[name, arguments]`` pairs), and report what the session saw."""
    from mcp.server.lowlevel import Server

    from course_lib.mcp_servers.connect import connect_in_memory

    report: dict[str, Any] = {"server_type": type_name(server)}
    report["is_server"] = isinstance(server, Server)
    if not report["is_server"]:
        return report

    async def ask() -> None:
        with anyio.fail_after(EXCHANGE_SECONDS):
            async with connect_in_memory(
                server, protocol=LEARNER_SERVER_PROTOCOL, read_timeout_seconds=READ_SECONDS
            ) as session:
                report["listing"] = await outcome(
                    session.list_tools(), lambda result: [wire(tool) for tool in result.tools]
                )
                report["calls"] = []
                for name, arguments in calls:
                    report["calls"].append(await outcome(session.call_tool(name, arguments), wire))

    try:
        run_in_fresh_loop(ask, timeout=JOIN_SECONDS)
    except Exception as exc:  # noqa: BLE001 (the connection itself failed)
        report["connect_error"] = protocol_error(exc) or exception_data(exc)
    return report


def serve_structured(structured_result: Callable[..., Any], cases: Sequence[Any]) -> list[dict]:
    """One tool per ``[output_schema, value]`` case (``tool_0``, ``tool_1``, ...), listed with that
    output schema by a real server whose ``tools/call`` handler returns
    ``structured_result(value, output_schema)``; a 2026-07-28 ``ClientSession`` (which validates
    structured results against the listing) calls each. Per case: what the learner's function
    returned or raised (``type``, ``raised``) and what the client saw (``call``)."""
    import mcp_types as types
    from mcp.server.lowlevel import Server

    from course_lib.mcp_servers.connect import connect_in_memory

    reports: list[dict[str, Any]] = [{} for _ in cases]

    async def list_tools(ctx: Any, params: Any) -> Any:
        return types.ListToolsResult(
            tools=[
                types.Tool(name=f"tool_{i}", input_schema={"type": "object"}, output_schema=schema)
                for i, (schema, _) in enumerate(cases)
            ]
        )

    async def call_tool(ctx: Any, params: Any) -> Any:
        number = int(params.name.removeprefix("tool_"))
        schema, value = cases[number]
        try:
            result = structured_result(value, schema)
        except Exception as exc:
            reports[number]["raised"] = exception_data(exc)
            raise
        reports[number]["type"] = type_name(result)
        return result

    server = Server("structured", on_list_tools=list_tools, on_call_tool=call_tool)

    async def ask() -> None:
        with anyio.fail_after(EXCHANGE_SECONDS):
            async with connect_in_memory(
                server, protocol=STRUCTURED_PROTOCOL, read_timeout_seconds=READ_SECONDS
            ) as session:
                await session.list_tools()
                for number in range(len(cases)):
                    reports[number]["call"] = await outcome(
                        session.call_tool(f"tool_{number}", {}), wire
                    )

    run_in_fresh_loop(ask, timeout=JOIN_SECONDS)
    return reports


def returned(value: Any) -> dict[str, Any]:
    """A value the learner's code returned, as the driver would describe it: where it stops
    being JSON as data (``unjson_at``, which the check says in the learner's language)."""
    reply: dict[str, Any] = {"type": type_name(value)}
    problem = json_problem_at(value)
    if problem:
        reply["unjson_at"] = problem
        reply["repr"] = safe_repr(value)[:600]
    else:
        reply["returned"] = value
    return reply


class NotesConnection:
    """The course's notes server over stdio and a ``ClientSession`` on it, kept open between
    requests so that a check can judge one conversation before it holds the next.

    The session lives on an event loop of its own, on a thread of its own (an anyio blocking
    portal); ``converse`` runs the learner's loop there and waits for it, ``close`` ends the
    session, which stops the server. A conversation that outlives its bound is cancelled; one
    stuck in code that never awaits cannot be, so the connection is then left to the end of the
    kernel (the server stops when its stdin closes).
    """

    def __init__(self, server: Sequence[str] = ("-m", "course_lib.mcp_servers.notes")) -> None:
        from anyio.from_thread import start_blocking_portal

        from course_lib.mcp_servers.connect import connect_stdio

        self.stuck = False
        self.stack = contextlib.ExitStack()
        with quiet_sdk_logs():
            try:
                self.portal = self.stack.enter_context(start_blocking_portal())
                connection = connect_stdio(*server, read_timeout_seconds=READ_SECONDS)
                self.session = self.stack.enter_context(
                    self.portal.wrap_async_context_manager(connection)
                )
            except BaseException:
                self.stack.close()
                raise

    def converse(
        self, agent: Callable[..., Any], client: Any, question: str, *, model: str
    ) -> dict:
        """``agent(client, session, question, model=model)``: what it returned, or raised, or
        ``{"timeout": seconds}``."""

        async def one() -> dict[str, Any]:
            try:
                with anyio.fail_after(EXCHANGE_SECONDS):
                    value = agent(client, self.session, question, model=model)
                    if inspect.isawaitable(value):
                        value = await value
            except TimeoutError:
                return {"timeout": EXCHANGE_SECONDS}
            except Exception as exc:  # noqa: BLE001 (the learner's, as data)
                return {"raised": exception_data(exc)}
            return returned(value)

        with quiet_sdk_logs():
            future = self.portal.start_task_soon(one)
            try:
                return future.result(timeout=JOIN_SECONDS)
            except concurrent.futures.TimeoutError:
                self.stuck = True
                future.cancel()
                return {"timeout": EXCHANGE_SECONDS}

    def close(self) -> None:
        """End the session and stop the server (unless a conversation is stuck: see above)."""
        if not self.stuck:
            with quiet_sdk_logs():
                self.stack.close()
