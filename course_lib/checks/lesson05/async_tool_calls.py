"""Exercise 05.5, ``async def arun_tool_calls(registry, tool_calls) -> list[dict]``: 05.3 for
async code, with ``asyncio.gather``.

Each batch gets its own registry beside the learner's code (``ASYNC_MEETING_SOURCE``): some of
its tools are async, the others plain, and all of them finish only once every call of the batch
is running, the last call first. The learner's coroutine is run with ``asyncio.run`` on a fresh
thread: the thread that answers the check may already run an event loop (IPython's kernel
does). The registry notes a plain tool that ran on that loop's own thread (it blocks every other
call) and an async tool that ran on another loop (not awaited). Rules, the case that breaks
each, and the hint that names it: see ``RULES``.
"""

from __future__ import annotations

from random import Random

from course_lib.checks.catalog import Catalog
from course_lib.checks.compare import Plain, fail, hidden_rng
from course_lib.checks.core import Rule, exercise
from course_lib.checks.learner import Learner, Reply, raise_learner_error
from course_lib.checks.lesson05 import tool_calls
from course_lib.checks.lesson05._agent_tools import NOTEBOOK
from course_lib.checks.lesson05._meeting import (
    ASYNC_MEETING_SOURCE,
    NAMES,
    WAIT,
    batch,
    expected_messages,
    shown_calls,
)
from course_lib.checks.lesson05.tool_calls import judge

TEXTS = Catalog() | {
    "case": "await arun_tool_calls(registry, [{calls}]) where {names} are async",
    "case_down": (
        "await arun_tool_calls(registry, [{calls}]) where {names} are async and {down} raise(s)"
    ),
    "case_plain": "await arun_tool_calls(registry, [{calls}]) where every tool is plain",
    "a_coroutine": "a coroutine to await (async def)",
    "a_value": "a {kind} returned right away",
    "plain_def": "a plain def that returns a {kind}",
    "overlapping": "every call running at the same time, on the caller's loop or in threads",
    "blocked": "a plain tool ran on the event loop's own thread, blocking every other call",
    "foreign": "an async tool ran on an event loop of its own, in another thread",
    "summary": "{count} batches",
}
text = TEXTS.text


Batch = tuple[list[dict], list[str], list[str]]


def batches(rng: Random) -> list[Batch]:
    """(calls, names whose call raises, names of the async tools), the visible ones first:
    four calls whose first tool is plain, three async ones, two plain ones, four with one
    raising, one call, none; then random ones with at most four calls (``asyncio.to_thread``'s
    default pool has at least five threads); then three calls whose arguments are written
    compactly, so that arguments parsed and dumped again differ from them."""
    mixed = ["get_time", "get_news"]
    visible = [(4, 0, mixed), (3, 0, NAMES[:3]), (2, 0, []), (4, 1, mixed), (1, 0, NAMES[:1])]
    table: list[Batch] = [(*batch(rng, count, down), names) for count, down, names in visible]
    table.append(([], [], mixed))
    for _ in range(6):
        calls, down = batch(rng, rng.randint(1, 4), rng.choice([0, 0, 1]))
        table.append((calls, down, sorted(rng.sample(NAMES, rng.randint(0, 4)))))
    return table + [(*batch(rng, 3, 0, compact=True), mixed)]


def case_label(calls: list[dict], down: list[str], asynchronous: list[str]) -> str:
    shown = shown_calls(calls)
    if not asynchronous:
        return text("case_plain", calls=shown)
    names = ", ".join(asynchronous)
    if down:
        return text("case_down", calls=shown, names=names, down=", ".join(down))
    return text("case", calls=shown, names=names)


BATCHES = batches(hidden_rng("05.5"))
MIXED, ASYNC_ONLY, PLAIN_ONLY, MIXED_DOWN = (case_label(*b) for b in BATCHES[:4])

RULES = (
    Rule("coroutine", "it is a coroutine function (`async def`): the caller awaits what it returns",
         case=MIXED, hint="async_def"),
    Rule("arguments", "every call gets its arguments string unchanged", case=MIXED,
         hint="arguments_parsed"),
    Rule("together", "all calls run **at the same time**: one coroutine per call, all started "
         "together by `asyncio.gather`", case=MIXED, hint="together"),
    Rule("awaited", "an async tool is awaited on your own event loop (as `registry.acall` does), "
         "not run in a thread with a loop of its own", case=MIXED, hint="foreign_loop"),
    Rule("plain_in_thread", "a plain tool runs in a thread (as `registry.acall` does), never on "
         "the loop's own thread", case=MIXED, hint="blocked_loop"),
    Rule("message", "the result has one `{\"role\": \"tool\", \"tool_call_id\": <the call's id>, "
         '"content": <result>}` per call', case=MIXED, hint="tool_call_id_key"),
    Rule("order", "in the order of `tool_calls` (`gather` keeps it)", case=MIXED,
         hint="completion_order"),
    Rule("isolated", "when the registry raises (the check's does, as in 05.3), the other calls "
         "still run and keep their results", case=MIXED_DOWN, hint="batch_down"),
    Rule("error_text", "that call's content is `json.dumps({\"error\": f\"{type(exc).__name__}: "
         '{exc}"}, ensure_ascii=False)`', case=MIXED_DOWN, hint="error_format"),
)  # fmt: skip

