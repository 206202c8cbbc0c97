"""The reference agent loop, driven through the real ``openai`` SDK against the local model.

The model is the in-process local model (``make_client``), a scripted policy where a test needs
exact turns, and once the HTTP server on loopback reached through ``COURSE_BACKEND=openai``.
Concurrency is proved with a ``threading.Barrier`` that only opens when every call of a turn is
running at the same time, never with timings.
"""

from __future__ import annotations

import json
import threading
from typing import Any

import openai
import pytest

from course_lib.local_model import HeuristicPolicy, ScriptedPolicy, call, make_client
from course_lib.local_model.client import model_name
from course_lib.local_model.server import serve
from course_lib.local_model.turns import ChatRequest, ToolCall, Turn
from course_lib.reference import ToolRegistry
from course_lib.reference.loop import AgentResult, run_agent, run_tool_calls, tool_message

MODEL = "local-toy"
WEATHER = {"北京": (31, "晴"), "上海": (27, "多云"), "Paris": (22, "cloudy")}
THREE_CITIES = "What is the weather in 北京, 上海 and Paris?"


def weather_registry() -> ToolRegistry:
    registry = ToolRegistry()

    @registry.tool
    def get_weather(city: str) -> dict:
        """Current weather in a city."""
        temperature, sky = WEATHER[city]
        return {"city": city, "temperature": temperature, "sky": sky}

    @registry.tool
    def get_time(city: str) -> str:
        """The local time in a city."""
        return f"12:00 in {city}"

    return registry


