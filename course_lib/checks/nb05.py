"""Checks for notebook 05_agent_loop: the loop, the once-per-turn fix, concurrent calls, streams.

The oracle is ``course_lib.reference``: every case runs the learner's code and the reference on
fresh local-model clients with the same seed, so both see the same ids and the same replies, and
the results are compared as JSON. The client records each request it sends, so when the local
model rejects a conversation (HTTP 400, as the real API would) the check can say which rule the
conversation broke.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from random import Random
from typing import Any

from course_lib.checks.core import (
    CheckFailed,
    as_json,
    expect_json_equal,
    fail,
    first_difference,
    hidden_rng,
    learner_raised,
    show,
)
from course_lib.checks.core import (
    legacy_exercise as exercise,
)
from course_lib.checks.recording import Exchange, recording_client
from course_lib.reference import ToolRegistry
from course_lib.reference import loop as reference

NOTEBOOK = "05_agent_loop"
CHECK_MODEL = "toy-check-model-05"  # not MODEL: the learner must pass ``model`` through
CITIES = ["北京", "上海", "深圳", "Paris", "London", "東京"]
SKIES = {"北京": "晴", "上海": "多云", "深圳": "小雨", "Paris": "cloudy", "London": "rain"}

# --- the local model, recorded ----------------------------------------------------------------


def _client(policy: Any) -> tuple[Any, list[Exchange]]:
    return recording_client(policy, model_name=CHECK_MODEL)


class _Endless:
    """A model that asks for one more new call every turn, and gives up after 12 turns."""

    def respond(self, request: Any) -> Any:
        from course_lib.local_model import Turn
        from course_lib.local_model.turns import ToolCall

        turn = sum(1 for m in request.messages if m.get("role") == "assistant")
        if turn >= 12:
            return Turn("I give up.")
        return Turn(
            None, (ToolCall.of("get_time", {"city": CITIES[turn % len(CITIES)] + str(turn)}),)
        )


class _RecordingRegistry(ToolRegistry):
    """The check's registry: it also keeps the arguments each ``call`` received, as received."""

    def __init__(self) -> None:
        super().__init__()
        self.sent: list[Any] = []

    def call(self, name: str, arguments: Any) -> str:
        self.sent.append(arguments)
        return super().call(name, arguments)


def _registry() -> _RecordingRegistry:
    registry = _RecordingRegistry()

    @registry.tool
    def get_weather(city: str, unit: str = "c") -> dict:
        """Current weather (temperature and sky) in a city, such as 北京 or Paris."""
        if city not in SKIES:
            raise KeyError(f"no weather station in {city}")
        celsius = 10 + sum(map(ord, city)) % 25
        temperature = celsius if unit == "c" else round(celsius * 9 / 5 + 32)
        return {"city": city, "temperature": temperature, "unit": unit, "sky": SKIES[city]}

    @registry.tool
    def get_time(city: str) -> str:
        """The local time in a city."""
        return f"{city} 12:{sum(map(ord, city)) % 60:02d}"

    return registry


# --- reading what the learner's loop did --------------------------------------------------------


def _broken_rule(exchanges: list[Exchange]) -> str:
    """The hint for a conversation the model refused, from the last request sent."""
    messages = exchanges[-1].request.get("messages", []) if exchanges else []
    seen_calls: dict[str, int] = {}
    for index, message in enumerate(messages):
        if not isinstance(message, dict):
            continue
        ids = [c.get("id") for c in message.get("tool_calls") or [] if isinstance(c, dict)]
        if message.get("role") == "assistant" and any(i in seen_calls for i in ids):
            return (
                "The same assistant message was appended more than once (once per tool call). "
                "Append the assistant message once per turn, before the loop over its calls; "
                "then append one tool message per call."
            )
        seen_calls.update(dict.fromkeys(ids, index))
    answered = {m.get("tool_call_id") for m in messages if isinstance(m, dict)}
    if any(i not in answered for i in seen_calls):
        return (
            "A tool call was never answered: every call of a turn (the second of two parallel "
            "calls too) needs its own tool message with its tool_call_id, right after the "
            "assistant message."
        )
    return (
        "The model refused the conversation: after an assistant message with tool_calls come "
        "only tool messages, one per call, each with the tool_call_id of the call it answers."
    )


def _run_learner(
    fn: Callable[..., Any], args: tuple, kwargs: dict, *, case: str, exchanges: list[Exchange]
):
    """Call the learner's loop; a 400 from the model becomes a failure that names the rule."""
    __tracebackhide__ = True
    import openai

    try:
        return fn(*args, **kwargs)
    except (NotImplementedError, CheckFailed):
        raise
    except openai.BadRequestError as error:
        fail(
            case,
            "a conversation the model accepts",
            f"BadRequestError: {error.message}",
            _broken_rule(exchanges),
        )
    except json.JSONDecodeError as error:
        fail(
            case,
            "no exception",
            f"JSONDecodeError: {error}",
            "The model can send arguments that are not valid JSON. Do not let json.loads crash "
            "the loop: pass the string to registry.call as it is (it answers with an error), "
            "and for the repeat check compare such a string as it is.",
        )
    except Exception as error:  # the learner's bug, reported as data
        raise learner_raised(case, error) from None


