"""The local model: an offline, deterministic stand-in for an LLM that calls tools.

It speaks three wire protocols (JSON, server-sent events, error bodies): OpenAI Chat Completions,
the OpenAI Responses API and the Anthropic Messages API, so the real ``openai`` and ``anthropic``
SDKs (and clients built on them) talk to it unchanged, in process (``make_client()``,
``make_async_client()``, ``make_anthropic_client()``) or over HTTP
(``python -m course_lib serve-model``). Who decides the replies is a *policy*:
:class:`HeuristicPolicy` (the default toy model) or :class:`ScriptedPolicy` (exact turns, faults).

    from course_lib.local_model import MODEL, make_client
    client = make_client()
    client.chat.completions.create(model=MODEL, messages=[...], tools=[...])
"""

from course_lib.local_model.client import (
    backend,
    make_anthropic_client,
    make_async_client,
    make_client,
    model_name,
)
from course_lib.local_model.policy import HeuristicPolicy
from course_lib.local_model.protocol import ProtocolError
from course_lib.local_model.scoring import THRESHOLD, ChoiceExplanation, explain_choice
from course_lib.local_model.scripted import ScriptedPolicy, call, faults
from course_lib.local_model.turns import ChatRequest, OutputFormat, Policy, ToolCall, Turn

MODEL: str = model_name()

__all__ = [
    "MODEL",
    "THRESHOLD",
    "ChatRequest",
    "ChoiceExplanation",
    "HeuristicPolicy",
    "OutputFormat",
    "Policy",
    "ProtocolError",
    "ScriptedPolicy",
    "ToolCall",
    "Turn",
    "backend",
    "call",
    "explain_choice",
    "faults",
    "make_anthropic_client",
    "make_async_client",
    "make_client",
    "model_name",
]
