"""The local model over real HTTP: endpoints, concurrency, the real-provider road, Ctrl-C."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import typing
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx2
import openai
import pytest
from local_model_fixtures import WEATHER, answer_calls, user

import course_lib.local_model.client as client_module
from course_lib.local_model import make_client
from course_lib.local_model.server import serve

ROOT = Path(__file__).resolve().parents[2]


def test_models_lists_the_model_name_then_the_reasoning_model(http_server):
    remote = openai.OpenAI(api_key="unused", base_url=http_server.base_url)
    listed = [m.id for m in remote.models.list()]
    assert listed == [client_module.model_name(), "local-toy-reasoning"]
    assert remote.models.retrieve("local-toy-reasoning").id == "local-toy-reasoning"


def test_fifty_concurrent_clients_all_get_correct_answers(http_server):
    def one(index: int) -> str:
        remote = openai.OpenAI(api_key="unused", base_url=http_server.base_url, max_retries=0)
        city = ["Beijing", "Shanghai", "Tokyo", "Paris", "London"][index % 5]
        reply = remote.chat.completions.create(
            model="m", messages=user(f"Weather in {city}?"), tools=[WEATHER]
        )
        return reply.choices[0].message.tool_calls[0].function.arguments

    with ThreadPoolExecutor(max_workers=50) as pool:
        results = list(pool.map(one, range(50)))
    expected = [
        f'{{"city": "{["Beijing", "Shanghai", "Tokyo", "Paris", "London"][i % 5]}"}}'
        for i in range(50)
    ]
    assert results == expected


def notebook_code(client, model: str) -> str:
    """What a notebook cell does: ask, run the tool, answer, ask again."""
    messages = user("What's the weather in Beijing?")
    first = client.chat.completions.create(model=model, messages=messages, tools=[WEATHER])
    answer_calls(messages, first.choices[0].message, lambda n, a: {"sky": "sunny", **a})
    final = client.chat.completions.create(model=model, messages=messages, tools=[WEATHER])
    return final.choices[0].message.content


def test_notebook_code_runs_unchanged_against_a_real_endpoint_configuration(monkeypatch):
    with serve() as server:
        monkeypatch.setenv("COURSE_BACKEND", "openai")
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key")
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("COURSE_MODEL", "gpt-test")
        client = make_client()
        assert str(client.base_url).rstrip("/") == server.base_url
        remote_answer = notebook_code(client, client_module.model_name())
    monkeypatch.delenv("COURSE_BACKEND")
    assert remote_answer == notebook_code(make_client(), client_module.model_name())
    assert 'get_weather(city="Beijing")' in remote_answer


def test_the_real_backend_without_a_key_says_how_to_fix_it(monkeypatch):
    monkeypatch.setenv("COURSE_BACKEND", "openai")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(RuntimeError, match="set OPENAI_API_KEY"):
        make_client()


def test_an_unknown_backend_is_refused_with_the_choices(monkeypatch):
    monkeypatch.setenv("COURSE_BACKEND", "gemini")
    with pytest.raises(ValueError, match="'local'.*'openai'.*'anthropic'"):
        make_client()


def test_the_model_name_comes_from_course_model(monkeypatch):
    monkeypatch.delenv("COURSE_BACKEND", raising=False)
    monkeypatch.delenv("COURSE_MODEL", raising=False)
    assert client_module.model_name() == "local-toy"
    monkeypatch.setenv("COURSE_MODEL", "my-model")
    assert client_module.model_name() == "my-model"


def _literals(alias) -> set[str]:
    """Every string literal inside a typing alias (``Union[Literal[...], str]`` and nested)."""
    found = set()
    for arg in typing.get_args(alias):
        found |= {arg} if isinstance(arg, str) else _literals(arg)
    return found


@pytest.mark.parametrize("backend", ["openai", "anthropic"])
def test_each_real_backends_default_model_is_one_the_pinned_sdk_names(monkeypatch, backend):
    from anthropic.types import Model
    from openai.types.shared import ChatModel

    monkeypatch.setenv("COURSE_BACKEND", backend)
    monkeypatch.delenv("COURSE_MODEL", raising=False)
    default = client_module.model_name()
    assert default == client_module.DEFAULT_REMOTE_MODELS[backend]
    assert default in _literals(ChatModel if backend == "openai" else Model)
    assert default not in ("gpt-4o-mini", "claude-haiku-4-5")  # the defaults of 2024 and 2025


def test_a_policy_always_gives_a_local_client_even_with_the_real_backend(monkeypatch):
    from course_lib.local_model import ScriptedPolicy

    monkeypatch.setenv("COURSE_BACKEND", "openai")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    client = make_client(ScriptedPolicy(["scripted"]))
    reply = client.chat.completions.create(model="m", messages=user("hi"))
    assert reply.choices[0].message.content == "scripted"


def test_serve_model_binds_loopback_answers_and_stops_cleanly_on_ctrl_c():
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    started = time.monotonic()
    process = subprocess.Popen(
        [sys.executable, "-m", "course_lib", "serve-model", "--port", "0"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        banner = process.stdout.readline()
        startup = time.monotonic() - started  # what this machine needs, now, to start it
        assert "http://127.0.0.1:" in banner, banner + process.stderr.read()
        base_url = banner.split()[4]
        assert httpx2.get(base_url + "/models").status_code == 200
        process.send_signal(signal.SIGINT)
        # Stopping costs far less than starting (an import of everything): a budget from the
        # start this run measured, not fixed seconds a busy machine can miss.
        assert process.wait(timeout=max(10.0, 5 * startup)) == 0
        assert "Stopped." in process.stdout.read()
        assert "Traceback" not in process.stderr.read()
    finally:
        if process.poll() is None:
            process.kill()
        process.stdout.close()
        process.stderr.close()


def test_a_content_length_that_is_not_a_number_gets_a_400_that_says_so(http_server):
    import socket
    from urllib.parse import urlparse

    address = urlparse(http_server.base_url)
    with socket.create_connection((address.hostname, address.port), timeout=5) as sock:
        sock.sendall(
            b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: lots\r\n\r\n{}"
        )
        reply = b""
        while b"Invalid Content-Length" not in reply and (chunk := sock.recv(65536)):
            reply += chunk
    reply = reply.decode()
    assert reply.startswith("HTTP/1.1 400")
    assert "Invalid Content-Length header 'lots'" in reply


def test_serve_model_limit_options_become_the_servers_limits():
    from course_lib.cli import build_parser
    from course_lib.local_model.cli import limits_from
    from course_lib.local_model.http_limits import MEGABYTE

    args = build_parser().parse_args(
        ["serve-model", "--max-body-mb", "0.5", "--header-timeout", "2", "--body-timeout", "3"]
    )
    limits = limits_from(args)
    assert limits.max_body_bytes == MEGABYTE // 2
    assert (limits.header_timeout, limits.body_timeout, limits.idle_timeout) == (2, 3, 30)


@pytest.mark.parametrize("value", ["0", "-1", "nan", "inf", "lots"])
def test_serve_model_refuses_a_limit_that_is_not_a_positive_number(value, capsys):
    from course_lib.cli import build_parser

    with pytest.raises(SystemExit) as exit_info:
        build_parser().parse_args(["serve-model", "--body-timeout", value])
    assert exit_info.value.code == 2
    assert f"argument --body-timeout: must be a number above 0, not '{value}'" in (
        capsys.readouterr().err
    )


def test_server_limits_refuse_a_timeout_that_is_not_positive():
    from course_lib.local_model.http_limits import ServerLimits

    with pytest.raises(ValueError, match="header_timeout must be a positive number"):
        ServerLimits(header_timeout=0)
    with pytest.raises(ValueError, match="workers must be at least 1"):
        ServerLimits(workers=0)