def _plain_messages(messages: Any, case: str) -> list[dict]:
    """Messages as plain JSON with SDK noise removed: None-valued keys other than content."""
    if not isinstance(messages, list) or not all(isinstance(m, dict) for m in messages):
        kinds = sorted({type(m).__name__ for m in messages}) if isinstance(messages, list) else []
        fail(
            f"{case}: the type of messages",
            "a list of dicts",
            f"{type(messages).__name__} of {', '.join(kinds)}" if kinds else repr(messages)[:80],
            "Keep every message as a plain dict: turn the SDK's message into "
            '{"role": "assistant", "content": ..., "tool_calls": [...]} before appending it.',
        )
    plain = []
    for message in as_json(messages, f"The messages of {case}"):
        message = {k: v for k, v in message.items() if v is not None or k == "content"}
        if message.get("role") == "assistant":
            message.setdefault("content", None)
            calls = message.pop("tool_calls", None) or []
            if calls:
                message["tool_calls"] = [_plain_call(c) for c in calls]
        plain.append(message)
    return plain


def _plain_call(call: Any) -> Any:
    if not isinstance(call, dict) or not isinstance(call.get("function"), dict):
        return call
    function = call["function"]
    return {
        "id": call.get("id"),
        "type": call.get("type"),
        "function": {"name": function.get("name"), "arguments": function.get("arguments")},
    }


def _steps(steps: Any, case: str) -> list[dict]:
    fields = ("turn", "tool_call_id", "name", "arguments", "result")
    if not isinstance(steps, list):
        fail(f"{case}: steps", "a list of Step", type(steps).__name__, "steps is a list.")
    plain = []
    for step in steps:
        if isinstance(step, dict):
            plain.append({f: step.get(f) for f in fields})
        elif all(hasattr(step, f) for f in fields):
            plain.append({f: getattr(step, f) for f in fields})
        else:
            fail(
                f"{case}: one of the steps",
                "Step(turn, tool_call_id, name, arguments, result)",
                repr(step)[:120],
                "Record each call as Step(turn, tool_call_id, name, arguments, result).",
            )
    return as_json(plain, f"The steps of {case}")


def _parsed(arguments: Any) -> Any:
    if isinstance(arguments, str):
        try:
            return json.loads(arguments)
        except ValueError:
            return arguments
    return arguments


REPEATED = "<your repeated-call error>"


def _is_error_object(content: Any) -> bool:
    parsed = _parsed(content)
    return isinstance(parsed, dict) and "error" in parsed


def _mask_repeats(expected: dict, got: dict, repeated_ids: set[str], case: str) -> None:
    """The wording of the repeated-call error is the learner's: check it is an error, then mask."""
    for view in (expected, got):
        for message in view["messages"]:
            if message.get("role") == "tool" and message.get("tool_call_id") in repeated_ids:
                stopped_alike = got["stopped"] == expected["stopped"]  # else stopped fails first
                if view is got and stopped_alike and not _is_error_object(message.get("content")):
                    fail(
                        f"{case}: the tool message answering the repeated call",
                        'a JSON object {"error": "..."}',
                        message.get("content"),
                        'Answer a repeated call with a JSON object such as {"error": "..."} '
                        "(json.dumps) saying it was already called, instead of running it.",
                    )
                message["content"] = REPEATED
        for step in view["steps"]:
            if step.get("tool_call_id") in repeated_ids:
                step["result"] = REPEATED


def _view(result: Any, case: str) -> dict:
    missing = [f for f in ("answer", "messages", "steps", "stopped") if not hasattr(result, f)]
    if missing:
        fail(
            f"{case}: the result",
            "AgentResult(answer, messages, steps, stopped)",
            repr(result)[:200],
            f"Return AgentResult(answer=..., messages=..., steps=..., stopped=...); "
            f"missing: {', '.join(missing)}.",
        )
    return {
        "stopped": as_json(result.stopped, f"stopped of {case}"),
        "answer": as_json(result.answer, f"answer of {case}"),
        "messages": _plain_messages(result.messages, case),
        "steps": _steps(result.steps, case),
    }


def _turns(messages: list[dict]) -> int:
    return sum(1 for m in messages if m.get("role") == "assistant")


def _same_turn_twice(view: dict) -> bool:
    """Whether one turn of this conversation asks for the same call twice."""
    keys = [(s["turn"], s["name"], json.dumps(_parsed(s["arguments"]))) for s in view["steps"]]
    return len(set(keys)) < len(keys)


def _stopped_hint(expected: dict, got: dict, max_iterations: int) -> str:
    want, have = expected["stopped"], got["stopped"]
    if want == "max_iterations" and _turns(got["messages"]) > max_iterations:
        return (
            f"No max_iterations guard: the loop asked the model {_turns(got['messages'])} times "
            f"with max_iterations={max_iterations}. Loop at most max_iterations times, then "
            'return stopped="max_iterations" with answer None.'
        )
    if want != "repeated_call" and have == "repeated_call" and _same_turn_twice(expected):
        return (
            "Two identical calls in the same turn are not a repeat: only a call that an earlier "
            "turn already ran is. Run both, and add the turn's calls to the ones you remember "
            "after the turn, not while you go through it."
        )
    if want == "max_iterations" and have == "repeated_call":
        return (
            "Only a call an earlier turn already ran with the same name and the same arguments "
            "is a repeat; these arguments differ."
        )
    if have == "max_iterations" and _turns(got["messages"]) < _turns(expected["messages"]):
        return (
            f"The loop stopped a turn early: max_iterations={max_iterations} allows that many "
            "calls to create (for turn in range(1, max_iterations + 1)), and an answer on the "
            'last allowed turn is still stopped="answer".'
        )
    if want == "repeated_call":
        return (
            "Remember (name, parsed arguments) of every call you ran (for arguments that are not "
            "valid JSON, the string itself); when a later turn asks for one of them again, "
            'answer it with an error instead of running it and stop with stopped="repeated_call".'
        )
    if want == "answer" and have == "repeated_call":
        return (
            "Compare parsed arguments and the name: a call is a repeat only when both match a "
            "call from an earlier turn."
        )
    return 'stopped is "answer", "max_iterations" or "repeated_call", as the contract says.'


