"""``LocalEndpoint.handle`` never raises: every body gets well-formed JSON with the right status.

Hostile and odd bodies on every path (the kinds that used to crash the model or drop the
connection, and more), generated bodies (hypothesis), a policy that raises, a bug of ours, and a
huge prompt whose cost must stay bounded. The HTTP server calls this same ``handle``.
"""

from __future__ import annotations

import json
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from local_model_fixtures import WEATHER

from course_lib.local_model import MODEL, HeuristicPolicy
from course_lib.local_model.endpoint import LocalEndpoint
from course_lib.local_model.replies import MAX_QUOTE

PATHS = ("/v1/chat/completions", "/v1/responses", "/v1/messages")
HEADERS = {"anthropic-version": "2023-06-01"}


def handle(path: str, body: bytes, endpoint: LocalEndpoint | None = None):
    endpoint = endpoint or LocalEndpoint(HeuristicPolicy())
    reply = endpoint.handle("POST", path, body, HEADERS)
    raw = reply.body if isinstance(reply.body, bytes) else b"".join(reply.body)
    return reply.status, reply.content_type, raw


def chat(**fields) -> bytes:
    return json.dumps(
        {"model": MODEL, "messages": [{"role": "user", "content": "hi"}], **fields}
    ).encode()


def weather_with(**changes) -> dict:
    schema = json.loads(json.dumps(WEATHER))
    schema["function"]["parameters"]["properties"]["unit"].update(changes)
    return schema


HISTORY_NAME_NUMBER = json.dumps(
    {
        "model": MODEL,
        "messages": [
            {"role": "user", "content": "hi"},
            {
                "role": "assistant",
                "tool_calls": [
                    {"id": "c1", "type": "function", "function": {"name": 5, "arguments": "{}"}}
                ],
            },
            {"role": "tool", "tool_call_id": "c1", "content": "x"},
        ],
    }
).encode()
HOSTILE = [
    (
        "a lone surrogate escape in a string",
        b'{"model": "m", "messages": [{"role": "user", "content": "\\ud800"}]}',
        400,
    ),
    ("a lone surrogate escape in a key", b'{"model": "m", "\\udfff": 1, "messages": []}', 400),
    ("stream_options that is a string", chat(stream=True, stream_options="yes"), 400),
    (
        "include_usage that is a string",
        chat(stream=True, stream_options={"include_usage": "yes"}),
        400,
    ),
    ("JSON nested very deep", b"[" * 100_000 + b"]" * 100_000, 400),
    ("an object nested 70 levels", b'{"a":' * 70 + b"1" + b"}" * 70, 400),
    ("NaN", b'{"model": NaN}', 400),
    ("Infinity", b'{"model": "m", "temperature": Infinity}', 400),
    ("an integer of 10,000 digits", b'{"model": ' + b"9" * 10_000 + b"}", 400),
    ("bytes that are not UTF-8", b'{"model": "\xff\xfe\xfa"}', 400),
    ("a JSON array", b"[1, 2]", 400),
    ("an empty body", b"", 400),
    ("a non-string function name in the history", HISTORY_NAME_NUMBER, 400),
    ("an enum member that is the empty string", chat(tools=[weather_with(enum=["", "c"])]), 200),
    ("an enum that is a string", chat(tools=[weather_with(enum="cf")]), 400),
    ("an enum that is a number", chat(tools=[weather_with(enum=5)]), 400),
    ("a description that is a number", chat(tools=[weather_with(description=5)]), 400),
    ("a type that is an object", chat(tools=[weather_with(type={"a": 1})]), 400),
    ("items that is a number", chat(tools=[weather_with(type="array", items=3)]), 400),
    (
        "a text part whose text is a number",
        chat(messages=[{"role": "user", "content": [{"type": "text", "text": 5}]}]),
        400,
    ),
    ("n that is true", chat(n=True), 400),
    ("200 tools", chat(tools=[WEATHER] * 200), 400),
    ("max_tokens that is a string", chat(max_tokens="10"), 400),
    (
        "a tool call id that is a number",
        chat(
            messages=[
                {"role": "user", "content": "x"},
                {
                    "role": "assistant",
                    "tool_calls": [
                        {"id": 1, "type": "function", "function": {"name": "f", "arguments": "{}"}}
                    ],
                },
            ]
        ),
        400,
    ),
]


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("body, status", [c[1:] for c in HOSTILE], ids=[c[0] for c in HOSTILE])
def test_a_hostile_body_gets_a_json_reply_with_the_right_status(path, body, status):
    """The bodies are Chat Completions bodies: exact on that path; elsewhere a 400 or a 200."""
    got, content_type, raw = handle(path, body)
    assert content_type == "application/json"
    payload = json.loads(raw)
    if path == "/v1/chat/completions":
        assert got == status
    else:
        assert got in (200, 400)
    if got >= 400:
        error = payload["error"]
        assert isinstance(error["message"], str) and error["message"]


