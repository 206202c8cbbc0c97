"""What the checks of lesson 07 share: the registry the learner's code is given, and questions.

The registry exists twice from one source text (``REGISTRY_SOURCE``): beside the learner's code,
where their round trip calls ``registry.call``, and here, where the check computes what each
result sent back must be. The model is a session on the check's side (``Learner.model``), so a
check reads what the learner's code really sent in ``session.exchanges``, whatever it returns.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from random import Random
from typing import Any

from course_lib.checks.catalog import Catalog
from course_lib.checks.compare import Plain, expect_equal, fail, hidden_rng
from course_lib.checks.core import exercise
from course_lib.checks.function_cases import run_source
from course_lib.checks.learner import Learner, Reply, raise_endless, raise_learner_error

NOTEBOOK = "07_other_protocols"
CHECK_MODEL = "toy-check-model"  # not MODEL: the learner must pass ``model`` through
REASONING_MODEL = "local-toy-reasoning"
MAX_TOKENS = 1024  # what 07.3 and 07.4 ask an Anthropic request for

# What 07.1's and 07.3's checks both say (each module's own catalog falls back on these).
ROUND_TRIP_TEXTS = Catalog() | {
    "a_request": "a request to the model",
    "no_request": "no request",
    "request_number": "request {number} of {count} your function sent",
    "no_tools": "no tools (tools= not passed)",
    "first_succeeds": "a successful first request",
    "requests": "{count} request(s)",
    "summary": "{count} conversations",
}
ROUND_TRIP_HINTS = Catalog() | {
    "model": "Pass model=model to every request.",
    "first_failed": "Fix the first request.",
}

REGISTRY_SOURCE = '''\
from typing import Literal

from course_lib.reference import ToolRegistry

SKIES = {"北京": "晴", "上海": "多云", "Paris": "cloudy", "London": "rain", "Berlin": "fog"}
OFFSETS = {"北京": 8, "上海": 8, "Paris": 2, "London": 1, "Berlin": 2}
registry = ToolRegistry()


@registry.tool
def get_weather(city: str, unit: Literal["c", "f"] = "c") -> dict:
    """Current weather (temperature and sky) in a city, such as 北京 or Paris."""
    if city not in SKIES:
        raise KeyError(f"no weather station in {city}")
    celsius = 10 + sum(map(ord, city)) % 25
    temperature = celsius if unit == "c" else round(celsius * 9 / 5 + 32)
    report = {"city": city, "temperature": temperature, "unit": unit, "sky": SKIES[city]}
    if city == "Berlin":  # a success whose text holds the word "error"
        report["error_margin"] = 1
    return report


@registry.tool
def get_time(city: str) -> str:
    """The local time in a city."""
    return f"{(4 + OFFSETS.get(city, 0)) % 24:02d}:00"
'''
# Places the toy model recognises; 东京 and Tokyo have no weather station (an error result).
PLACES = ["北京", "上海", "Paris", "London", "Berlin", "东京", "Tokyo"]


@cache
def _registry() -> Any:
    return run_source(REGISTRY_SOURCE, "<lesson 07 registry>")["registry"]


def tools(format: str) -> list[dict[str, Any]]:
    """The registry's tools in ``format``, as the learner's code should send them."""
    return _registry().schemas(format=format)


def tool_result(name: str, arguments: Any) -> str:
    """What ``registry.call(name, arguments)`` returns (the check's own copy of the registry)."""
    return _registry().call(name, arguments)


def is_error_result(result: str) -> bool:
    """Whether a registry result is an error object ``{"error": ...}``."""
    try:
        value = json.loads(result)
    except ValueError:
        return False
    return isinstance(value, dict) and "error" in value


def random_questions(rng: Random, count: int) -> list[str]:
    """Weather and time questions about two places, in English and Chinese."""
    templates = [
        "What's the weather in {a} and {b}?",
        "{a}和{b}的天气怎么样？",
        "Weather in {a}, please.",
        "{a}现在几点？",
    ]
    questions = []
    for _ in range(count):
        first, second = rng.sample(PLACES, 2)
        questions.append(rng.choice(templates).format(a=first, b=second))
    return questions


# The questions 07.1's and 07.3's tables both ask.
WEATHER_QUESTION = "北京和上海的天气怎么样？"
MORE_QUESTION = "Weather and time in Paris?"


def labeller(texts: Catalog) -> Callable[..., str]:
    """A round trip's ``case_label(question, model=CHECK_MODEL)``, said from ``texts``'s "case"."""

    def case_label(question: str, model: str = CHECK_MODEL) -> str:
        return texts.text("case", question=repr(question), model=repr(model))

    return case_label


def asks_for_more() -> Any:
    """The policy of the ``MORE_QUESTION`` case: its second reply asks for one more call beside
    its text, so a loop would send a third request."""
    from course_lib.local_model import ScriptedPolicy, Turn, call

    more = Turn(
        "Paris is cloudy. Let me look up the time there too.", (call("get_time", city="Paris"),)
    )
    return ScriptedPolicy([call("get_weather", city="Paris"), more])


def text_of_response(response: dict[str, Any]) -> str:
    """A Responses API reply's ``output_text``: its message items' output_text parts, joined."""
    return "".join(
        part.get("text", "")
        for item in response.get("output") or []
        if item.get("type") == "message"
        for part in item.get("content") or []
        if part.get("type") == "output_text"
    )


def text_of_message(message: dict[str, Any]) -> str:
    """An Anthropic reply's text: its text blocks, joined."""
    return "".join(
        block.get("text", "")
        for block in message.get("content") or []
        if block.get("type") == "text"
    )


def replaced(value: Any, names: dict[str, str]) -> Any:
    """``value`` (JSON values) with every string that is a key of ``names`` replaced by its name:
    how the checks show ids and signatures that differ from one process to the next."""
    if isinstance(value, str):
        return names.get(value, value)
    if isinstance(value, list):
        return [replaced(part, names) for part in value]
    if isinstance(value, dict):
        return {key: replaced(part, names) for key, part in value.items()}
    return value


@dataclass(frozen=True)
class RoundTrip:
    """07.1's or 07.3's check with what the two share written once: ``target`` asked over ``api``
    (``"openai"``'s Responses or ``"anthropic"``) on a fresh session seeded from ``seed``, every
    request judged for its model, the registry's tools in the API's format (``tools_key(sent,
    body)`` names the hint for other tools) and, for Anthropic, ``max_tokens``, the first reply's
    calls answered by exactly one more request, the last reply's text returned (all its text
    blocks, for Anthropic). The module's ``judge_first`` and ``judge_second`` judge the rest; its
    ``texts`` (whose ``"case"`` labels each case) and ``hints`` say what fails. For Anthropic, a
    function that never returns is judged on what it sent, then named as endless. ``register``
    makes it the exercise's check."""

    target: str
    api: str
    seed: int
    texts: Catalog
    hints: Catalog
    judge_first: Callable[[str, str, list, bool], tuple[bool, bool]]
    judge_second: Callable[[str, str, list], None]
    tools_key: Callable[[Any, dict], str]
    exception_hints: list

    def register(self, exercise_id: str, *, points: int, rules: Any, conversations: Any) -> None:
        """Register the check of ``exercise_id``: the (question, policy or None, model) of
        ``conversations()``, then three hidden questions (``random_questions``) for the default
        toy model, seeded by exercise."""
        hidden = [(q, None, CHECK_MODEL) for q in random_questions(hidden_rng(exercise_id), 3)]

        def check(learner: Learner) -> str:
            __tracebackhide__ = True
            return self.run(learner, [*conversations(), *hidden])

        exercise(
            exercise_id,
            notebook=NOTEBOOK,
            title=self.target,
            points=points,
            rules=rules,
            hints=self.hints,
        )(check)

    def run(self, learner: Learner, table: list[tuple[str, Any, str]]) -> str:
        """Each (question, policy or None, model) of ``table`` in turn; the summary of a pass."""
        __tracebackhide__ = True
        from course_lib.local_model import HeuristicPolicy

        for index, (question, policy, model) in enumerate(table):
            session = learner.model(
                policy or HeuristicPolicy(), model_name=CHECK_MODEL, seed=self.seed + index
            )
            case = labeller(self.texts)(question, model)
            endless = self.api == "anthropic"
            options = {"case": case, "endless_returns": True} if endless else {}
            client = learner.client(session, api=self.api)
            registry = learner.source("registry", setup=REGISTRY_SOURCE)  # beside their code
            reply = learner.attempt(self.target, client, registry, question, model=model, **options)
            finished = not (reply.endless or reply.raised)  # what it sent is judged first
            self.diagnose(case, question, session.exchanges, finished, model)
            if reply.endless:
                raise_endless(case, reply.endless)
            if reply.raised:
                raise_learner_error(case, reply, self.exception_hints)
            self.expect_returned_text(case, session.exchanges[-1].reply, reply)
        return ROUND_TRIP_TEXTS.text("summary", count=len(table))

    def diagnose(
        self, case: str, question: str, exchanges: list, finished: bool, model: str
    ) -> None:
        """Fail with a fitting hint on the first thing the recorded requests show to be wrong:
        every request, the first one (``judge_first`` says whether its reply asks for calls and
        whether it holds any), how many were sent, then the second one (``judge_second``)."""
        __tracebackhide__ = True
        if not self.judge_each_request(case, exchanges, model, finished):
            return
        asks, holds_calls = self.judge_first(case, question, exchanges, finished)
        self.judge_request_count(case, exchanges, asks, finished)
        if holds_calls and len(exchanges) > 1:
            self.judge_second(case, question, exchanges)

    def judge_each_request(self, case: str, exchanges: list, model: str, finished: bool) -> bool:
        """Every request's model, ``max_tokens`` and tools. ``False`` when there is nothing to
        judge: the function raised before sending anything (the exception says what)."""
        __tracebackhide__ = True
        text, hint = self.texts.text, self.hints.hint
        if not exchanges and not finished:
            return False
        if not exchanges:
            fail(case, Plain(text("a_request")), Plain(text("no_request")), hint("no_request"))
        expected_tools = tools("anthropic" if self.api == "anthropic" else "responses")
        for number, exchange in enumerate(exchanges, start=1):
            where = text("request_number", number=number, count=len(exchanges))
            body = exchange.request
            if body.get("model") != model:
                fail(case, model, body.get("model"), hint("model"), where=where)
            if self.api == "anthropic" and body.get("max_tokens") != MAX_TOKENS:
                fail(case, MAX_TOKENS, body.get("max_tokens"), hint("max_tokens"), where=where)
            if body.get("tools") != expected_tools:
                got = body["tools"] if "tools" in body else Plain(text("no_tools"))
                key = self.tools_key(body.get("tools"), body)
                fail(case, Plain(text("the_tools")), got, hint(key), where=where)
        return True

    def judge_request_count(self, case: str, exchanges: list, calls: bool, finished: bool) -> None:
        """The first request succeeded; then one more when its reply asked for calls, else none
        (the hint ``no_calls``, or ``no_tool_use`` for Anthropic's ``stop_reason``)."""
        __tracebackhide__ = True
        text, hint = self.texts.text, self.hints.hint
        if exchanges[0].status != 200:
            fail(case, Plain(text("first_succeeds")), exchanges[0].reply, hint("first_failed"))
        wanted, count = (2 if calls else 1), len(exchanges)
        if count > wanted or (finished and count < wanted):
            no_calls = "no_tool_use" if self.api == "anthropic" else "no_calls"
            key = no_calls if not calls else "send_again" if count < 2 else "one_round_trip"
            expected, got = text("requests", count=wanted), text("requests", count=count)
            fail(case, Plain(expected), Plain(got), hint(key))

    def expect_returned_text(self, case: str, last: dict, reply: Reply) -> None:
        """The function returned the text of ``last``, the last reply, as a ``str``; an Anthropic
        reply's text blocks name a function that returned only one of them."""
        __tracebackhide__ = True
        hint = self.hints.hint
        expected = (text_of_message if self.api == "anthropic" else text_of_response)(last)
        blocks = [b.get("text") for b in last.get("content") or [] if b.get("type") == "text"]
        if reply.type != "str":
            data = reply.data
            shown = Plain(data.get("repr", "")[:200]) if "unjson" in data else reply.value
            fail(case, expected, shown, hint("return_text"))
        if len(blocks) > 1 and reply.value in blocks:
            fail(case, expected, reply.value, hint("first_text_only", count=len(blocks)))
        expect_equal(case, expected, reply.value, hint=hint("return_content"))