def _missing_answer_hint(
    expected: list[dict], missing: str, repeated: set[str], stopped: str | None
) -> str:
    """Why the call ``missing`` went unanswered: a stop at a repeat, at the limit, or a repeat."""
    turns = [m for m in expected if m.get("role") == "assistant" and m.get("tool_calls")]
    turn = next(t for t in turns if missing in [c.get("id") for c in t["tool_calls"]])
    ids = [c.get("id") for c in turn["tool_calls"]]
    if missing in repeated:
        return (
            "The repeated call has no tool message: every call needs one, a repeated call too "
            "(answered with an error), so that the conversation stays valid to send again."
        )
    if any(i in repeated for i in ids[: ids.index(missing)]):
        return (
            "The loop stopped at the repeated call, so the calls listed after it in the same "
            "turn were never run or answered. Do not break out of the loop over the calls: "
            "answer the repeat with an error, run the other calls, and return "
            'stopped="repeated_call" after the whole turn.'
        )
    if stopped == "max_iterations" and turn is turns[-1]:
        return (
            "The calls of the last allowed turn were not run: the loop returned as soon as the "
            "model asked for them. Run and answer every call of that turn too, then return "
            'stopped="max_iterations", so the conversation stays valid to send again.'
        )
    return (
        "Some call has no tool message: every call of a turn needs one, in the order the "
        "assistant message lists them."
    )


def _messages_hint(
    expected: list[dict],
    got: list[dict],
    *,
    repeated: set[str] = frozenset(),
    stopped: str | None = None,
    limit: str | None = None,
) -> str:
    tool_ids = [m.get("tool_call_id") for m in got if m.get("role") == "tool"]
    want_ids = [m.get("tool_call_id") for m in expected if m.get("role") == "tool"]
    if limit and _turns(got) > _turns(expected):
        return (
            f"The loop asked the model {_turns(got)} times, more than {limit} allows: "
            f"{limit} turns at most (for _ in range({limit})), the last one's calls answered "
            "too; then return the list."
        )
    if sorted(map(str, tool_ids)) == sorted(map(str, want_ids)) and tool_ids != want_ids:
        return "Answer the calls in the order the assistant message lists them."
    missing = [i for i in want_ids if i not in tool_ids]
    if len(tool_ids) < len(want_ids) and missing:
        return _missing_answer_hint(expected, missing[0], repeated, stopped)
    if any(m.get("role") == "assistant" and "tool_calls" in m for m in got) and not any(
        isinstance(c, dict) and "function" in c
        for m in got
        if m.get("role") == "assistant"
        for c in m.get("tool_calls", [])
    ):
        return (
            'Each tool call is {"id": ..., "type": "function", "function": {"name", "arguments"}}.'
        )
    if got == expected[:-1]:
        return "The final assistant message (the answer) belongs in the list too: append it."
    if got and got[0] != expected[0]:
        return 'The conversation starts with {"role": "user", "content": question}.'
    if any(m.get("role") == "tool" and not isinstance(m.get("content"), str) for m in got):
        return "A tool message's content is the string registry.call returned."
    return (
        "Compare with the contract: one assistant message per turn (content and tool_calls), "
        "then one tool message per call; the final assistant message ends the list."
    )


def _compare_messages(case: str, expected: list[dict], got: list[dict], **context: Any) -> None:
    """Fail on the first message that differs, showing that message rather than the whole list.

    ``context`` (the ids of repeated calls, the expected ``stopped``, the name of the turn limit
    when going past it is the likely mistake) lets the hint say what went wrong.
    """
    __tracebackhide__ = True
    difference = first_difference(expected, got)
    if difference is None:
        return
    hint = _messages_hint(expected, got, **context)
    position = next(
        (i for i, (e, g) in enumerate(zip(expected, got, strict=False)) if e != g), None
    )
    if position is None:  # one list is the other plus more messages
        position = min(len(expected), len(got))
    fail(
        f"{case}, message {position}",
        expected[position] if position < len(expected) else "(no message)",
        got[position] if position < len(got) else "(no message)",
        hint,
        detail=f"messages[{position}] of {len(got)} (expected {len(expected)} messages)",
    )