@pytest.mark.parametrize("case", [c[0] for c in HOSTILE if c[2] == 400])
def test_each_chat_refusal_names_the_problem(case):
    body = next(c[1] for c in HOSTILE if c[0] == case)
    _, _, raw = handle("/v1/chat/completions", body)
    message = json.loads(raw)["error"]["message"]
    assert len(message) < 600 and "Traceback" not in message


def test_the_error_of_a_lone_surrogate_says_where_and_what():
    _, _, raw = handle("/v1/chat/completions", HOSTILE[0][1])
    error = json.loads(raw)["error"]
    assert error["param"] == "messages[0].content" and "lone surrogate" in error["message"]


def test_a_policy_that_raises_is_a_500_in_each_apis_shape():
    class Broken:
        def respond(self, request):
            raise RuntimeError("boom")

    endpoint = LocalEndpoint(Broken())
    status, _, raw = handle("/v1/chat/completions", chat(), endpoint)
    assert status == 500 and "RuntimeError: boom" in json.loads(raw)["error"]["message"]
    body = json.dumps(
        {"model": MODEL, "max_tokens": 5, "messages": [{"role": "user", "content": "hi"}]}
    )
    status, _, raw = handle("/v1/messages", body.encode(), endpoint)
    assert status == 500 and json.loads(raw)["error"]["type"] == "api_error"


def test_a_bug_of_ours_is_a_500_that_says_it_is_a_bug(monkeypatch):
    import course_lib.local_model.chat_reply as chat_reply

    def broken(*args, **kwargs):
        raise KeyError("oops")

    monkeypatch.setattr(chat_reply, "usage", broken)
    status, _, raw = handle("/v1/chat/completions", chat())
    error = json.loads(raw)["error"]
    assert (
        status == 500
        and error["type"] == "server_error"
        and "bug in course_lib" in error["message"]
    )


def test_an_unknown_model_id_is_a_404_in_the_real_shape_and_the_served_one_a_200():
    endpoint = LocalEndpoint(HeuristicPolicy(), model_name="local-toy")
    found = endpoint.handle("GET", "/v1/models/local-toy", b"")
    missing = endpoint.handle("GET", "/v1/models/gpt-9", b"")
    assert found.status == 200 and json.loads(found.body)["id"] == "local-toy"
    assert missing.status == 404
    assert json.loads(missing.body)["error"] == {
        "message": "The model 'gpt-9' does not exist or you do not have access to it.",
        "type": "invalid_request_error",
        "param": "model",
        "code": "model_not_found",
    }


def test_a_huge_prompt_costs_bounded_work_and_is_quoted_back_cut_short():
    text = "Tell me about 1 + 2 ( " * 500_000  # ~11 MB
    body = json.dumps({"model": MODEL, "messages": [{"role": "user", "content": text}]}).encode()
    start = time.perf_counter()
    status, _, raw = handle("/v1/chat/completions", body)
    elapsed = time.perf_counter() - start
    content = json.loads(raw)["choices"][0]["message"]["content"]
    assert status == 200 and len(content) < MAX_QUOTE + 200
    assert elapsed < 60  # generous: the model reads a bounded prefix, not the 11 MB


JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=20,
)
FIELDS = st.fixed_dictionaries(
    {},
    optional={
        "model": st.one_of(st.just(MODEL), JSON_VALUES),
        "messages": st.one_of(
            st.lists(
                st.fixed_dictionaries(
                    {"role": st.sampled_from(["user", "assistant", "tool", "x"])},
                    optional={
                        "content": JSON_VALUES,
                        "tool_calls": JSON_VALUES,
                        "tool_call_id": JSON_VALUES,
                    },
                ),
                max_size=3,
            ),
            JSON_VALUES,
        ),
        "input": JSON_VALUES,
        "max_tokens": JSON_VALUES,
        "tools": st.one_of(st.lists(JSON_VALUES, max_size=2), st.just([WEATHER])),
        "tool_choice": JSON_VALUES,
        "response_format": JSON_VALUES,
        "text": JSON_VALUES,
        "stream": JSON_VALUES,
        "stream_options": JSON_VALUES,
        "system": JSON_VALUES,
        "previous_response_id": JSON_VALUES,
    },
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(path=st.sampled_from(PATHS), fields=FIELDS)
def test_any_generated_body_gets_json_with_a_client_or_success_status(path, fields):
    status, content_type, raw = handle(path, json.dumps(fields).encode())
    assert status in (200, 400, 404)
    if content_type == "application/json":
        json.loads(raw)
    else:
        assert status == 200 and raw.startswith(b"data: ") or raw.startswith(b"event: ")
