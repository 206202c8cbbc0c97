"""The batches of tool calls 05.3 and 05.5 run, and the registry that proves they ran together.

The registry is a ``course_lib.reference.ToolRegistry`` built from source text beside the
learner's code (``MEETING_SOURCE``). Its tools prove concurrency without measuring time: each
call waits at a meeting point until every call of the batch is running, then call *i* waits
until call *i + 1* has finished, so the last call finishes first. "Finished" is signalled as
late as the registry can: when ``call`` (or ``acall``) returns or raises, not when the tool
does, so that the rest of call *i + 1*'s way back (its result made text) is behind it before
call *i* wakes; a machine busy with other work then cannot put the futures back in call order
by chance (it did once, when the signal came from inside the tool). Calls that run one after
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

from course_lib.i18n import translate

TEXTS = {"more_calls": "{calls}, ... ({count} calls in all)"}
WAIT = 10.0  # seconds a call waits for the others; only a wrong answer ever waits this long
NAMES = ["get_weather", "get_time", "search_notes", "get_news"]
CITIES = ["北京", "上海", "深圳", "Paris", "London", "東京"]

MEETING_SOURCE = '''\
import json
import threading

from course_lib.driver import json_problem, safe_repr
from course_lib.reference import ToolRegistry

TOOL_NAMES = ("get_weather", "get_time", "search_notes", "get_news")


class Meeting:
    """Lets calls through once all of them are running; then the last finishes first."""

    def __init__(self, count, timeout):
        self.count, self.timeout = count, timeout
        self.lock = threading.Lock()
        self.arrived = 0
        self.all_here = threading.Event()
        self.broken = False
        self.finished = [threading.Event() for _ in range(count)]
        self.signalled_by_call = set()  # positions whose call(), not their tool, says "finished"
        self.running = 0
        self.peak = 0

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

    def call_starts(self, arguments):
        """The position of a call about to run, which its ``call`` signals as finished."""
        try:
            data = json.loads(arguments) if isinstance(arguments, str) else arguments
            position = data.get("position") if isinstance(data, dict) else None
        except ValueError:
            position = None
        if type(position) is not int or not 0 <= position < self.count:
            return None
        with self.lock:
            self.signalled_by_call.add(position)
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
            if not self.broken and position + 1 < self.count:
                self.finished[position + 1].wait(self.timeout)
        finally:
            self.leave(position)


class MeetingRegistry(ToolRegistry):
    """One batch's registry: its tools meet; ``call`` raises for the tools in ``down``."""

    meeting_class = Meeting

    def __init__(self, count, down, timeout, asynchronous=()):
        super().__init__()
        self.meeting = self.meeting_class(count, timeout)
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
        position = self.meeting.call_starts(arguments)
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
        problem = json_problem(self.arguments)
        return {
            "broken": self.meeting.broken,
            "raised_down": self.raised_down,
            "peak": self.meeting.peak,
            "arguments": safe_repr(self.arguments) if problem else self.arguments,
        }
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
        self.caller_loop = None
        self.blocked_loop = False
        self.foreign_loop = False
        super().__init__(count, down, timeout, asynchronous)

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
        return {
            **super().observed(),
            "blocked_loop": self.blocked_loop,
            "foreign_loop": self.foreign_loop,
        }
'''
)


def random_id(rng: Random) -> str:
    return "call_" + "".join(rng.choice("ABCDEFGHJKabcdefghjk0123456789") for _ in range(12))


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
        function = {
            "name": NAMES[position % 4],
            "arguments": json.dumps(arguments, ensure_ascii=False, separators=separators),
        }
        calls.append({"id": random_id(rng), "type": "function", "function": function})
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
        return translate(
            TEXTS, "more_calls", calls=", ".join(shown[:SHOWN_CALLS]), count=len(shown)
        )
    return ", ".join(shown)