# The hints on the messages are 05.3's, word for word: said from its table.
HINTS = Catalog(also=(tool_calls.HINTS,)) | {
    "async_def": (
        "arun_tool_calls must be a coroutine function: write async def arun_tool_calls(...), "
        "so that the caller can await it next to other work on its event loop."
    ),
    "nested_run": (
        "asyncio.run cannot start a loop inside a running one, and the caller of "
        "arun_tool_calls is already running one: make it async def and await inside it "
        "(await asyncio.gather(...)) instead of calling asyncio.run."
    ),
    "too_slow": (
        "The calls did not finish within {seconds:g} s: something waits for a call that never "
        "starts. Start every call first (asyncio.gather), then await them together."
    ),
    "together": (
        "Start every call before awaiting any: build one coroutine per call and await them "
        "together with await asyncio.gather(*coroutines)."
    ),
    "blocked_loop": (
        "A plain tool ran on the event loop's own thread: registry.call inside an async def "
        "does not make it concurrent, it stops the loop until it returns. Run it in a thread "
        "with await asyncio.to_thread(registry.call, name, arguments), or use await "
        "registry.acall(name, arguments), which does that for plain tools."
    ),
    "foreign_loop": (
        "An async tool ran on an event loop of its own in some thread instead of being awaited "
        "on yours (registry.call in asyncio.to_thread starts a new loop for it): await "
        "registry.acall(name, arguments), which awaits an async tool on your loop."
    ),
    "arguments_parsed": (
        "The registry received the parsed arguments (a dict) instead of the "
        "string. It would accept them, but the exercise asks for each call's arguments string "
        'exactly as it came: tool_call["function"]["arguments"].'
    ),
    "arguments_unchanged": "Pass each call's arguments string to the registry unchanged.",
    "batch_down": (
        "One failing call took the whole batch down: asyncio.gather raises the first exception "
        "of its coroutines. Catch the exception inside the coroutine of each call and answer "
        'that call with json.dumps({{"error": f"{{type(exc).__name__}}: {{exc}}"}}, '
        "ensure_ascii=False)."
    ),
    "completion_order": (
        "The messages come in the order the calls finished, not the order they were asked: "
        "asyncio.gather returns the results in the order of its arguments; "
        "asyncio.as_completed does not."
    ),
    "error_format": (
        "When the registry raises, that call's content is "
        'json.dumps({{"error": f"{{type(exc).__name__}}: {{exc}}"}}, ensure_ascii=False) and the '
        "other calls keep their results: catch the exception inside each call's coroutine."
    ),
}
hint = HINTS.hint


# Runs the learner's coroutine to its end on a fresh thread with a loop of its own: the thread
# answering the check may already be running a loop (an IPython kernel's), where asyncio.run
# cannot start another one.
RUN_CODE = """\
import asyncio
import inspect
from concurrent.futures import ThreadPoolExecutor


async def main():
    registry.caller_loop = asyncio.get_running_loop()
    registry.plain_def = not inspect.iscoroutinefunction(arun_tool_calls)
    outcome = arun_tool_calls(registry, calls)
    if not inspect.isawaitable(outcome):
        registry.not_awaitable = type(outcome).__name__
        return outcome
    return await asyncio.wait_for(outcome, deadline)


with ThreadPoolExecutor(max_workers=1) as pool:
    got = pool.submit(asyncio.run, main()).result()
"""
DEADLINE = 3 * WAIT  # the whole batch; a correct answer takes a fraction of a second


@exercise("05.5", notebook=NOTEBOOK, title="arun_tool_calls", points=3, rules=RULES, hints=HINTS)
def check_arun_tool_calls(learner: Learner) -> str:
    target = learner.target("arun_tool_calls")
    made_by = "AsyncMeetingRegistry(count, down, timeout, asynchronous)"
    for calls, down, asynchronous in BATCHES:
        case = case_label(calls, down, asynchronous)
        bind = {"count": len(calls), "down": down, "timeout": WAIT, "asynchronous": asynchronous}
        made = learner.run(ASYNC_MEETING_SOURCE, result=made_by, bind=bind, keep=True)
        registry = learner.handle(made.handle)
        bind = {"arun_tool_calls": target, "registry": registry, "calls": calls}
        reply = learner.run(RUN_CODE, result="got", bind={**bind, "deadline": DEADLINE})
        seen = learner.run("", result="r.observed()", bind={"r": registry}).value
        learner.release(made.handle)
        if seen["not_awaitable"] is not None:
            got = Plain(text("a_value", kind=seen["not_awaitable"]))
            fail(case, Plain(text("a_coroutine")), got, hint("async_def"))
        if seen["plain_def"] and reply.returned:
            got = Plain(text("plain_def", kind=reply.type))
            fail(case, Plain(text("a_coroutine")), got, hint("async_def"))
        if reply.raised:
            explain_raised(case, reply, expected_messages(calls, down), seen)
        for key, said in (("blocked_loop", "blocked"), ("foreign_loop", "foreign")):
            if seen[key]:
                fail(case, Plain(text("overlapping")), Plain(text(said)), hint(key))
        judge(case, calls, down, seen, reply, hint)
    return text("summary", count=len(BATCHES))


def explain_raised(case: str, reply: Reply, expected: list[dict], observed: dict) -> None:
    __tracebackhide__ = True
    if observed["raised_down"] or "is down for" in reply.message:
        fail(case, expected, Plain(reply.raised_text), hint("batch_down"))
    if reply.raised_a("RuntimeError") and "running event loop" in reply.message:
        fail(case, expected, Plain(reply.raised_text), hint("nested_run"))
    if reply.raised_a("TimeoutError"):
        fail(case, expected, Plain(reply.raised_text), hint("too_slow", seconds=DEADLINE))
    raise_learner_error(case, reply)
