"""The parameters each API accepts, read from the installed SDKs' own request types.

The real APIs refuse a parameter they do not know (a typo such as ``temprature``, or the other
API's ``max_output_tokens``), so the local model must know exactly which ones exist. Writing the
lists by hand would drift from the SDKs the course pins; instead they are read from the
``TypedDict`` classes the SDKs generate from the APIs' specifications
(``CompletionCreateParams*``, ``ResponseCreateParams*``, ``MessageCreateParams*``, and the
nested ``stream_options`` and ``metadata`` types). A new SDK release brings its new parameters.

The classes are read from the SDKs' source with :mod:`ast`, not imported: importing ``anthropic``
takes seconds (it loads every type it has), which the server and every notebook would pay for
a list of names. ``tests/local_model/test_sdk_params.py`` checks the result against the types
themselves, imported.
"""

from __future__ import annotations

import ast
import importlib.util
from functools import cache
from pathlib import Path

# Anthropic's API takes these sampling parameters on the models that support sampling, but the
# anthropic SDK removed them from ``messages.create()`` in 1.0 (clients send them through
# ``extra_body``): they are accepted here as the API accepts them.
ANTHROPIC_SAMPLING = frozenset({"temperature", "top_p", "top_k"})


class SDKTypesNotFound(RuntimeError):
    """The installed SDK no longer has a request type where this module looks for it."""


@cache
def _classes(package: str, module: str) -> dict[str, ast.ClassDef]:
    spec = importlib.util.find_spec(package)  # finds the package without importing it
    if spec is None or not spec.submodule_search_locations:
        raise SDKTypesNotFound(f"The {package!r} package is not installed.")
    path = Path(next(iter(spec.submodule_search_locations)), *module.split("/"))
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise SDKTypesNotFound(f"{package}: cannot read {module} ({error}).") from None
    return {node.name: node for node in tree.body if isinstance(node, ast.ClassDef)}


def typed_dict_keys(package: str, module: str, *names: str) -> frozenset[str]:
    """The keys of the named ``TypedDict`` classes of one SDK module, with their bases' keys
    (bases defined in the same module)."""
    classes = _classes(package, module)
    keys: set[str] = set()
    pending = list(names)
    while pending:
        name = pending.pop()
        node = classes.get(name)
        if node is None:
            raise SDKTypesNotFound(f"{package}: no class {name} in {module}.")
        for statement in node.body:
            if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
                keys.add(statement.target.id)
        pending.extend(
            base.id for base in node.bases if isinstance(base, ast.Name) and base.id in classes
        )
    return frozenset(keys)


CHAT = typed_dict_keys(
    "openai",
    "types/chat/completion_create_params.py",
    "CompletionCreateParamsNonStreaming",
    "CompletionCreateParamsStreaming",
)
RESPONSES = typed_dict_keys(
    "openai",
    "types/responses/response_create_params.py",
    "ResponseCreateParamsNonStreaming",
    "ResponseCreateParamsStreaming",
)
MESSAGES = ANTHROPIC_SAMPLING | typed_dict_keys(
    "anthropic",
    "types/message_create_params.py",
    "MessageCreateParamsNonStreaming",
    "MessageCreateParamsStreaming",
)
CHAT_STREAM_OPTIONS = typed_dict_keys(
    "openai",
    "types/chat/chat_completion_stream_options_param.py",
    "ChatCompletionStreamOptionsParam",
)
RESPONSES_STREAM_OPTIONS = typed_dict_keys(
    "openai", "types/responses/response_create_params.py", "StreamOptions"
)
ANTHROPIC_METADATA = typed_dict_keys("anthropic", "types/metadata_param.py", "MetadataParam")
