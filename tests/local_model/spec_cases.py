"""A deterministic, broad set of requests for the spec-conformance test (``spec_cases``).

:func:`play` sends, through a ``send(method, path, body, headers)``, for every model in
:data:`MODELS` and each of the three APIs: requests drawn from a seeded product of questions
(English and Chinese), tool sets (none, several, strict), tool choices (modes, named, allowed
tools), streaming, token limits (tight enough to cut text and forced calls), stop sequences,
``n`` and accepted-but-unused options; then, for every non-streamed reply that called tools,
the round trip that answers the calls (Chat tool messages, Responses ``previous_response_id``
and whole input, Anthropic ``tool_result`` blocks). Every request and reply is kept as an
:class:`Exchange` for the checks in ``spec_check.py``.

**Adding a model** (a reasoning model, say): append its name to :data:`MODELS`; every request
above is then also made with it. Requests only that model understands (``reasoning``,
``thinking``, ``include``...) go in a function ``(model) -> Iterator[Request]`` appended to
:data:`EXTRA_REQUESTS`; their replies and events are checked like all the others.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import local_model_fixtures as fixtures

from course_lib.local_model import MODEL
from course_lib.local_model.reasoning import REASONING_MODEL

Send = Callable[[str, str, bytes, dict[str, str]], tuple[int, str, bytes]]
ANTHROPIC = {"anthropic-version": "2023-06-01", "content-type": "application/json"}
JSON = {"content-type": "application/json"}
PATHS = {
    "chat": "/v1/chat/completions",
    "responses": "/v1/responses",
    "messages": "/v1/messages",
}
MODELS = [MODEL, REASONING_MODEL]
SEED = 2026
DRAWS = 40  # requests drawn per API and model, besides the fixed ones

QUESTIONS = [
    "What's the weather in Beijing and 上海?",
    "北京今天天气怎么样？",
    "Find my notes about 'tax return', at most 3.",
    "把100美元换算成人民币",
    "Hello!",
    "Tell me a joke about databases.",
]
TOOLS = {
    "none": [],
    "several": [fixtures.WEATHER, fixtures.NOTES, fixtures.CONVERT],
    "strict": [fixtures.STRICT_WEATHER, fixtures.NOTES],
}


@dataclass(frozen=True)
class Request:
    api: str  # "chat", "responses" or "messages"
    label: str
    body: dict[str, Any]


@dataclass(frozen=True)
class Exchange:
    api: str
    label: str
    body: dict[str, Any]
    status: int
    content_type: str
    reply: bytes

    @property
    def streamed(self) -> bool:
        return self.content_type.startswith("text/event-stream")


EXTRA_REQUESTS: list[Callable[[str], Iterator[Request]]] = []


def _reasoning_requests(model: str) -> Iterator[Request]:
    """What reasoning models read (the default model is asked too: it must ignore them)."""
    for stream in (False, True):
        for question in (QUESTIONS[0], QUESTIONS[5]):
            yield request(
                "chat", model, question, "several", "auto", stream=stream, reasoning_effort="low"
            )
            yield request(
                "responses",
                model,
                question,
                "several",
                "auto",
                stream=stream,
                reasoning={"effort": "high", "summary": "auto"},
                include=["reasoning.encrypted_content"],
                store=False,
            )
            yield request(
                "responses",
                model,
                question,
                "several",
                "required",
                stream=stream,
                reasoning={"effort": "minimal"},
            )
            for thinking in (
                {"type": "enabled", "budget_tokens": 1024},
                {"type": "adaptive"},
                {"type": "disabled"},
            ):
                yield request(
                    "messages",
                    model,
                    question,
                    "several",
                    "auto",
                    stream=stream,
                    max_tokens=2048,
                    thinking=thinking,
                )


EXTRA_REQUESTS.append(_reasoning_requests)


# -- the three APIs' spellings ---------------------------------------------------------------------


def _tools(api: str, tools: list[dict]) -> list[dict]:
    if api == "chat":
        return tools
    if api == "responses":
        return [fixtures.flat(tool) for tool in tools]
    return [fixtures.for_anthropic(tool) for tool in tools]


def _choice(api: str, kind: str, tools: list[dict]) -> Any:
    names = [tool["function"]["name"] for tool in tools]
    if kind in ("auto", "none", "required"):
        return {"type": {"required": "any"}.get(kind, kind)} if api == "messages" else kind
    if kind == "named":
        if api == "chat":
            return {"type": "function", "function": {"name": names[-1]}}
        if api == "responses":
            return {"type": "function", "name": names[-1]}
        return {"type": "tool", "name": names[-1]}
    if api == "messages":  # Anthropic has no allowed-tools choice: any tool of the set
        return {"type": "any"}
    mode = "required" if len(names) % 2 else "auto"  # allowed tools: the first two
    if api == "chat":
        allowed = [{"type": "function", "function": {"name": n}} for n in names[:2]]
        return {"type": "allowed_tools", "allowed_tools": {"mode": mode, "tools": allowed}}
    return {
        "type": "allowed_tools",
        "mode": mode,
        "tools": [{"type": "function", "name": n} for n in names[:2]],
    }


def _limit(api: str, kind: str) -> dict[str, Any]:
    """The request fields of a limit: ``tight`` cuts text and forced calls; ``stop`` ends the
    text at a word every reply of the model has (the second when a sequence is a word list)."""
    if kind == "tight":
        return {
            "chat": {"max_completion_tokens": 4},
            "responses": {"max_output_tokens": 16},
            "messages": {"max_tokens": 5},
        }[api]
    if kind == "stop":
        if api == "chat":
            return {"stop": ["tool", "工具"]}
        if api == "messages":
            return {"stop_sequences": ["tool", "工具"]}
    return {}


def request(api: str, model: str, question: str, tools: str, choice: str, **extra) -> Request:
    """One request of ``api`` asking ``question`` with a tool set and a tool choice."""
    functions = TOOLS[tools]
    if api == "chat":
        body: dict[str, Any] = {"model": model, "messages": fixtures.user(question)}
    elif api == "responses":
        body = {"model": model, "input": question}
    else:
        body = {"model": model, "max_tokens": 1024, "messages": fixtures.user(question)}
    if functions:
        body["tools"] = _tools(api, functions)
        if choice != "auto":
            body["tool_choice"] = _choice(api, choice, functions)
    body.update(extra)
    label = f"{api} {model} {tools} {choice} {question[:12]!r} {sorted(extra)}"
    return Request(api, label, body)


def requests_for(model: str) -> Iterator[Request]:
    """The fixed requests (each limit, streamed and not, on each API), then the drawn ones."""
    for api in PATHS:
        for stream in (False, True):
            for kind in ("tight", "stop"):
                yield request(
                    api, model, QUESTIONS[5], "none", "auto", stream=stream, **_limit(api, kind)
                )
                yield request(
                    api,
                    model,
                    QUESTIONS[0],
                    "several",
                    "required",
                    stream=stream,
                    **_limit(api, kind),
                )
    yield request(
        "chat",
        model,
        QUESTIONS[0],
        "several",
        "auto",
        n=3,
        stream=True,
        stream_options={"include_usage": True},
    )
    yield request("chat", model, QUESTIONS[1], "several", "auto", n=2, service_tier="flex")
    yield request(
        "responses",
        model,
        QUESTIONS[1],
        "several",
        "auto",
        truncation="auto",
        service_tier="priority",
        metadata={"k": "v"},
        store=False,
        temperature=0.5,
    )
    yield request(
        "messages",
        model,
        QUESTIONS[1],
        "several",
        "auto",
        system="Be brief.",
        metadata={"user_id": "u-1"},
        service_tier="standard_only",
        inference_geo="us",
        temperature=0.2,
        top_k=5,
    )
    person = {
        "type": "object",
        "properties": {"name": {"type": "string"}, "city": {"type": ["string", "null"]}},
        "required": ["name", "city"],
        "additionalProperties": False,
    }
    spec = {"name": "Person", "schema": person, "strict": True}
    for stream in (False, True):
        yield request(
            "chat",
            model,
            "Alice lives in Paris.",
            "none",
            "auto",
            stream=stream,
            response_format={"type": "json_schema", "json_schema": spec},
        )
        yield request(
            "chat",
            model,
            "Reply in json: Alice.",
            "several",
            "none",
            stream=stream,
            response_format={"type": "json_object"},
        )
        yield request(
            "responses",
            model,
            "张三住在北京。",
            "none",
            "auto",
            stream=stream,
            text={"format": {"type": "json_schema", **spec}},
        )
        yield request(
            "responses",
            model,
            "Reply in json: Alice.",
            "several",
            "none",
            stream=stream,
            text={"format": {"type": "json_object"}},
        )
    rng = random.Random(f"{SEED} {model}")
    for api in PATHS:
        for _ in range(DRAWS):
            tools = rng.choice(list(TOOLS))
            choice = rng.choice(["auto", "auto", "none", "required", "named", "allowed"])
            extra: dict[str, Any] = {"stream": rng.random() < 0.5}
            extra.update(_limit(api, rng.choice(["", "", "tight", "stop"])))
            if api == "chat" and rng.random() < 0.3:
                extra["n"] = rng.choice([2, 3])
            if api == "chat" and extra["stream"] and rng.random() < 0.5:
                extra["stream_options"] = {"include_usage": True}
            yield request(
                api,
                model,
                rng.choice(QUESTIONS),
                tools,
                "auto" if tools == "none" else choice,
                **extra,
            )
    for make in EXTRA_REQUESTS:
        yield from make(model)


# -- playing them ----------------------------------------------------------------------------------


def _result(name: str, arguments: Any) -> str:
    return json.dumps({"tool": name, "arguments": arguments, "ok": "晴"}, ensure_ascii=False)


def follow_ups(exchange: Exchange) -> Iterator[Request]:
    """The round trips answering a non-streamed reply's calls."""
    if exchange.streamed or exchange.status != 200:
        return
    reply, body = json.loads(exchange.reply), exchange.body
    if exchange.api == "chat":
        message = reply["choices"][0]["message"]
        calls = message.get("tool_calls") or []
        results = [
            {
                "role": "tool",
                "tool_call_id": c["id"],
                "content": _result(c["function"]["name"], c["function"]["arguments"]),
            }
            for c in calls
        ]
        if calls and reply["choices"][0]["finish_reason"] == "tool_calls":
            messages = body["messages"] + [message] + results
            yield Request(
                "chat",
                exchange.label + " results",
                {**body, "messages": messages, "tool_choice": "auto"},
            )
    elif exchange.api == "responses":
        calls = [item for item in reply["output"] if item["type"] == "function_call"]
        if calls and reply["status"] == "completed" and body.get("store") is not False:
            outputs = [
                {
                    "type": "function_call_output",
                    "call_id": c["call_id"],
                    "output": _result(c["name"], c["arguments"]),
                }
                for c in calls
            ]
            yield Request(
                "responses",
                exchange.label + " previous",
                {
                    "model": body["model"],
                    "tools": body["tools"],
                    "previous_response_id": reply["id"],
                    "input": outputs,
                },
            )
    else:
        uses = [block for block in reply["content"] if block["type"] == "tool_use"]
        if uses and reply["stop_reason"] == "tool_use":
            results = [
                {
                    "type": "tool_result",
                    "tool_use_id": u["id"],
                    "content": _result(u["name"], u["input"]),
                }
                for u in uses
            ]
            messages = body["messages"] + [
                {"role": "assistant", "content": reply["content"]},
                {"role": "user", "content": results},
            ]
            yield Request(
                "messages",
                exchange.label + " results",
                {**body, "messages": messages, "tool_choice": {"type": "auto"}},
            )


def exchange(send: Send, req: Request) -> Exchange:
    headers = ANTHROPIC if req.api == "messages" else JSON
    raw = json.dumps(req.body, ensure_ascii=False).encode()
    status, kind, data = send("POST", PATHS[req.api], raw, headers)
    return Exchange(req.api, req.label, req.body, status, kind, data)


def play(send: Send) -> list[Exchange]:
    """Every request of every model through ``send``, round trips included, in order."""
    done: list[Exchange] = []
    for model in MODELS:
        for req in requests_for(model):
            first = exchange(send, req)
            done.append(first)
            done.extend(exchange(send, follow) for follow in follow_ups(first))
    return done
