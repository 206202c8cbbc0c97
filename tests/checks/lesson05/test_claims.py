"""The claims lesson 05 makes about the pinned ``openai`` SDK, as tests of the installed version.

The lesson names a current model and says what a stream guarantees about tool-call fragments;
both are facts of the SDK pinned in pyproject.toml, checked here against its types.
"""

from __future__ import annotations

import re
import typing

import nbformat
from openai.types.chat.chat_completion_chunk import ChoiceDeltaToolCall
from openai.types.shared import ChatModel
from solution_cells import SOLUTIONS


def lesson_text(cell_id: str) -> str:
    cells = nbformat.read(SOLUTIONS / "05_agent_loop.ipynb", as_version=4).cells
    return next(cell.source for cell in cells if cell.id == cell_id)


def test_the_model_the_lesson_names_is_one_the_pinned_sdk_lists():
    named = re.search(r"COURSE_MODEL=(\S+)", lesson_text("w05-real")).group(1)
    assert named in typing.get_args(ChatModel)
    assert f"{named}-2026-03-17" in typing.get_args(ChatModel)  # the 2026 snapshot it names


def test_every_streamed_tool_call_fragment_carries_its_index_and_nothing_else_is_promised():
    fields = ChoiceDeltaToolCall.model_fields
    assert fields["index"].is_required() and fields["index"].annotation is int
    # id and function (its name, its arguments piece) may be absent from a fragment
    assert not fields["id"].is_required() and not fields["function"].is_required()
