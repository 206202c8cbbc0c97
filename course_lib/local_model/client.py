"""``make_client()``: an ``openai.OpenAI`` wired to the local model, or to a real provider.

By default the client's HTTP layer is an ``httpx2.Client`` whose transport answers from the local
model in process: no key, no network, deterministic. Set ``COURSE_BACKEND=openai`` to get a client
for a real provider instead (``OPENAI_API_KEY`` and, for other OpenAI-compatible providers,
``OPENAI_BASE_URL``), and ``COURSE_MODEL`` to the model name notebooks should use. Notebook code
does not change: it always calls ``make_client()`` and passes ``model=MODEL``.
"""

from __future__ import annotations

import os

import httpx2
import openai

from course_lib.local_model.endpoint import LocalEndpoint
from course_lib.local_model.policy import HeuristicPolicy
from course_lib.local_model.transport import LocalTransport
from course_lib.local_model.turns import Policy

LOCAL_MODEL_NAME = "local-toy"
DEFAULT_REMOTE_MODEL = "gpt-4o-mini"
LOCAL_BASE_URL = "http://local-model.invalid/v1"
LOCAL_API_KEY = "local-model-needs-no-key"
BACKENDS = ("local", "openai")


def backend() -> str:
    """The backend chosen by ``COURSE_BACKEND`` ("local" unless set to "openai")."""
    value = os.environ.get("COURSE_BACKEND", "local").strip().lower() or "local"
    if value not in BACKENDS:
        raise ValueError(
            f"COURSE_BACKEND={value!r} is not a backend this course knows; use 'local' (the "
            "offline model, the default) or 'openai' (any OpenAI-compatible provider)."
        )
    return value


def model_name() -> str:
    """The model name notebooks pass as ``model=``: ``COURSE_MODEL`` when set."""
    default = DEFAULT_REMOTE_MODEL if backend() == "openai" else LOCAL_MODEL_NAME
    return os.environ.get("COURSE_MODEL") or default


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
        return _remote_client()
    endpoint = LocalEndpoint(policy or HeuristicPolicy(), seed=seed, model_name=model_name())
    return openai.OpenAI(
        api_key=LOCAL_API_KEY,
        base_url=LOCAL_BASE_URL,
        http_client=httpx2.Client(transport=LocalTransport(endpoint)),
        max_retries=0,  # the local model never has a transient failure worth waiting for
    )


def _remote_client() -> openai.OpenAI:
    if not os.environ.get("OPENAI_API_KEY"):
        raise RuntimeError(
            "COURSE_BACKEND=openai needs an API key: set OPENAI_API_KEY (and OPENAI_BASE_URL for "
            "a provider other than OpenAI), or unset COURSE_BACKEND to use the offline model."
        )
    return openai.OpenAI()  # reads OPENAI_API_KEY and OPENAI_BASE_URL itself
