"""``make_client()`` and ``make_anthropic_client()``: SDK clients on the local model, or real ones.

By default a client's HTTP layer is an ``httpx2.Client`` whose transport answers from the local
model in process: no key, no network, deterministic. ``COURSE_BACKEND`` switches one family to a
real provider: ``openai`` makes ``make_client()`` (and ``make_async_client()``) talk to
``OPENAI_API_KEY``'s provider (``OPENAI_BASE_URL`` for other OpenAI-compatible ones);
``anthropic`` makes ``make_anthropic_client()`` talk to Anthropic with ``ANTHROPIC_API_KEY``.
``COURSE_MODEL`` is the model name notebooks should use. Notebook code does not change: it
always calls the same function and passes ``model=MODEL``.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import httpx2
import openai

from course_lib.local_model.endpoint import LocalEndpoint
from course_lib.local_model.policy import HeuristicPolicy
from course_lib.local_model.transport import AsyncLocalTransport, LocalTransport
from course_lib.local_model.turns import Policy

if TYPE_CHECKING:
    import anthropic

LOCAL_MODEL_NAME = "local-toy"
DEFAULT_REMOTE_MODELS = {"openai": "gpt-5.4-mini", "anthropic": "claude-haiku-5-5"}
LOCAL_BASE_URL = "http://local-model.invalid/v1"
LOCAL_ANTHROPIC_BASE_URL = "http://local-model.invalid"  # the SDK adds /v1/messages itself
LOCAL_API_KEY = "local-model-needs-no-key"
BACKENDS = ("local", "openai", "anthropic")
MESSAGES = {
    "unknown_backend": (
        "COURSE_BACKEND={value!r} is not a backend this course knows; use 'local' (the offline "
        "model, the default), 'openai' (any OpenAI-compatible provider) or 'anthropic'."
    ),
    "no_openai_key": (
        "COURSE_BACKEND=openai needs an API key: set OPENAI_API_KEY (and OPENAI_BASE_URL for a "
        "provider other than OpenAI), or unset COURSE_BACKEND to use the offline model."
    ),
    "no_anthropic_key": (
        "COURSE_BACKEND=anthropic needs an API key: set ANTHROPIC_API_KEY, or unset "
        "COURSE_BACKEND to use the offline model."
    ),
}


def backend() -> str:
    """The backend chosen by ``COURSE_BACKEND``: "local" unless "openai" or "anthropic"."""
    value = os.environ.get("COURSE_BACKEND", "local").strip().lower() or "local"
    if value not in BACKENDS:
        raise ValueError(MESSAGES["unknown_backend"].format(value=value))
    return value


def model_name() -> str:
    """The model name notebooks pass as ``model=``: ``COURSE_MODEL`` when set."""
    default = DEFAULT_REMOTE_MODELS.get(backend(), LOCAL_MODEL_NAME)
    return os.environ.get("COURSE_MODEL") or default


def local_endpoint(policy: Policy | None = None, *, seed: int = 0) -> LocalEndpoint:
    """A fresh endpoint on ``policy`` (default: a :class:`HeuristicPolicy`)."""
    return LocalEndpoint(policy or HeuristicPolicy(), seed=seed, model_name=model_name())


def make_client(policy: Policy | None = None, *, seed: int = 0) -> openai.OpenAI:
    """A Chat Completions client: the local model by default, a real provider on request.

    ``policy`` decides the local model's replies (default: a fresh :class:`HeuristicPolicy`);
    passing one always gives a local client, because scripted behaviour only exists locally.
    ``seed`` fixes the ids and timestamps; each client counts its own replies, so the same
    notebook prints the same ids on every run. Example::

        client = make_client()
        reply = client.chat.completions.create(model=MODEL, messages=[...], tools=[...])
    """
    if policy is None and backend() == "openai":
        _require_key("OPENAI_API_KEY", "no_openai_key")
        return openai.OpenAI()  # reads OPENAI_API_KEY and OPENAI_BASE_URL itself
    return openai.OpenAI(
        api_key=LOCAL_API_KEY,
        base_url=LOCAL_BASE_URL,
        http_client=httpx2.Client(transport=LocalTransport(local_endpoint(policy, seed=seed))),
        max_retries=0,  # the local model never has a transient failure worth waiting for
    )


def make_async_client(policy: Policy | None = None, *, seed: int = 0) -> openai.AsyncOpenAI:
    """``make_client()``'s twin for ``AsyncOpenAI`` (``await client.chat.completions.create``)."""
    if policy is None and backend() == "openai":
        _require_key("OPENAI_API_KEY", "no_openai_key")
        return openai.AsyncOpenAI()
    transport = AsyncLocalTransport(local_endpoint(policy, seed=seed))
    return openai.AsyncOpenAI(
        api_key=LOCAL_API_KEY,
        base_url=LOCAL_BASE_URL,
        http_client=httpx2.AsyncClient(transport=transport),
        max_retries=0,
    )


def make_anthropic_client(policy: Policy | None = None, *, seed: int = 0) -> anthropic.Anthropic:
    """An ``anthropic.Anthropic`` on the same local model (``COURSE_BACKEND=anthropic``: real).

    The local model speaks the Messages API (``tool_use``/``tool_result`` blocks, streaming
    events, Anthropic's errors) with the same policy as :func:`make_client`. Example::

        claude = make_anthropic_client()
        reply = claude.messages.create(model=MODEL, max_tokens=1024, messages=[...], tools=[...])
    """
    import anthropic

    if policy is None and backend() == "anthropic":
        _require_key("ANTHROPIC_API_KEY", "no_anthropic_key")
        return anthropic.Anthropic()  # reads ANTHROPIC_API_KEY itself
    return anthropic.Anthropic(
        api_key=LOCAL_API_KEY,
        base_url=LOCAL_ANTHROPIC_BASE_URL,
        http_client=httpx2.Client(transport=LocalTransport(local_endpoint(policy, seed=seed))),
        max_retries=0,
    )


def _require_key(variable: str, message: str) -> None:
    if not os.environ.get(variable):
        raise RuntimeError(MESSAGES[message])
