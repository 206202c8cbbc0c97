"""The batches of tool calls 05.3 and 05.5 run, and the registry that proves they ran together.

The registry is a ``course_lib.reference.ToolRegistry`` built from source text beside the
learner's code (``MEETING_SOURCE``). Its tools prove concurrency without measuring time: each
call waits at a meeting point until every call of the batch is running, then call *i* waits
until call *i + 1* has finished, so the last call finishes first. "Finished" is signalled as
late as the registry can: when ``call`` (or ``acall``) returns or raises, not when the tool
does; and for ``call``, call *i* then waits (at most ``WAIT`` seconds) until the thread that made
call *i + 1* has handed its result back: it ended, or it waits for more work (a pool's worker,
a ``Queue``, a ``join``); and the last call, which finishes first, waits (at most 2 s) until
the thread that made the registry, which runs ``run_tool_calls``, waits for the results: had
every call finished before it looked, ``as_completed`` would give them in any order. So a
machine busy with other work cannot put the futures back in call order by chance (it did, when
"finished" came from inside the tool, and again, more rarely, when every call had finished
before the learner's code looked). Calls that run one after
another never all meet: the first waits ``WAIT`` seconds (a bound only a wrong answer reaches,
generous for a loaded machine), then the meeting is broken and noted, and the rest pass. Tools
named in ``down`` raise from ``call`` itself, as a registry from elsewhere might.

The async version (``ASYNC_MEETING_SOURCE``, 05.5) adds async tools, awaited on the caller's
event loop, and notes a plain tool that runs on the loop's own thread (it would block every
other call) and an async tool run on a loop of its own in some thread (not awaited).
"""

from __future__ import annotations

import json
from random import Random

from course_lib.checks.lesson05._agent_tools import CITIES
from course_lib.i18n import translate

TEXTS = {"more_calls": "{calls}, ... ({count} calls in all)"}
WAIT = 10.0  # seconds a call waits for the others; only a wrong answer ever waits this long
NAMES = ["get_weather", "get_time", "search_notes", "get_news"]

