"""A corpus of varied requests for the three APIs, played in order against one endpoint.

Used to prove that a change to how the local model works (caches, faster encoding) leaves every
reply byte-identical: the same corpus played on a fresh endpoint must give the same bytes, with
caches cold or warm, in process or over HTTP. It covers what the model does: tool choice in
English and Chinese, arguments by role, clarifying questions, ambiguity, forced and named tool
choices, strict and non-strict tools (and the Responses API's strict-by-default), structured
outputs, tool-result round trips (``previous_response_id`` and Anthropic ``tool_result``
blocks), streaming with and without usage, and the 400s for broken requests.

:func:`play` takes a ``send(method, path, body, headers) -> (status, content type, bytes)``
and returns one ``(label, status, content type, bytes)`` per request. Follow-up requests are
built from the replies (call ids, ``previous_response_id``), so a change in one reply shows up
in the ones after it too.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import local_model_fixtures as fixtures

Send = Callable[[str, str, bytes, dict[str, str]], tuple[int, str, bytes]]
ANTHROPIC_HEADERS = {"anthropic-version": "2023-06-01", "content-type": "application/json"}
JSON_HEADERS = {"content-type": "application/json"}
MODEL = "local-toy"
# The tools the other local-model tests use, as flat functions (the Chat Completions wrapper off).
WEATHER, NOTES, CONVERT, CALC, EMAIL, TIME = (
    tool["function"]
    for tool in (
        fixtures.WEATHER,
        fixtures.NOTES,
        fixtures.CONVERT,
        fixtures.CALC,
        fixtures.EMAIL,
        fixtures.TIME,
    )
)


def _function(name: str, description: str, properties: dict, required: list[str]) -> dict:
    return fixtures.tool(name, description, properties, required)["function"]


UNITS = _function(
    "convert_length",
    "Convert a length from one unit to another.",
    {
        "value": {"type": "number"},
        "source": {"type": "string", "enum": ["km", "miles", "m", "ft"]},
        "target": {"type": "string", "enum": ["km", "miles", "m", "ft"]},
    },
    ["value", "source", "target"],
)
BOOKING = _function(
    "book_trip",
    "Book a hotel trip to a city.",
    {
        "trip": {
            "type": "object",
            "properties": {
                "city": {"type": "string"},
                "nights": {"type": "integer", "default": 1},
                "guests": {"type": ["integer", "null"]},
            },
            "required": ["city"],
        },
        "stops": {"type": "array", "items": {"$ref": "#/$defs/Stop"}},
        "note": {"anyOf": [{"type": "string"}, {"type": "null"}]},
    },
    ["trip"],
)
BOOKING["parameters"]["$defs"] = {
    "Stop": {"type": "object", "properties": {"name": {"type": "string"}}}
}
OPEN_MAP = _function(
    "tag_notes",
    "Attach tags to notes.",
    {"labels": {"type": "object", "additionalProperties": {"type": "string"}}},
    ["labels"],
)
STRICT_WEATHER = {
    "name": "get_weather",
    "description": "Get the current weather for a city.",
    "parameters": {
        "type": "object",
        "properties": {
            "city": {"type": "string", "description": "City name"},
            "unit": {"type": ["string", "null"], "enum": ["c", "f", None]},
            "days": {"type": "integer", "default": 1},
        },
        "required": ["city", "unit", "days"],
        "additionalProperties": False,
    },
    "strict": True,
}
NO_PARAMETERS = {"name": "get_date", "description": "Get today's date."}
TOOL_SETS = {
    "weather+notes": [WEATHER, NOTES],
    "many": [WEATHER, NOTES, CONVERT, UNITS, CALC, EMAIL, TIME],
    "nested": [BOOKING, OPEN_MAP, NO_PARAMETERS],
    "strict": [STRICT_WEATHER, NOTES],
    "none": [],
}
QUESTIONS = [
    "What's the weather in Beijing and 上海?",
    "北京今天天气怎么样？",
    "Find my notes about 'tax return', at most 3.",
    "Convert 100 USD to CNY.",
    "把100美元换算成人民币",
    "Convert 12 km to miles",
    "What is 12 * (3 + 4)?",
    "Email Alice about the meeting.",
    "What time is it in Tokyo? Then find notes about travel.",
    "What's the weather?",
    "Hello!",
    "你好",
    "Book 3 nights in Paris for 2 guests, stops at the Louvre.",
    "Tell me a joke about databases.",
    "上海和深圳的天气，还有东京的时间",
]
STRUCTURED = {
    "type": "object",
    "properties": {
        "name": {"type": "string"},
        "city": {"type": "string"},
        "age": {"type": ["integer", "null"]},
        "tags": {"type": "array", "items": {"type": "string"}},
        "level": {"enum": ["low", "high"]},
    },
    "required": ["name", "city", "age", "tags", "level"],
    "additionalProperties": False,
}
STRUCTURED_QUESTIONS = ["Alice is 30 and lives in Paris.", "张三住在北京，今年30岁。", "hello"]


def chat_tools(functions: list[dict]) -> list[dict]:
    return [{"type": "function", "function": f} for f in functions]


def responses_tools(functions: list[dict]) -> list[dict]:
    return [{"type": "function", **f} for f in functions]


def anthropic_tools(functions: list[dict]) -> list[dict]:
    return [
        {
            "name": f["name"],
            "description": f.get("description", ""),
            "input_schema": f.get("parameters", {"type": "object", "properties": {}}),
        }
        for f in functions
    ]


def fake_result(name: str, arguments: str) -> str:
    """A deterministic tool result, sometimes an error (so retries and is_error are covered)."""
    if "Atlantis" in arguments or name == "calculate":
        return json.dumps({"error": f"{name} failed for {arguments}"}, ensure_ascii=False)
    return json.dumps({"tool": name, "arguments": json.loads(arguments or "{}"), "ok": "晴"})


class Player:
    """Plays the corpus through ``send``, keeping every reply."""

    def __init__(self, send: Send) -> None:
        self.send = send
        self.replies: list[tuple[str, int, str, bytes]] = []

    def post(self, label: str, path: str, body: Any, headers: dict | None = None) -> bytes:
        raw = body if isinstance(body, bytes) else json.dumps(body, ensure_ascii=False).encode()
        status, kind, data = self.send("POST", path, raw, headers or JSON_HEADERS)
        self.replies.append((label, status, kind, data))
        return data

    def get(self, label: str, path: str, headers: dict | None = None) -> bytes:
        status, kind, data = self.send("GET", path, b"", headers or JSON_HEADERS)
        self.replies.append((label, status, kind, data))
        return data


def _json(data: bytes) -> dict:
    try:
        value = json.loads(data)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def chat_requests() -> Iterator[tuple[str, dict]]:
    for set_name, functions in TOOL_SETS.items():
        for number, question in enumerate(QUESTIONS):
            body: dict[str, Any] = {
                "model": MODEL,
                "messages": [{"role": "user", "content": question}],
            }
            if functions:
                body["tools"] = chat_tools(functions)
            yield f"chat {set_name} q{number}", body
    tools = chat_tools(TOOL_SETS["many"])
    for choice in ("none", "required", {"type": "function", "function": {"name": "send_email"}}):
        body = {"model": MODEL, "messages": [{"role": "user", "content": "hmm"}], "tools": tools}
        yield f"chat choice {choice!r}", {**body, "tool_choice": choice}
    body = {"model": MODEL, "messages": [{"role": "user", "content": QUESTIONS[0]}]}
    yield "chat serial", {**body, "tools": tools, "parallel_tool_calls": False}
    for number, question in enumerate(STRUCTURED_QUESTIONS):
        for strict in (True, False):
            spec = {"name": "Person", "schema": STRUCTURED, "strict": strict}
            yield (
                f"chat structured {number} {strict}",
                {
                    "model": MODEL,
                    "messages": [{"role": "system", "content": "Extract."}]
                    + [{"role": "user", "content": question}],
                    "response_format": {"type": "json_schema", "json_schema": spec},
                },
            )
        yield (
            f"chat json_object {number}",
            {
                "model": MODEL,
                "messages": [{"role": "user", "content": question}],
                "response_format": {"type": "json_object"},
            },
        )


def play_chat(player: Player) -> None:
    for label, body in chat_requests():
        for stream in (False, True):
            extra: dict[str, Any] = {"stream": stream}
            if stream and label.endswith("q0"):
                extra["stream_options"] = {"include_usage": True}
            data = player.post(
                f"{label} stream={stream}", "/v1/chat/completions", {**body, **extra}
            )
            if stream or "tools" not in body:
                continue
            message = (_json(data).get("choices") or [{}])[0].get("message") or {}
            if not message.get("tool_calls"):
                continue
            results = [
                {
                    "role": "tool",
                    "tool_call_id": call["id"],
                    "content": fake_result(call["function"]["name"], call["function"]["arguments"]),
                }
                for call in message["tool_calls"]
            ]
            follow = {**body, "messages": body["messages"] + [message] + results}
            player.post(f"{label} results", "/v1/chat/completions", follow)


def play_responses(player: Player) -> None:
    for set_name, functions in TOOL_SETS.items():
        for number, question in enumerate(QUESTIONS[::2]):
            body: dict[str, Any] = {"model": MODEL, "input": question}
            if number % 2:
                body["instructions"] = "Be brief. 简短回答。"
            if functions:
                body["tools"] = responses_tools(functions)
            for stream in (False, True):
                label = f"responses {set_name} q{number} stream={stream}"
                data = player.post(label, "/v1/responses", {**body, "stream": stream})
                if stream:
                    continue
                reply = _json(data)
                calls = [i for i in reply.get("output", []) if i.get("type") == "function_call"]
                if not calls:
                    continue
                outputs = [
                    {
                        "type": "function_call_output",
                        "call_id": c["call_id"],
                        "output": fake_result(c["name"], c["arguments"]),
                    }
                    for c in calls
                ]
                follow = {
                    "model": MODEL,
                    "input": outputs,
                    "previous_response_id": reply.get("id"),
                    "tools": body["tools"],
                }
                player.post(f"{label} previous", "/v1/responses", follow)
                whole = {**body, "input": [{"role": "user", "content": question}, *calls, *outputs]}
                player.post(f"{label} whole", "/v1/responses", whole)
                player.get(f"{label} retrieve", f"/v1/responses/{reply.get('id')}")
    strictless = responses_tools([WEATHER, {**NOTES, "strict": False}])
    for question in ("Weather in 北京?", "notes about cats"):
        for form in (
            {"type": "json_schema", "name": "Person", "schema": STRUCTURED, "strict": True},
            {"type": "json_object"},
        ):
            for tools in ([], strictless):
                body = {"model": MODEL, "input": question, "text": {"format": form}}
                if tools:
                    body["tools"] = tools
                label = f"responses format {form['type']} tools={bool(tools)} {question}"
                player.post(label, "/v1/responses", body)
    for choice in ("required", {"type": "function", "name": "get_weather"}, "none"):
        body = {"model": MODEL, "input": "hmm", "tools": strictless, "tool_choice": choice}
        player.post(f"responses choice {choice!r}", "/v1/responses", body)
    body = {"model": MODEL, "input": "hi", "store": False, "metadata": {"k": "v"}, "user": "u"}
    player.post("responses options", "/v1/responses", {**body, "temperature": 0.2, "top_p": 0.5})


def play_messages(player: Player) -> None:
    path = "/v1/messages"
    for set_name, functions in TOOL_SETS.items():
        for number, question in enumerate(QUESTIONS[1::2]):
            body: dict[str, Any] = {
                "model": MODEL,
                "max_tokens": 1024,
                "messages": [{"role": "user", "content": question}],
            }
            if number % 2:
                body["system"] = "You are helpful. 你好。"
            if functions:
                body["tools"] = anthropic_tools(functions)
            for stream in (False, True):
                label = f"messages {set_name} q{number} stream={stream}"
                data = player.post(label, path, {**body, "stream": stream}, ANTHROPIC_HEADERS)
                if stream:
                    continue
                reply = _json(data)
                uses = [b for b in reply.get("content", []) if b.get("type") == "tool_use"]
                if not uses:
                    continue
                results = [
                    {
                        "type": "tool_result",
                        "tool_use_id": u["id"],
                        "content": fake_result(u["name"], json.dumps(u["input"])),
                        "is_error": position == 1,
                    }
                    for position, u in enumerate(uses)
                ]
                messages = body["messages"] + [
                    {"role": "assistant", "content": reply["content"]},
                    {"role": "user", "content": results},
                ]
                player.post(
                    f"{label} results", path, {**body, "messages": messages}, ANTHROPIC_HEADERS
                )
    tools = anthropic_tools(TOOL_SETS["many"])
    for choice in ({"type": "any"}, {"type": "tool", "name": "get_time"}, {"type": "none"}):
        body = {
            "model": MODEL,
            "max_tokens": 64,
            "messages": [{"role": "user", "content": [{"type": "text", "text": "嗯"}]}],
            "tools": tools,
            "tool_choice": choice,
        }
        player.post(f"messages choice {choice['type']}", path, body, ANTHROPIC_HEADERS)


BROKEN = [
    ("/v1/chat/completions", b"not json"),
    ("/v1/chat/completions", b'{"model": "m", "messages": [], "x": NaN}'),
    (
        "/v1/chat/completions",
        b'{"model": "m", "messages": [{"role": "user", "content": "\\ud800"}]}',
    ),
    ("/v1/chat/completions", b"[" * 100 + b"]" * 100),
    (
        "/v1/responses",
        b'{"model": "m", "input": "hi", "metadata": ' + b'{"a": ' * 80 + b"1" + b"}" * 81,
    ),
    ("/v1/messages", b'{"model": "m", "max_tokens": 5, "stream": "yes", "messages": []}'),
    ("/v1/chat/completions", b'{"messages": [{"role": "user", "content": "hi"}]}'),
    ("/v1/chat/completions", json.dumps({"model": MODEL, "messages": "hi"}).encode()),
    ("/v1/responses", json.dumps({"model": MODEL}).encode()),
    ("/v1/responses", json.dumps({"model": MODEL, "input": 3}).encode()),
    ("/v1/messages", json.dumps({"model": MODEL, "messages": []}).encode()),
    ("/v1/nowhere", b"{}"),
]


def broken_tools() -> Iterator[tuple[str, dict]]:
    bad = [
        {"name": "bad name!", "parameters": {"type": "object", "properties": {}}},
        {"name": "x", "parameters": {"type": "string"}},
        {"name": "x", "parameters": {"type": "object", "properties": [], "required": []}},
        {"name": "x", "parameters": {"type": "object", "properties": {"a": {"enum": "c"}}}},
        {**WEATHER, "strict": True},
        {
            "name": "x",
            "parameters": {
                "type": "object",
                "properties": {"a": {"$ref": "#/nope"}},
                "required": ["a"],
                "additionalProperties": False,
            },
            "strict": True,
        },
        {"name": 7},
        {"name": "x", "strict": "yes"},
    ]
    for function in bad:
        message = [{"role": "user", "content": "weather in Paris"}]
        yield (
            "/v1/chat/completions",
            {"model": MODEL, "messages": message, "tools": chat_tools([function])},
        )
        yield "/v1/responses", {"model": MODEL, "input": "hi", "tools": responses_tools([function])}
        if isinstance(function.get("name"), str):
            yield (
                "/v1/messages",
                {
                    "model": MODEL,
                    "max_tokens": 9,
                    "messages": message,
                    "tools": anthropic_tools([function]),
                },
            )
    yield (
        "/v1/chat/completions",
        {
            "model": MODEL,
            "messages": [{"role": "user", "content": "x"}],
            "tools": chat_tools([WEATHER, WEATHER]),
        },
    )


def play_broken(player: Player) -> None:
    for number, (path, raw) in enumerate(BROKEN):
        player.post(f"broken {number}", path, raw, ANTHROPIC_HEADERS)
    for number, (path, body) in enumerate(broken_tools()):
        player.post(f"broken tool {number} {path}", path, body, ANTHROPIC_HEADERS)
    player.get("models", "/v1/models")
    player.get("models anthropic", "/v1/models", ANTHROPIC_HEADERS)
    player.get("model", f"/v1/models/{MODEL}")
    player.get("model unknown", "/v1/models/nope")


def play(send: Send) -> list[tuple[str, int, str, bytes]]:
    """Every corpus request in order through ``send``; the replies, labelled."""
    player = Player(send)
    play_chat(player)
    play_responses(player)
    play_messages(player)
    play_broken(player)
    return player.replies