def _compare(
    case: str,
    expected: dict,
    got: dict,
    max_iterations: int,
    *,
    repeated: set[str],
    sent: tuple[list[Any], list[Any]],
) -> None:
    """Compare in the order a learner fixes things: stop reason, turns, messages, answer, the
    arguments the registry received, steps. ``sent`` is what the registry's ``call`` received
    (expected, got)."""
    __tracebackhide__ = True
    if got["stopped"] != expected["stopped"]:
        fail(
            f"{case}: stopped",
            expected["stopped"],
            got["stopped"],
            _stopped_hint(expected, got, max_iterations),
        )
    made, allowed = _turns(got["messages"]), _turns(expected["messages"])
    if expected["stopped"] == got["stopped"] == "max_iterations" and made != allowed:
        early = "The loop stopped a turn early. " if made < allowed else ""
        fail(
            f"{case}: the number of turns (assistant messages)",
            allowed,
            made,
            f"{early}max_iterations={max_iterations} allows exactly that many calls to create "
            "(for turn in range(1, max_iterations + 1)).",
        )
    _compare_messages(
        f"{case}: messages",
        expected["messages"],
        got["messages"],
        repeated=repeated,
        stopped=expected["stopped"],
    )
    if got["answer"] != expected["answer"]:
        hint = (
            'answer is the final assistant message\'s content when stopped is "answer", '
            "and None otherwise."
        )
        fail(f"{case}: answer", expected["answer"], got["answer"], hint)
    want_sent, got_sent = sent
    if sorted(map(show, got_sent)) != sorted(map(show, want_sent)):
        fail(
            f"{case}: the arguments registry.call received",
            want_sent,
            got_sent,
            "Pass each call's arguments string to registry.call exactly as the model sent it "
            "(the tool call's function.arguments): not parsed, not re-serialised; and never "
            "run a repeated call.",
        )
    _compare_steps(case, expected["steps"], got["steps"])


def _compare_steps(case: str, expected: list[dict], got: list[dict]) -> None:
    """Fail on the first step that differs, showing that step rather than the whole list."""
    __tracebackhide__ = True
    if first_difference(expected, got) is None:
        return
    position = next(
        (
            i
            for i, (e, g) in enumerate(zip(expected, got, strict=False))
            if first_difference(e, g) is not None
        ),
        min(len(expected), len(got)),
    )
    want = expected[position] if position < len(expected) else "(no step)"
    have = got[position] if position < len(got) else "(no step)"
    hint = (
        "One Step per tool call, repeated ones included, in call order: turn (1 for the "
        "first model turn), tool_call_id, name, arguments (the JSON string the model sent) "
        "and result (the content of its tool message)."
    )
    if len(got) < len(expected):
        hint = "Record a Step for every call, including a repeated one. " + hint
    elif isinstance(want, dict) and isinstance(have, dict):
        if not isinstance(have["arguments"], str):
            hint = (
                "Step.arguments is the arguments string as the model sent it "
                "(tool_call.function.arguments), not the parsed dict."
            )
        elif have["arguments"] != want["arguments"]:
            hint = "Step.arguments is the arguments string exactly as the model sent it."
    counts = f"{len(got)} steps (expected {len(expected)})"
    both = position < min(len(expected), len(got))
    difference = first_difference(want, have, f"steps[{position}]") if both else None
    if difference and len(got) == len(expected):
        detail = difference
    else:
        detail = f"{difference}; {counts}" if difference else counts
    fail(f"{case}: steps[{position}]", want, have, hint, detail=detail)


# --- 05.1: run_agent ------------------------------------------------------------------------------


def _scripted(turns: list, then: Any = None) -> Any:
    from course_lib.local_model import ScriptedPolicy

    return ScriptedPolicy(turns, then=then)


def _loop_cases(rng: Random) -> list[tuple[str, str, Callable[[], Any], int]]:
    """(case description, question, policy factory, max_iterations)."""
    from course_lib.local_model import HeuristicPolicy, call
    from course_lib.local_model.turns import ToolCall

    weather = call("get_weather", city="北京")
    two = [call("get_time", city="北京"), weather]
    cases = [
        ("two parallel calls, then an answer", "北京和上海的天气怎么样？", HeuristicPolicy, 6),
        ("a greeting, answered without tools", "hello", HeuristicPolicy, 6),
        (
            "three calls in one turn",
            "What is the weather in 北京, 上海 and Paris?",
            HeuristicPolicy,
            6,
        ),
        (
            "a call repeated in the next turn next to a new call",
            "北京",
            lambda: _scripted([weather, two, "done"]),
            6,
        ),
        ("a model that never stops calling", "go", _Endless, 3),
        (
            "an answer on the last allowed turn",
            "time",
            lambda: _scripted([call("get_time", city="北京"), call("get_time", city="上海"), "好"]),
            3,
        ),
        (
            "two calls, then max_iterations",
            "time",
            lambda: _scripted([call("get_time", city="北京"), call("get_time", city="上海"), "好"]),
            2,
        ),
        (
            "a tool that fails, then an answer",
            "火星的天气",
            lambda: _scripted([call("get_weather", city="火星"), "No station on Mars."]),
            6,
        ),
        (
            "a repeat with reordered keys and other spacing",
            "上海",
            lambda: _scripted(
                [
                    ToolCall("get_weather", '{"city": "上海", "unit": "f"}'),
                    ToolCall("get_weather", '{"unit":"f","city":"上海"}'),
                    "x",
                ]
            ),
            6,
        ),
        (
            "a repeated call listed before a new call in its turn",
            "北京",
            lambda: _scripted([weather, [weather, call("get_time", city="上海")], "done"]),
            6,
        ),
        (
            "the same call twice in one turn is not a repeat",
            "北京",
            lambda: _scripted([[weather, weather], "done"]),
            6,
        ),
        (
            "the last allowed turn asks for two calls",
            "time",
            lambda: _scripted(
                [
                    call("get_time", city="北京"),
                    [call("get_weather", city="上海"), call("get_time", city="Paris")],
                    "好",
                ]
            ),
            2,
        ),
        (
            "arguments that are not valid JSON, sent again in the next turn",
            "北京",
            lambda: _scripted(
                [
                    ToolCall("get_weather", '{"city": "北京"'),
                    [ToolCall("get_weather", '{"city": "北京"'), call("get_time", city="Paris")],
                    "x",
                ]
            ),
            6,
        ),
        (
            "the same tool with other arguments is not a repeat",
            "上海",
            lambda: _scripted(
                [call("get_weather", city="上海"), call("get_weather", city="上海", unit="f"), "x"]
            ),
            6,
        ),
    ]
    for number in range(8):
        script, made = [], []
        for _ in range(rng.randint(1, 4)):
            turn = []
            for _ in range(rng.randint(1, 3)):
                if made and rng.random() < 0.2:
                    turn.append(rng.choice(made))
                else:
                    name = rng.choice(["get_weather", "get_time"])
                    turn.append(call(name, city=rng.choice(CITIES)))
            unique = list(dict.fromkeys(turn))  # one turn never asks the same call twice
            script.append(unique)
            made.extend(unique)
        script.append(rng.choice(["好的。", "Done.", "北京晴，上海多云。"]))
        cases.append(
            (
                f"hidden case {number + 1}",
                rng.choice(["天气", "weather and time", "北京 上海"]),
                lambda script=script: _scripted(script),
                rng.randint(1, 5),
            )
        )
    return cases