MEETING_SOURCE = '''\
import json
import os
import sys
import threading
import time

from course_lib.driver import json_problem_at, safe_repr
from course_lib.reference import ToolRegistry

TOOL_NAMES = ("get_weather", "get_time", "search_notes", "get_news")


class Meeting:
    """Lets calls through once all of them are running; then the last finishes first."""

    def __init__(self, count, timeout):
        self.count, self.timeout = count, timeout
        self.lock = threading.Lock()
        self.arrived = self.running = self.peak = 0
        self.all_here = threading.Event()
        self.broken = False
        self.finished = [threading.Event() for _ in range(count)]
        self.signalled_by_call = set()  # positions whose call(), not their tool, says "finished"
        self.threads = {}  # position -> the thread that called registry.call for it
        self.caller = None  # the thread that runs run_tool_calls (05.3; None for 05.5's loop)

    def arrive(self):
        with self.lock:
            self.arrived += 1
            self.running += 1
            self.peak = max(self.peak, self.running)
            if self.arrived >= self.count:
                self.all_here.set()

    def leave(self, position):
        with self.lock:
            self.running -= 1
            signalled_later = position in self.signalled_by_call
        if not signalled_later:
            self.finished[position].set()

    def call_starts(self, arguments, thread=None):
        """The position of a call about to run, which its ``call`` signals as finished;
        ``thread``: the thread making the call, whose handing back call *position - 1* awaits."""
        try:
            data = json.loads(arguments) if isinstance(arguments, str) else arguments
            position = data.get("position") if isinstance(data, dict) else None
        except ValueError:
            position = None
        if type(position) is not int or not 0 <= position < self.count:
            return None
        with self.lock:
            self.signalled_by_call.add(position)
            if thread is not None:
                self.threads[position] = thread
        return position

    def call_ends(self, position):
        if position is not None:
            self.finished[position].set()

    def break_up(self):
        with self.lock:
            self.broken = True
        self.all_here.set()

    def meet(self, position):
        self.arrive()
        try:
            if not self.all_here.wait(self.timeout):
                self.break_up()
            if not self.broken and position + 1 == self.count:
                # The first to finish: not before the caller waits for the results, or all of
                # them could be done before it looks, and come back in any order.
                self.wait_idle(self.caller, min(self.timeout, 2.0))
            if not self.broken and position + 1 < self.count:
                if self.finished[position + 1].wait(self.timeout):
                    self.wait_idle(self.threads.get(position + 1), self.timeout)
        finally:
            self.leave(position)

    def wait_idle(self, ident, seconds):
        """Until thread ``ident`` waits: it ended, or its innermost Python frame is a pool
        worker's loop or threading's or queue's waiting (a call's thread has handed its result
        back; the caller waits for the results); at most ``seconds``."""
        if ident is None or ident == threading.get_ident():
            return
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            frame = sys._current_frames().get(ident)
            if frame is None or waiting(frame):
                return
            time.sleep(0.001)


# Where a thread waits, by its innermost Python frame: a pool worker's loop, threading's and
# queue's waiting functions. Not any frame of those files: ``Event.set``, which ends a call,
# runs in threading.py too.
WAITING = {
    os.sep + os.path.join("concurrent", "futures", "thread.py"): {"_worker"},
    os.sep + "threading.py": {"wait", "join", "_wait_for_tstate_lock"},
    os.sep + "queue.py": {"get", "put", "join"},
}


def waiting(frame):
    """Is a thread whose innermost Python frame is ``frame`` waiting for work or for others?
    Not while it starts a thread (``Thread.start`` waits until the thread runs): a caller doing
    that is still handing out the calls."""
    code = frame.f_code
    if not any(
        code.co_filename.endswith(path) and code.co_name in names
        for path, names in WAITING.items()
    ):
        return False
    while frame is not None:
        code = frame.f_code
        if code.co_filename.endswith(os.sep + "threading.py") and code.co_name == "start":
            return False
        frame = frame.f_back
    return True


class MeetingRegistry(ToolRegistry):
    """One batch's registry: its tools meet; ``call`` raises for the tools in ``down``."""

    meeting_class = Meeting

    def __init__(self, count, down, timeout, asynchronous=()):
        super().__init__()
        self.meeting = self.meeting_class(count, timeout)
        self.meeting.caller = threading.get_ident()  # the check calls run_tool_calls from here
        self.down = set(down)
        self.arguments = []
        self.raised_down = 0
        for name in TOOL_NAMES:
            tool = self.async_tool(name) if name in asynchronous else self.plain_tool(name)
            self.register(tool, name=name, description=f"{name} for a city.")

    def plain_tool(self, name):
        def tool(city: str, position: int) -> str:
            self.meeting.meet(position)
            return f"{name} → {city}"

        return tool

    def call(self, name, arguments=None):
        self.arguments.append(arguments)
        position = self.meeting.call_starts(arguments, threading.get_ident())
        try:
            result = super().call(name, arguments)
            self.raise_if_down(name, arguments)
            return result
        finally:
            self.meeting.call_ends(position)

    def raise_if_down(self, name, arguments):
        if name in self.down:
            city = json.loads(arguments)["city"] if isinstance(arguments, str) else "?"
            self.raised_down += 1
            raise RuntimeError(f"{name} is down for {city}")

    def observed(self):
        """What the batch did, as data; arguments that are not JSON as their repr, and where
        they stop being JSON (``arguments_unjson_at``: the check says it in its language)."""
        meeting, problem = self.meeting, json_problem_at(self.arguments)
        seen = {"broken": meeting.broken, "raised_down": self.raised_down, "peak": meeting.peak}
        if problem:
            return {**seen, "arguments": safe_repr(self.arguments), "arguments_unjson_at": problem}
        return {**seen, "arguments": self.arguments}
'''