class Recording:
    """A policy that remembers every request it answered, then lets ``inner`` answer it."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.requests: list[ChatRequest] = []

    def respond(self, request: ChatRequest) -> Turn:
        self.requests.append(request)
        return self.inner.respond(request)


class Endless:
    """A model that never answers: every turn asks for the weather in one more new place."""

    def respond(self, request: ChatRequest) -> Turn:
        turn = sum(1 for m in request.messages if m["role"] == "assistant")
        return Turn(None, (ToolCall.of("get_time", {"city": f"City {turn}"}),))


def roles(result: AgentResult) -> list[str]:
    return [message["role"] for message in result.messages]


def assert_every_call_answered_in_order(messages: list[dict]) -> None:
    """After each assistant message with calls come exactly its tool messages, in call order."""
    for index, message in enumerate(messages):
        if message["role"] == "assistant" and message.get("tool_calls"):
            ids = [c["id"] for c in message["tool_calls"]]
            following = messages[index + 1 : index + 1 + len(ids)]
            assert [m["role"] for m in following] == ["tool"] * len(ids)
            assert [m["tool_call_id"] for m in following] == ids


# --- the shape of the conversation -------------------------------------------------------------


def test_stops_on_the_final_answer_when_no_tool_is_needed():
    result = run_agent(make_client(), weather_registry(), "hello", model=MODEL)
    assert result.stopped == "answer"
    assert result.steps == []
    assert roles(result) == ["user", "assistant"]
    assert result.answer == result.messages[-1]["content"] and result.answer


def test_appends_one_assistant_message_per_turn_however_many_calls_it_holds():
    result = run_agent(make_client(), weather_registry(), THREE_CITIES, model=MODEL)
    assert roles(result) == ["user", "assistant", "tool", "tool", "tool", "assistant"]
    assert len(result.messages[1]["tool_calls"]) == 3
    assert result.messages[1]["content"] is None
    assert result.stopped == "answer"


def test_answers_every_call_in_call_order_with_matching_ids():
    result = run_agent(make_client(), weather_registry(), THREE_CITIES, model=MODEL)
    assert_every_call_answered_in_order(result.messages)
    cities = [json.loads(m["content"])["city"] for m in result.messages if m["role"] == "tool"]
    assert cities == ["北京", "上海", "Paris"]
    assert [step.tool_call_id for step in result.steps] == [
        c["id"] for c in result.messages[1]["tool_calls"]
    ]
    assert "31" in result.answer and "多云" in result.answer


def test_the_final_conversation_is_accepted_by_the_model_when_sent_again():
    result = run_agent(make_client(), weather_registry(), "北京和上海的天气怎么样？", model=MODEL)
    follow_up = [*result.messages, {"role": "user", "content": "谢谢"}]
    reply = make_client().chat.completions.create(model=MODEL, messages=follow_up)
    assert reply.choices[0].message.content


def test_chinese_text_stays_readable_in_tool_messages():
    result = run_agent(make_client(), weather_registry(), "北京的天气怎么样？", model=MODEL)
    assert '"北京"' in result.messages[2]["content"]
    assert "\\u" not in result.messages[2]["content"]


# --- running the calls ---------------------------------------------------------------------


def barrier_registry(parties: int) -> ToolRegistry:
    """Each call waits until ``parties`` calls are inside a tool at once (or breaks after 5 s)."""
    barrier = threading.Barrier(parties, timeout=60)
    registry = ToolRegistry()

    @registry.tool
    def get_weather(city: str) -> str:
        """Current weather in a city."""
        barrier.wait()
        return f"sunny in {city}"

    return registry


def test_calls_of_one_turn_run_concurrently():
    result = run_agent(make_client(), barrier_registry(3), THREE_CITIES, model=MODEL)
    contents = [m["content"] for m in result.messages if m["role"] == "tool"]
    assert contents == ["sunny in 北京", "sunny in 上海", "sunny in Paris"]


def test_run_tool_calls_keeps_call_order_when_later_calls_finish_first():
    done = {city: threading.Event() for city in ("a", "b", "c")}
    registry = ToolRegistry()

    @registry.tool
    def lookup(city: str) -> str:
        """Finish only after the next city has finished: c, then b, then a."""
        following = {"a": "b", "b": "c"}.get(city)
        if following:
            assert done[following].wait(timeout=60), "calls did not run concurrently"
        done[city].set()
        return city.upper()

    calls = [as_dict(f"id_{city}", "lookup", {"city": city}) for city in ("a", "b", "c")]
    messages = run_tool_calls(registry, calls)
    assert messages == [tool_message(f"id_{c}", c.upper()) for c in ("a", "b", "c")]


def as_dict(call_id: str, name: str, arguments: dict) -> dict:
    function = {"name": name, "arguments": json.dumps(arguments, ensure_ascii=False)}
    return {"id": call_id, "type": "function", "function": function}


def test_one_raising_dispatcher_call_does_not_affect_the_others():
    class Fragile:
        def schemas(self, format: str = "openai") -> list[dict]:
            return []

        def call(self, name: str, arguments: Any) -> str:
            if name == "broken":
                raise RuntimeError("disk on fire")
            return f"{name} ok"

    calls = [as_dict("1", "first", {}), as_dict("2", "broken", {}), as_dict("3", "third", {})]
    messages = run_tool_calls(Fragile(), calls)
    assert [m["tool_call_id"] for m in messages] == ["1", "2", "3"]
    assert messages[0]["content"] == "first ok" and messages[2]["content"] == "third ok"
    assert json.loads(messages[1]["content"]) == {"error": "RuntimeError: disk on fire"}


def test_a_tool_that_raises_becomes_an_error_result_and_the_loop_goes_on():
    registry = weather_registry()
    client = make_client(
        ScriptedPolicy([[call("get_weather", city="火星"), call("get_time", city="上海")], "done"])
    )
    result = run_agent(client, registry, "火星和上海", model=MODEL)
    assert result.stopped == "answer" and result.answer == "done"
    assert "error" in json.loads(result.steps[0].result)
    assert result.steps[1].result == "12:00 in 上海"


def test_run_tool_calls_with_no_calls_returns_an_empty_list():
    assert run_tool_calls(weather_registry(), []) == []


# --- stopping ------------------------------------------------------------------------------


def test_a_repeated_identical_call_stops_the_loop_and_is_still_answered():
    weather = call("get_weather", city="北京")
    client = make_client(ScriptedPolicy([weather, [call("get_time", city="北京"), weather], "x"]))
    result = run_agent(client, weather_registry(), "北京", model=MODEL)
    assert result.stopped == "repeated_call" and result.answer is None
    assert roles(result) == ["user", "assistant", "tool", "assistant", "tool", "tool"]
    assert_every_call_answered_in_order(result.messages)
    assert result.messages[4]["content"] == "12:00 in 北京"  # the fresh call still ran
    assert "Repeated call" in json.loads(result.messages[5]["content"])["error"]
    assert [step.turn for step in result.steps] == [1, 2, 2]
    # The conversation is still valid: the model accepts it as it is.
    make_client().chat.completions.create(model=MODEL, messages=result.messages)


def test_a_repeat_is_recognised_whatever_the_key_order_and_spacing_of_its_arguments():
    first = ToolCall("get_weather", '{"city": "上海", "unit": "c"}')
    again = ToolCall("get_weather", '{"unit":"c","city":"上海"}')
    client = make_client(ScriptedPolicy([first, again, "x"]))
    assert run_agent(client, weather_registry(), "上海", model=MODEL).stopped == "repeated_call"


def test_the_same_tool_with_other_arguments_is_not_a_repeat():
    script = [call("get_weather", city="北京"), call("get_weather", city="上海"), "晴，多云"]
    client = make_client(ScriptedPolicy(script))
    result = run_agent(client, weather_registry(), "北京，然后上海", model=MODEL)
    assert (result.stopped, result.answer, len(result.steps)) == ("answer", "晴，多云", 2)


def test_stops_after_max_iterations_model_turns():
    policy = Recording(Endless())
    result = run_agent(make_client(policy), weather_registry(), "go", model=MODEL, max_iterations=4)
    assert result.stopped == "max_iterations" and result.answer is None
    assert len(policy.requests) == 4
    assert roles(result).count("assistant") == 4
    assert_every_call_answered_in_order(result.messages)


def test_an_answer_on_the_last_allowed_turn_is_an_answer():
    script = [call("get_time", city="北京"), call("get_time", city="上海"), "done"]
    client = make_client(ScriptedPolicy(script))
    result = run_agent(client, weather_registry(), "time", model=MODEL, max_iterations=3)
    assert (result.stopped, result.answer) == ("answer", "done")
    client = make_client(ScriptedPolicy(script))
    result = run_agent(client, weather_registry(), "time", model=MODEL, max_iterations=2)
    assert (result.stopped, result.answer) == ("max_iterations", None)


def test_max_iterations_below_one_is_refused_with_a_clear_error():
    with pytest.raises(ValueError, match="at least 1"):
        run_agent(make_client(), weather_registry(), "hi", model=MODEL, max_iterations=0)


# --- tool_choice and parallel_tool_calls ----------------------------------------------------


def run_recorded(question: str, **options: Any) -> tuple[AgentResult, list[ChatRequest]]:
    policy = Recording(HeuristicPolicy())
    result = run_agent(make_client(policy), weather_registry(), question, model=MODEL, **options)
    return result, policy.requests


def test_tool_choice_auto_lets_the_model_decide():
    result, requests = run_recorded("北京的天气怎么样？")
    assert [r.tool_choice for r in requests] == ["auto", "auto"]
    assert [s.name for s in result.steps] == ["get_weather"]


def test_tool_choice_none_gets_an_answer_without_calls():
    result, requests = run_recorded("北京的天气怎么样？", tool_choice="none")
    assert [r.tool_choice for r in requests] == ["none"]
    assert result.steps == [] and result.stopped == "answer"


def test_tool_choice_required_forces_a_call_on_the_first_turn_only():
    result, requests = run_recorded("Paris weather please", tool_choice="required")
    assert [r.tool_choice for r in requests] == ["required", "auto"]
    assert len(result.steps) == 1 and result.stopped == "answer"


def test_a_named_tool_choice_forces_that_tool_on_the_first_turn_only():
    named = {"type": "function", "function": {"name": "get_time"}}
    result, requests = run_recorded("What is the weather in 上海?", tool_choice=named)
    assert [r.tool_choice for r in requests] == [{"name": "get_time"}, "auto"]
    assert [s.name for s in result.steps] == ["get_time"]
    assert result.stopped == "answer"


def test_parallel_tool_calls_false_gives_one_call_per_turn():
    result, requests = run_recorded(THREE_CITIES, parallel_tool_calls=False)
    assert [r.parallel_tool_calls for r in requests] == [False] * 4
    assert [s.turn for s in result.steps] == [1, 2, 3]
    assistants = [m for m in result.messages if m["role"] == "assistant"]
    assert [len(m.get("tool_calls", [])) for m in assistants] == [1, 1, 1, 0]


def test_system_message_comes_first():
    result = run_agent(make_client(), weather_registry(), "hi", model=MODEL, system="Be brief.")
    assert result.messages[0] == {"role": "system", "content": "Be brief."}


# --- streaming and real endpoints ----------------------------------------------------------


@pytest.mark.parametrize(
    "question", [THREE_CITIES, "北京和上海的天气怎么样？", "hello", "What time is it in Paris?"]
)
def test_the_streaming_variant_gives_the_same_result(question):
    plain = run_agent(make_client(), weather_registry(), question, model=MODEL)
    streamed = run_agent(make_client(), weather_registry(), question, model=MODEL, stream=True)
    assert streamed == plain


def test_over_http_the_loop_gives_the_same_result_as_in_process():
    with serve() as server:
        client = openai.OpenAI(api_key="unused", base_url=server.base_url, max_retries=0)
        over_http = run_agent(client, weather_registry(), THREE_CITIES, model=MODEL)
    assert over_http == run_agent(make_client(), weather_registry(), THREE_CITIES, model=MODEL)


def test_the_same_code_runs_against_a_real_endpoint_configuration(monkeypatch):
    with serve() as server:
        monkeypatch.setenv("COURSE_BACKEND", "openai")
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-stand-in")
        client = make_client()
        assert str(client.base_url).rstrip("/") == server.base_url
        for stream in (False, True):
            result = run_agent(
                client, weather_registry(), THREE_CITIES, model=model_name(), stream=stream
            )
            assert result.stopped == "answer" and len(result.steps) == 3
            assert_every_call_answered_in_order(result.messages)


def test_a_protocol_error_from_the_model_reaches_the_caller_as_bad_request():
    named = {"type": "function", "function": {"name": "no_such_tool"}}
    with pytest.raises(openai.BadRequestError, match="no_such_tool"):
        run_agent(make_client(), weather_registry(), "x", model=MODEL, tool_choice=named)


def test_a_step_keeps_the_arguments_exactly_as_the_model_sent_them():
    sent = '{"unit": "c",   "city": "北京"}'
    client = make_client(ScriptedPolicy([[ToolCall("get_weather", sent)], "done"]))
    registry = ToolRegistry()

    @registry.tool
    def get_weather(city: str, unit: str = "c") -> str:
        """Weather in a city."""
        return "晴"

    result = run_agent(client, registry, "北京?", model=MODEL)
    assert result.steps[0].arguments == sent
