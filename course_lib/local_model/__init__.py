"""The local model: an offline, deterministic, OpenAI-compatible stand-in for an LLM.

It speaks the Chat Completions wire protocol (JSON, server-sent events, error bodies), so the real
``openai`` SDK talks to it unchanged, in process (``make_client()``) or over HTTP
(``python -m course_lib serve-model``). Who decides the replies is a *policy*:
:class:`HeuristicPolicy` (the default toy model) or :class:`ScriptedPolicy` (exact turns, faults).

    from course_lib.local_model import MODEL, make_client
    client = make_client()
    client.chat.completions.create(model=MODEL, messages=[...], tools=[...])
"""

from course_lib.local_model.client import backend, make_client, model_name
from course_lib.local_model.policy import HeuristicPolicy
from course_lib.local_model.protocol import ProtocolError
from course_lib.local_model.scoring import THRESHOLD, ChoiceExplanation, explain_choice
from course_lib.local_model.scripted import ScriptedPolicy, call, faults
from course_lib.local_model.turns import ChatRequest, Policy, ToolCall, Turn

MODEL: str = model_name()

__all__ = [
    "MODEL",
    "THRESHOLD",
    "ChatRequest",
    "ChoiceExplanation",
    "HeuristicPolicy",
    "Policy",
    "ProtocolError",
    "ScriptedPolicy",
    "ToolCall",
    "Turn",
    "backend",
    "call",
    "explain_choice",
    "faults",
    "make_client",
    "model_name",
]