ASYNC_MEETING_SOURCE = (
    MEETING_SOURCE
    + '''

import asyncio
import time


class AsyncMeeting(Meeting):
    """``Meeting`` for calls on an event loop too: an async call waits without blocking it."""

    async def meet_async(self, position):
        self.arrive()
        try:
            if not await self.wait_for(self.all_here):
                self.break_up()
            if not self.broken and position + 1 < self.count:
                await self.wait_for(self.finished[position + 1])
        finally:
            self.leave(position)

    async def wait_for(self, event):
        """Wait for a threading.Event (set from any thread), letting the loop run meanwhile."""
        deadline = time.monotonic() + self.timeout
        while not event.is_set():
            if time.monotonic() > deadline:
                return False
            await asyncio.sleep(0.005)
        return True


class AsyncMeetingRegistry(MeetingRegistry):
    """One batch's registry for 05.5: the tools in ``asynchronous`` are async; ``acall``
    raises for the tools in ``down`` as ``call`` does. ``caller_loop`` is set to the loop the
    check awaits the learner's coroutine on."""

    meeting_class = AsyncMeeting

    def __init__(self, count, down, timeout, asynchronous=()):
        self.caller_loop = self.not_awaitable = None  # not_awaitable, plain_def: set by the check
        self.blocked_loop = self.foreign_loop = self.plain_def = False
        super().__init__(count, down, timeout, asynchronous)
        self.meeting.caller = None  # the caller's loop never waits in threading's functions

    def plain_tool(self, name):
        def tool(city: str, position: int) -> str:
            try:
                running = asyncio.get_running_loop()
            except RuntimeError:
                running = None
            if running is not None and running is self.caller_loop:
                self.blocked_loop = True  # waiting here would stop every other call
                self.meeting.break_up()
            self.meeting.meet(position)
            return f"{name} → {city}"

        return tool

    def async_tool(self, name):
        async def tool(city: str, position: int) -> str:
            if asyncio.get_running_loop() is not self.caller_loop:
                self.foreign_loop = True
            await self.meeting.meet_async(position)
            return f"{name} → {city}"

        return tool

    async def acall(self, name, arguments=None):
        self.arguments.append(arguments)
        position = self.meeting.call_starts(arguments)
        try:
            result = await super().acall(name, arguments)
            self.raise_if_down(name, arguments)
            return result
        finally:
            self.meeting.call_ends(position)

    def observed(self):
        names = ("blocked_loop", "foreign_loop", "not_awaitable", "plain_def")
        return {**super().observed(), **{name: getattr(self, name) for name in names}}
'''
)


def batch(
    rng: Random, count: int, failing: int, *, compact: bool = False
) -> tuple[list[dict], list[str]]:
    """``count`` calls (tool ``position % 4``, a random city) and the names of ``failing`` of
    them whose registry raises. ``compact`` writes the arguments without spaces, as models
    often do, so that arguments parsed and dumped again no longer match the text sent."""
    separators = (",", ":") if compact else None
    calls = []
    for position in range(count):
        arguments = {"city": rng.choice(CITIES), "position": position}
        text = json.dumps(arguments, ensure_ascii=False, separators=separators)
        function = {"name": NAMES[position % 4], "arguments": text}
        call_id = "call_" + "".join(rng.choice("ABCDEFGHJKabcdefghjk0123456789") for _ in range(12))
        calls.append({"id": call_id, "type": "function", "function": function})
    down = sorted({c["function"]["name"] for c in rng.sample(calls, min(failing, count))})
    return calls, down


def expected_messages(calls: list[dict], down: list[str]) -> list[dict]:
    """The oracle: one tool message per call, in call order; a raised call as its error."""
    messages = []
    for call in calls:
        name, arguments = call["function"]["name"], json.loads(call["function"]["arguments"])
        if name in down:
            error = f"RuntimeError: {name} is down for {arguments['city']}"
            content = json.dumps({"error": error}, ensure_ascii=False)
        else:
            content = f"{name} → {arguments['city']}"
        messages.append({"role": "tool", "tool_call_id": call["id"], "content": content})
    return messages


SHOWN_CALLS = 4  # a longer batch shows its first calls and how many there are


def shown_calls(calls: list[dict]) -> str:
    shown = [f"{c['function']['name']}({c['function']['arguments']})" for c in calls]
    if len(shown) > SHOWN_CALLS:
        calls_shown = ", ".join(shown[:SHOWN_CALLS])
        return translate(TEXTS, "more_calls", calls=calls_shown, count=len(shown))
    return ", ".join(shown)
