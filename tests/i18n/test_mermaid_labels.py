"""A Mermaid label is prose a translator rewrites; the diagram's syntax (ids, arrows, keywords,
lines) is kept exactly (``course_lib.i18n.mermaid``, read from Mermaid's own grammars)."""

from __future__ import annotations

import pytest

from course_lib.i18n.safety import problems

SEQUENCE = (
    "```mermaid\nsequenceDiagram\n"
    "    participant C as your code\n"
    "    actor U as the user\n"
    "    C->>M: 1. the question, with the tools\n"
    "    M-->>C: 2. tool_calls\n"
    "    Note over C,M: the id comes back\n"
    "    Note left of C: run it\n"
    "    loop every turn\n"
    "        C-)M: again\n"
    "    end\n"
    "```\n"
)
SEQUENCE_ZH = (
    "```mermaid\nsequenceDiagram\n"
    "    participant C as 你的代码\n"
    "    actor U as 用户\n"
    "    C->>M:1. 问题，连同工具\n"
    "    M-->>C: 2. tool_calls\n"
    "    Note over C,M: id 会原样带回\n"
    "    Note left of C: 运行它\n"
    "    loop 每一轮\n"
    "        C-)M: 再来一次\n"
    "    end\n"
    "```\n"
)
FLOWCHART = (
    '```mermaid\nflowchart TD\n    A{"ok?"} -->|no| B["stop"]\n    A -->|yes| C["go"]\n```\n'
)
FLOWCHART_ZH = (
    '```mermaid\nflowchart TD\n    A{"好了吗？"} -->|否| B["停止"]\n    A -->|是| C["继续"]\n```\n'
)


def test_translated_sequence_diagram_labels_messages_and_notes_are_safe():
    assert problems(SEQUENCE, SEQUENCE_ZH) == []


def test_translated_unquoted_flowchart_edge_labels_are_safe():
    assert problems(FLOWCHART, FLOWCHART_ZH) == []


@pytest.mark.parametrize(
    ("english", "wrong"),
    [
        (SEQUENCE, SEQUENCE_ZH.replace("participant C as", "participant K as")),
        (SEQUENCE, SEQUENCE_ZH.replace("C->>M:", "C->>N:")),
        (SEQUENCE, SEQUENCE_ZH.replace("C->>M:", "C-->>M:")),
        (SEQUENCE, SEQUENCE_ZH.replace("M-->>C:", "M--xC:")),
        (SEQUENCE, SEQUENCE_ZH.replace("participant C", "actor C")),
        (SEQUENCE, SEQUENCE_ZH.replace("Note over C,M", "Note over C")),
        (SEQUENCE, SEQUENCE_ZH.replace("Note left of", "Note right of")),
        (SEQUENCE, SEQUENCE_ZH.replace("loop 每一轮", "opt 每一轮")),
        (SEQUENCE, SEQUENCE_ZH.replace("问题，连同工具", "问题\n    连同工具")),
        (SEQUENCE, SEQUENCE_ZH.replace("    end\n", "")),
        (SEQUENCE, SEQUENCE_ZH.replace("问题，连同工具", "问题; 连同工具")),
        (SEQUENCE, SEQUENCE_ZH.replace("运行它", "运行 #它")),
        (FLOWCHART, FLOWCHART_ZH.replace("-->|否| B", "-->|否| D")),
        (FLOWCHART, FLOWCHART_ZH.replace("-->|否|", "-.->|否|")),
        (FLOWCHART, FLOWCHART_ZH.replace("|否|", "|否(no)|")),
        (FLOWCHART, FLOWCHART_ZH.replace("flowchart TD", "flowchart LR")),
    ],
    ids=["participant-id", "message-target-id", "message-arrow", "reply-arrow",
         "participant-keyword", "note-actors", "note-placement", "block-keyword",
         "extra-line", "lost-line", "semicolon-starts-a-statement", "hash-starts-a-comment",
         "edge-target-id", "edge-arrow", "edge-text-mermaid-cannot-read", "direction"],
)  # fmt: skip
def test_a_translation_that_changes_a_diagrams_syntax_is_caught(english, wrong):
    assert any(line.startswith("lost fence mermaid") for line in problems(english, wrong))
