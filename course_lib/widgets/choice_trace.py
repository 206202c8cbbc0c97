"""ToolChoiceTrace: which tool the local model would pick for a request, and by what margin.

A model reads tool descriptions the way it reads a prompt. The local model makes that visible:
every tool gets a score for the request (see ``course_lib.local_model.scoring``), and a tool is
called only above the threshold. Edit the request (or the descriptions) and watch the bars move.
"""

from __future__ import annotations

from typing import Any

import ipywidgets as widgets

from course_lib.local_model import THRESHOLD, ChoiceExplanation, explain_choice
from course_lib.widgets.base import MUTED_COLOUR, PlainTextWidget, colour, escape
from course_lib.widgets.texts import say

CHOSEN_COLOUR = colour(2)  # green
TIE_COLOUR = colour(1)  # orange
OTHER_COLOUR = "#9e9e9e"


def tools_of(tools: Any) -> list[dict[str, Any]]:
    """A list of Chat Completions tools, from a list or from a registry (``.schemas()``)."""
    if hasattr(tools, "schemas"):
        return list(tools.schemas(format="openai"))
    return list(tools)


class ToolChoiceTrace(PlainTextWidget, widgets.VBox):
    """A request box and, per tool, the local model's score as a bar, with the choice marked.

    ``request`` can be changed in the box or from code (``trace.request = "..."``); the table and
    ``explanation`` (a ``ChoiceExplanation``) follow.
    """

    def __init__(self, request: str, tools: Any, *, threshold: float = THRESHOLD) -> None:
        self.tools = tools_of(tools)
        self.threshold = threshold
        self.request_input = widgets.Text(
            value=request, description=say("request_label"), layout=widgets.Layout(width="100%")
        )
        self.request_input.add_class("course-request")
        self.table = widgets.HTML()
        self.table.add_class("course-choice-table")
        super().__init__(children=[self.request_input, self.table])
        self.add_class("course-widget")
        self.add_class("course-choice-trace")
        self.request_input.observe(self._refresh, names="value")
        self._refresh()

    @property
    def request(self) -> str:
        return self.request_input.value

    @request.setter
    def request(self, value: str) -> None:
        self.request_input.value = value

    @property
    def scores(self) -> dict[str, float]:
        return self.explanation.scores

    @property
    def chosen(self) -> list[str]:
        return self.explanation.chosen

    def _refresh(self, _change: Any = None) -> None:
        self.explanation: ChoiceExplanation = explain_choice(
            self.request, self.tools, threshold=self.threshold
        )
        self.table.value = self._html()

    def _html(self) -> str:
        e = self.explanation
        rows = []
        for name, score in e.scores.items():
            if name in e.chosen:
                bar, mark = CHOSEN_COLOUR, escape(say("mark_called"))
            elif name in e.ambiguous:
                bar, mark = TIE_COLOUR, escape(say("mark_tie"))
            else:
                bar, mark = OTHER_COLOUR, ""
            words = ", ".join(e.matched[name]) or "-"
            rows.append(
                f'<tr class="course-score-row" data-tool="{escape(name)}" data-score="{score:.3f}">'
                f"<td><code>{escape(name)}</code></td>"
                f'<td style="width:220px"><div style="position:relative;background:#eee;'
                f'height:14px;width:200px">'
                f'<div class="course-bar" style="background:{bar};height:14px;'
                f'width:{round(score * 200)}px"></div>'
                f'<div title="{escape(say("threshold"))}" style="position:absolute;top:-2px;left:'
                f'{round(e.threshold * 200)}px;width:2px;height:18px;background:#000"></div>'
                f"</div></td>"
                f'<td class="course-score" style="font-family:monospace">{score:.2f}</td>'
                f"<td><b>{mark}</b></td>"
                f'<td style="color:{MUTED_COLOUR}">{escape(words)}</td></tr>'
            )
        none = escape(say("no_tools_row"))
        body = "".join(rows) or f'<tr><td colspan="5"><i>{none}</i></td></tr>'
        columns = [say(f"column_{name}") for name in ("tool", "score")] + [""]
        columns += [say(f"column_{name}") for name in ("chosen", "matched")]
        header = "".join(f"<th>{escape(column)}</th>" for column in columns)
        return (
            '<table class="course-scores" style="border-collapse:collapse">'
            f"<tr>{header}</tr>{body}</table>"
            f'<div class="course-verdict">{escape(self._verdict())}</div>'
        )

    def _verdict(self) -> str:
        return self.explanation.table().splitlines()[-1]

    def text(self) -> str:
        return "ToolChoiceTrace\n" + self.explanation.table()