@exercise("05.1", notebook=NOTEBOOK, title="run_agent", points=4, targets=("run_agent",))
def check_run_agent(run_agent: Any) -> str:
    cases = _loop_cases(hidden_rng("05.1"))
    for label, question, policy, max_iterations in cases:
        case = f"run_agent(client, registry, {question!r}, model=..., max_iterations={max_iterations}) [{label}]"  # noqa: E501
        reference_client, _ = _client(policy())
        reference_registry, learner_registry = _registry(), _registry()
        expected_result = reference.run_agent(
            reference_client,
            reference_registry,
            question,
            model=CHECK_MODEL,
            max_iterations=max_iterations,
        )
        client, exchanges = _client(policy())
        got_result = _run_learner(
            run_agent,
            (client, learner_registry, question),
            {"model": CHECK_MODEL, "max_iterations": max_iterations},
            case=case,
            exchanges=exchanges,
        )
        if any(sent.request.get("model") != CHECK_MODEL for sent in exchanges):
            fail(
                case,
                CHECK_MODEL,
                exchanges[0].request.get("model"),
                "Pass model=model to create().",
            )
        expected = _view(expected_result, case)
        got = _view(got_result, case)
        as_sent = {  # the reference keeps canonical arguments; the contract asks for the string
            c["id"]: c["function"]["arguments"]
            for m in expected["messages"]
            for c in m.get("tool_calls", [])
        }
        for step in expected["steps"]:
            step["arguments"] = as_sent[step["tool_call_id"]]
        repeated = {
            step.tool_call_id
            for step in expected_result.steps
            if step.result.startswith('{"error": "Repeated call')
        }
        _mask_repeats(expected, got, repeated, case)
        sent = (reference_registry.sent, learner_registry.sent)
        _compare(case, expected, got, max_iterations, repeated=repeated, sent=sent)
    return f"{len(cases)} conversations"


# --- 05.2: fixed_loop -----------------------------------------------------------------------------


@exercise("05.2", notebook=NOTEBOOK, title="fixed_loop", points=2, targets=("fixed_loop",))
def check_fixed_loop(fixed_loop: Any) -> str:
    from course_lib.local_model import HeuristicPolicy, call

    rng = hidden_rng("05.2")
    cases: list[tuple[str, Callable[[], Any], int | None]] = [
        ("北京和上海的天气怎么样？", HeuristicPolicy, None),
        ("What is the weather in 北京, 上海 and Paris?", HeuristicPolicy, None),
        ("What time is it in London?", HeuristicPolicy, None),
        ("hello", HeuristicPolicy, None),
        ("a model that never stops calling", _Endless, 3),
    ]
    for _ in range(4):
        cities = rng.sample(CITIES, 4)
        script = [
            [call("get_weather", city=cities[0]), call("get_time", city=cities[1])],
            [call("get_time", city=c) for c in cities[2:]],
            rng.choice(["好的。", "Done."]),
        ]
        cases.append(("、".join(cities), lambda script=script: _scripted(script), None))
    for question, policy, max_turns in cases:
        limit = {} if max_turns is None else {"max_turns": max_turns}
        shown = "".join(f", {k}={v}" for k, v in limit.items())
        case = f"fixed_loop(client, registry, {question!r}, model=...{shown})"
        reference_client, _ = _client(policy())
        expected = reference.run_agent(
            reference_client,
            _registry(),
            question,
            model=CHECK_MODEL,
            max_iterations=max_turns or 6,
        )
        client, exchanges = _client(policy())
        got = _run_learner(
            fixed_loop,
            (client, _registry(), question),
            {"model": CHECK_MODEL, **limit},
            case=case,
            exchanges=exchanges,
        )
        want = _plain_messages(expected.messages, case)
        have = _plain_messages(got, case)
        _compare_messages(case, want, have, stopped=expected.stopped, limit="max_turns")
    return f"{len(cases)} conversations"


# --- 05.3: run_tool_calls -------------------------------------------------------------------------

WAIT = 1.0  # seconds a call waits for the others before deciding they do not run concurrently


