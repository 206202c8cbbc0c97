"""Clients for the local model's tests.

Every test talks to the model through the real ``openai`` SDK: in process (``make_client``) or over
real HTTP on loopback (``serve()``).
"""

from __future__ import annotations

from collections.abc import Iterator

import openai
import pytest

from course_lib.local_model import make_client
from course_lib.local_model.server import serve


@pytest.fixture
def client() -> openai.OpenAI:
    return make_client()


@pytest.fixture(scope="module")
def http_server() -> Iterator:
    with serve() as server:
        yield server


@pytest.fixture(params=["in-process", "http"])
def any_client(request, http_server) -> openai.OpenAI:
    """The same tests through both roads: the in-process transport and real HTTP on loopback."""
    if request.param == "in-process":
        return make_client()
    return openai.OpenAI(api_key="unused", base_url=http_server.base_url, max_retries=0)


@pytest.fixture(params=["in-process", "http"])
def any_anthropic(request, http_server):
    """The real ``anthropic`` SDK through both roads (its base URL has no ``/v1``)."""
    import anthropic

    from course_lib.local_model import make_anthropic_client

    if request.param == "in-process":
        return make_anthropic_client()
    root = http_server.base_url.removesuffix("/v1")
    return anthropic.Anthropic(api_key="unused", base_url=root, max_retries=0)