class _Meeting:
    """A dispatcher whose calls only finish when all of them are running at the same time.

    Every call waits at a barrier for the whole batch; then call *i* waits until call *i + 1* has
    finished, so the last call finishes first. A sequential loop breaks the barrier (noted in
    ``sequential``) and is let through without further waiting. Names in ``failing`` raise.
    """

    def __init__(self, count: int, failing: set[str]) -> None:
        self.barrier = threading.Barrier(max(count, 1), timeout=WAIT)
        self.finished = [threading.Event() for _ in range(count)]
        self.failing = failing
        self.sequential = False
        self.arguments: list[Any] = []
        self.lock = threading.Lock()
        self.running = 0
        self.peak = 0  # the most calls running at the same time

    def schemas(self, format: str = "openai") -> list[dict]:
        return []

    def call(self, name: str, arguments: Any) -> str:
        self.arguments.append(arguments)
        parsed = json.loads(arguments) if isinstance(arguments, str) else dict(arguments)
        position = parsed["position"]
        with self.lock:
            self.running += 1
            self.peak = max(self.peak, self.running)
        try:
            try:
                self.barrier.wait()
            except threading.BrokenBarrierError:
                self.sequential = True
            if not self.sequential and position + 1 < len(self.finished):
                self.finished[position + 1].wait(WAIT)
            if name in self.failing:
                raise RuntimeError(f"{name} is down for {parsed['city']}")
            return f"{name} → {parsed['city']}"
        finally:
            with self.lock:
                self.running -= 1
            self.finished[position].set()


def _batch(rng: Random, count: int, failing_count: int) -> tuple[list[dict], set[str]]:
    names = ["get_weather", "get_time", "search_notes", "get_news"]
    calls = []
    for position in range(count):
        arguments = {"city": rng.choice(CITIES), "position": position}
        function = {
            "name": names[position % 4],
            "arguments": json.dumps(arguments, ensure_ascii=False),
        }
        call_id = "call_" + "".join(rng.choice("ABCDEFGHJKabcdefghjk0123456789") for _ in range(12))
        calls.append({"id": call_id, "type": "function", "function": function})
    failing = {c["function"]["name"] for c in rng.sample(calls, min(failing_count, count))}
    return calls, failing


def _expected_messages(calls: list[dict], failing: set[str]) -> list[dict]:
    messages = []
    for call in calls:
        name, arguments = call["function"]["name"], json.loads(call["function"]["arguments"])
        if name in failing:
            content = json.dumps(
                {"error": f"RuntimeError: {name} is down for {arguments['city']}"},
                ensure_ascii=False,
            )
        else:
            content = f"{name} → {arguments['city']}"
        messages.append({"role": "tool", "tool_call_id": call["id"], "content": content})
    return messages


def _tool_calls_hint(expected: list[dict], got: Any, calls: list[dict]) -> str:
    if not isinstance(got, list):
        return "Return a list: one tool message dict per call."
    if len(got) != len(expected):
        return "Return exactly one tool message per call, no more, no fewer."
    if not all(isinstance(m, dict) for m in got):
        return 'Each item is a dict {"role": "tool", "tool_call_id": ..., "content": ...}.'
    ids = [m.get("tool_call_id") for m in got]
    want = [m["tool_call_id"] for m in expected]
    if sorted(map(str, ids)) == sorted(want) and ids != want:
        return (
            "The messages come in the order the calls finished, not the order they were asked: "
            "collect futures in call order (pool.map, or a list of futures read in order), not "
            "with as_completed."
        )
    if any("tool_call_id" not in m for m in got):
        return 'The key is "tool_call_id" (the id of the call the message answers).'
    if any(m.get("role") != "tool" for m in got):
        return 'Each message has "role": "tool".'
    for message, wanted in zip(got, expected, strict=True):
        content = message.get("content")
        if content != wanted["content"] and _parsed(content) == _parsed(wanted["content"]):
            return (
                "The error object is right, but written with \\u escapes: pass "
                "ensure_ascii=False to json.dumps, so that text such as 北京 stays readable."
            )
        if content != wanted["content"] and _is_error_object(wanted["content"]):
            return (
                "When registry.call raises, that call's content is "
                'json.dumps({"error": f"{type(exc).__name__}: {exc}"}, ensure_ascii=False) and '
                "the other calls keep their results: catch the exception inside the function "
                "each thread runs."
            )
    return 'Each tool message is {"role": "tool", "tool_call_id": call["id"], "content": result}.'


@exercise("05.3", notebook=NOTEBOOK, title="run_tool_calls", points=3, targets=("run_tool_calls",))
def check_run_tool_calls(run_tool_calls: Any) -> str:
    rng = hidden_rng("05.3")
    batches = [_batch(rng, 3, 0), _batch(rng, 3, 1), _batch(rng, 1, 0), ([], set())]
    batches += [_batch(rng, rng.randint(1, 4), rng.choice([0, 0, 1, 2])) for _ in range(6)]
    for calls, failing in batches:
        shown = [f"{c['function']['name']}({c['function']['arguments']})" for c in calls]
        case = f"run_tool_calls(registry, [{', '.join(shown)}])" + (
            f" where {', '.join(sorted(failing))} raise(s)" if failing else ""
        )
        registry = _Meeting(len(calls), failing)
        try:
            got = run_tool_calls(registry, [json.loads(json.dumps(c)) for c in calls])
        except (NotImplementedError, CheckFailed):
            raise
        except RuntimeError as error:
            if "is down for" not in str(error):
                raise CheckFailed(f"Case: {case}\nYour code raised RuntimeError: {error}") from None
            fail(
                case,
                _expected_messages(calls, failing),
                f"RuntimeError: {error}",
                "One failing tool took the whole batch down. Catch the exception inside the "
                "function each thread runs and answer that call with "
                'json.dumps({"error": f"{type(exc).__name__}: {exc}"}, ensure_ascii=False).',
            )
        except ValueError as error:
            hint = (
                "With no calls there is nothing to run: return [] before creating a pool "
                "(ThreadPoolExecutor(max_workers=0) raises)."
                if not calls
                else "Run this case yourself in a new cell to see the full traceback."
            )
            fail(case, [], f"ValueError: {error}", hint)
        except Exception as error:
            raise learner_raised(case, error) from None
        expected = _expected_messages(calls, failing)
        if registry.sequential:
            fail(
                case,
                f"all {len(calls)} calls running at the same time",
                "the calls ran one after another"
                if registry.peak < 2
                else f"at most {registry.peak} of the {len(calls)} calls running at once",
                "Start every call before waiting for any: submit them all to a "
                "ThreadPoolExecutor(max_workers=len(tool_calls)) (one thread per call) and then "
                "collect the results.",
            )
        sent = [c["function"]["arguments"] for c in calls]
        if sorted(map(show, registry.arguments)) != sorted(map(show, sent)):
            fail(
                case,
                sent,
                registry.arguments,
                "Pass each call's arguments string to registry.call unchanged.",
            )
        expect_json_equal(
            case, expected, got, _tool_calls_hint(expected, as_json(got, case), calls)
        )
    return f"{len(batches)} batches"


# --- 05.4: collect_stream -------------------------------------------------------------------------


def _chunk(delta: dict | None, finish_reason: str | None = None, *, usage: dict | None = None):
    from openai.types.chat import ChatCompletionChunk

    choices = (
        [] if delta is None else [{"index": 0, "delta": delta, "finish_reason": finish_reason}]
    )
    data = {"id": "chatcmpl-05", "object": "chat.completion.chunk", "created": 0, "model": "m"}
    return ChatCompletionChunk.model_validate({**data, "choices": choices, "usage": usage})


def _pieces(text: str, rng: Random, most: int = 4) -> list[str]:
    cuts = sorted(rng.sample(range(1, len(text)), min(len(text) - 1, rng.randint(0, most - 1))))
    return [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)], strict=True)]


def _stream(rng: Random, text: str | None, calls: list[dict], *, usage: bool) -> list:
    """Chunks as a provider streams them: role, text pieces, call fragments interleaved by index."""
    chunks = [_chunk({"role": "assistant", "content": ""})]
    chunks += [_chunk({"content": piece}) for piece in (_pieces(text, rng) if text else [])]
    queues = []
    for index, call in enumerate(calls):
        pieces = _pieces(call["arguments"], rng)
        first_arguments = pieces.pop(0) if rng.random() < 0.3 else ""
        first = {
            "index": index,
            "id": call["id"],
            "type": "function",
            "function": {"name": call["name"], "arguments": first_arguments},
        }
        queue = [first] + [{"index": index, "function": {"arguments": p}} for p in pieces]
        queues.append(queue)
    while any(queues):
        queue = rng.choice([q for q in queues if q])
        chunks.append(_chunk({"tool_calls": [queue.pop(0)]}))
    chunks.append(_chunk({}, "tool_calls" if calls else "stop"))
    if usage:
        chunks.append(
            _chunk(None, usage={"prompt_tokens": 9, "completion_tokens": 5, "total_tokens": 14})
        )
    return chunks


def _call(rng: Random, number: int) -> dict:
    city = rng.choice(CITIES)
    name, arguments = rng.choice(
        [
            ("get_weather", {"city": city, "unit": rng.choice(["c", "f"])}),
            ("get_time", {"city": city}),
            ("search_notes", {"keyword": f"{city} 旅行", "limit": rng.randint(1, 9)}),
        ]
    )
    return {
        "id": f"call_{number}{rng.randint(1000, 9999)}",
        "name": name,
        "arguments": json.dumps(arguments, ensure_ascii=False),
    }


def _local_stream_case() -> tuple[str, list, dict]:
    """A real stream from the local model, and the non-streamed reply to the same request."""
    from course_lib.local_model import HeuristicPolicy

    request = {
        "model": CHECK_MODEL,
        "messages": [{"role": "user", "content": "What is the weather in 北京, 上海 and Paris?"}],
        "tools": _registry().schemas(),
    }
    message = _client(HeuristicPolicy())[0].chat.completions.create(**request).choices[0].message
    chunks = list(_client(HeuristicPolicy())[0].chat.completions.create(**request, stream=True))
    calls = [
        {"id": c.id, "name": c.function.name, "arguments": c.function.arguments}
        for c in message.tool_calls or []
    ]
    return (
        "a stream from the local model (three parallel calls)",
        chunks,
        {
            "content": message.content,
            "tool_calls": calls,
        },
    )


def _stream_cases(rng: Random) -> list[tuple[str, list, dict]]:
    cases = []
    two = [
        {"id": "call_a", "name": "get_weather", "arguments": '{"city": "北京"}'},
        {"id": "call_b", "name": "get_time", "arguments": '{"city": "上海"}'},
    ]
    fixed = Random(5)
    cases.append(
        (
            "text only",
            _stream(fixed, "北京今天晴，最高 31 度。", [], usage=False),
            {"content": "北京今天晴，最高 31 度。", "tool_calls": []},
        )
    )
    chunks = _stream(fixed, None, two, usage=False)
    interleaved = [chunks[0], *_interleave_two(chunks[1:-1]), chunks[-1]]
    cases.append(
        ("two calls whose fragments interleave", interleaved, {"content": None, "tool_calls": two})
    )
    cases.append(_local_stream_case())
    later_first = [chunks[0], *_later_index_first(chunks[1:-1]), chunks[-1]]
    cases.append(
        ("index 1 starts before index 0", later_first, {"content": None, "tool_calls": two})
    )
    cases.append(
        (
            "text, one call and a final usage chunk without choices",
            _stream(fixed, "Let me check.", two[:1], usage=True),
            {"content": "Let me check.", "tool_calls": two[:1]},
        )
    )
    for number in range(10):
        calls = [_call(rng, n) for n in range(rng.randint(0, 4))]
        text = rng.choice([None, None, "好的，我查一下。", "Checking the weather for you."])
        if not calls and text is None:
            text = "北京晴。"
        chunks = _stream(rng, text, calls, usage=rng.random() < 0.5)
        cases.append(
            (f"hidden stream {number + 1}", chunks, {"content": text, "tool_calls": calls})
        )
    return cases


def _interleave_two(fragments: list) -> list:
    """Start both calls, then alternate their argument fragments, index 1 first."""
    by_index: dict[int, list] = {0: [], 1: []}
    for chunk in fragments:
        by_index[chunk.choices[0].delta.tool_calls[0].index].append(chunk)
    order = [by_index[0].pop(0), by_index[1].pop(0)]
    while by_index[0] or by_index[1]:
        for index in (1, 0):
            if by_index[index]:
                order.append(by_index[index].pop(0))
    return order


def _later_index_first(fragments: list) -> list:
    by_index: dict[int, list] = {0: [], 1: []}
    for chunk in fragments:
        by_index[chunk.choices[0].delta.tool_calls[0].index].append(chunk)
    return by_index[1] + by_index[0]


def _stream_hint(expected: dict, got: Any) -> str:
    if not isinstance(got, dict) or "tool_calls" not in got or "content" not in got:
        return (
            'Return a dict {"content": text or None, "tool_calls": [{"id", "name", "arguments"}]}.'
        )
    if expected["content"] is None and got["content"] == "":
        return 'content is None when no text arrived (as in a non-streamed reply), not "".'
    if expected["content"] != got["content"]:
        return "content is every delta.content piece joined in arrival order (skip None)."
    calls = got["tool_calls"]
    if not isinstance(calls, list):
        return "tool_calls is a list ordered by index, not a dict."
    want = expected["tool_calls"]
    if len(calls) != len(want):
        return (
            "One entry per index: a new call starts when a fragment brings an index you have "
            "not seen; later fragments of the same index continue it."
        )
    if any(not isinstance(c, dict) for c in calls):
        return 'Each tool call is a dict {"id": ..., "name": ..., "arguments": ...}.'
    if any(not c.get("id") or not c.get("name") for c in calls):
        return (
            "The id and name arrive only in a call's first fragment; later fragments carry "
            "id=None and name=None. Keep the first values (do not overwrite them with None)."
        )
    got_ids = [c.get("id") for c in calls]
    want_ids = [c["id"] for c in want]
    if got_ids != want_ids and sorted(got_ids) == sorted(want_ids):
        return "Order the tool calls by their index, not by when their first fragment arrived."
    pieces = sorted("".join(c.get("arguments") or "" for c in calls))
    if pieces == sorted("".join(c["arguments"] for c in want)):
        return (
            "The argument fragments were joined in arrival order: fragments of different calls "
            "interleave, so add each fragment to the call with the same index."
        )
    return "Each call's arguments are all its fragments' arguments joined, in arrival order."


@exercise("05.4", notebook=NOTEBOOK, title="collect_stream", points=3, targets=("collect_stream",))
def check_collect_stream(collect_stream: Any) -> str:
    cases = _stream_cases(hidden_rng("05.4"))
    for label, chunks, expected in cases:
        case = f"collect_stream(<{len(chunks)} chunks: {label}>)"
        try:
            got = collect_stream(iter(chunks))
        except (NotImplementedError, CheckFailed):
            raise
        except Exception as error:
            fail(case, expected, f"{type(error).__name__}: {error}", _crash_hint(error, chunks))
        if isinstance(got, dict):  # other keys (finish_reason, usage) are the learner's choice
            got = {k: got[k] for k in ("content", "tool_calls") if k in got}
        plain = as_json(got, f"The result of {case}")
        expect_json_equal(case, expected, plain, _stream_hint(expected, plain))
    return f"{len(cases)} streams"


def _crash_hint(error: Exception, chunks: list) -> str:
    if isinstance(error, IndexError) and any(not c.choices for c in chunks):
        return (
            "The last chunk of a stream with usage has an empty choices list: skip chunks "
            "without choices."
        )
    if isinstance(error, TypeError) and "NoneType" in str(error):
        return (
            "Fields a fragment does not carry are None (delta.content, a later fragment's id, "
            "name and even function): check for None before joining."
        )
    return "Run this case yourself in a new cell to see the full traceback."


__all__ = ["check_collect_stream", "check_fixed_loop", "check_run_agent", "check_run_tool_calls"]
