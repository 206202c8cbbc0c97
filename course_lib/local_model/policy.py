"""The default "toy model": a small, predictable stand-in for an LLM that calls tools.

What it does, in the order it decides:

1. It reads the **latest user message** and splits it into clauses.
2. For each clause it scores every tool (``scoring.py``) and picks the best one at or above the
   threshold; two tools tied for a clause make it ask which one is meant.
3. It fills the chosen tool's arguments from the clause (``arguments.py``). A required argument it
   cannot find makes it ask a clarifying question instead of guessing; several things for a
   single-valued parameter become several calls in one turn.
4. ``tool_choice`` and ``parallel_tool_calls`` are honoured: ``"none"`` never calls, ``"required"``
   and a named tool always call (with placeholders for required arguments the request lacks;
   after results, ``"required"`` calls a tool not yet called, filled from the results), and
   without parallel calls it asks for one call per turn.
5. Once results are in (``followup.py``) it retries a fixable error once, never repeats a call that
   was answered, and otherwise answers by quoting the results.
6. When structured output is asked for (``response_format``, ``text.format``), every reply that
   is not a tool call is JSON following the schema, filled from the request and the results
   (``structured.py``).

Everything is deterministic: the same request always gets the same reply. So a policy keeps
its last plans (``memo.py``): a round trip asks the same question with the same tools twice,
and a notebook run again asks them all again.
"""

from __future__ import annotations

from dataclasses import dataclass

from course_lib.local_model import replies
from course_lib.local_model.arguments import complete_required, fill_arguments
from course_lib.local_model.followup import Exchange, correct, exchanges_since, message_text
from course_lib.local_model.memo import Memo, exact_key
from course_lib.local_model.scoring import THRESHOLD, choose_for_clause, score_tool
from course_lib.local_model.structured import structured_reply
from course_lib.local_model.text import MAX_READ, mostly_chinese, split_clauses
from course_lib.local_model.turns import ChatRequest, OutputFormat, ToolCall, Turn


@dataclass(frozen=True)
class Plan:
    """What the model would do for a fresh request: calls, or a sentence instead of calls."""

    calls: tuple[ToolCall, ...] = ()
    text: str | None = None


class HeuristicPolicy:
    """Scores tools against the request, fills arguments from its words, answers from results.

    ``threshold`` is the minimum score (0 to 1) for calling a tool on its own initiative; see
    :func:`course_lib.local_model.explain_choice` for the scores behind each decision. Example::

        client = make_client(HeuristicPolicy(threshold=0.5))
    """

    PLANS_KEPT = 256

    def __init__(self, *, threshold: float = THRESHOLD) -> None:
        self.threshold = threshold
        self.plans: Memo[Plan] = Memo(self.PLANS_KEPT)  # the last plans, by question and tools

    # -- the whole reply ------------------------------------------------------------------------

    def respond(self, request: ChatRequest) -> Turn:
        turn = self._decide(request)
        if request.output_format is None or turn.tool_calls:
            return turn
        start, user_text = _latest_user(request.messages)
        results = [e.result for e in exchanges_since(request.messages, start)] if start >= 0 else []
        return Turn(structured_reply(request.output_format, user_text, results, turn.content or ""))

    def _decide(self, request: ChatRequest) -> Turn:
        start, user_text = _latest_user(request.messages)
        if start < 0:
            return Turn(replies.greeting(""))
        exchanges = exchanges_since(request.messages, start)
        if not request.tools:
            if exchanges:
                return Turn(_final(user_text, exchanges, request))
            if replies.is_greeting(user_text):
                return Turn(replies.greeting(user_text))
            return Turn(replies.no_tools(user_text))
        plan = self.plan(user_text, request)
        if request.tool_choice == "none":
            if exchanges:
                return Turn(_final(user_text, exchanges, request))
            if plan.calls:
                return Turn(replies.tools_switched_off(user_text, plan.calls[0].name))
            return Turn(plan.text or replies.no_fitting_tool(user_text, _names(request)))
        pending = self._pending(plan, exchanges, request, user_text) if exchanges else plan.calls
        if not pending and request.tool_choice != "auto":
            pending = self._forced(user_text, request, exchanges)
        if pending:
            return Turn(None, pending if request.parallel_tool_calls else pending[:1])
        if exchanges:
            return Turn(_final(user_text, exchanges, request))
        return Turn(plan.text or replies.no_fitting_tool(user_text, _names(request)))

    # -- a fresh request --------------------------------------------------------------------------

    def plan(self, user_text: str, request: ChatRequest) -> Plan:
        """The calls (or the question) this request gets before any tool has run.

        A plan depends on nothing but the text, the tools, ``tool_choice`` and the threshold,
        and is immutable: one worked out before for the same ones is given again."""
        key = exact_key(self.threshold, user_text, request.tools_identity(), request.tool_choice)
        return self.plans.get_or_make(key, lambda: self._make_plan(user_text, request))

    def _make_plan(self, user_text: str, request: ChatRequest) -> Plan:
        choice = request.tool_choice
        if isinstance(choice, dict):
            return self._calls_for(choice["name"], user_text, request, forced=True)
        if replies.is_greeting(user_text) and len(split_clauses(user_text)) <= 1:
            return Plan(text=replies.greeting(user_text))
        calls: list[ToolCall] = []
        for clause in split_clauses(user_text) or [user_text]:
            decision = choose_for_clause(clause, request.tools, self.threshold)
            if decision.chosen is None:
                continue
            if decision.tied_with:
                tied = [decision.chosen, *decision.tied_with]
                return Plan(text=replies.ambiguous(user_text, tied))
            step = self._calls_for(decision.chosen, clause, request, forced=False)
            if step.text:
                return step
            calls.extend(c for c in step.calls if c.key() not in {k.key() for k in calls})
        if calls:
            return Plan(tuple(calls))
        if choice == "required":
            return self._forced_plan(user_text, request)
        return Plan(text=replies.no_fitting_tool(user_text, _names(request)))

    def _calls_for(self, name: str, text: str, request: ChatRequest, *, forced: bool) -> Plan:
        tool = request.tool(name) or {"name": name}
        filled = fill_arguments(tool, text)
        if filled.missing and not forced:
            schema = tool.get("parameters", {}).get("properties", {}).get(filled.missing[0], {})
            return Plan(text=replies.clarify(text, name, filled.missing[0], schema))
        calls = filled.calls
        if filled.missing:  # a forced call still satisfies the tool's ``required``
            language = "zh" if mostly_chinese(text) else "en"
            calls = [complete_required(tool, arguments, language) for arguments in calls]
        return Plan(tuple(ToolCall.of(name, arguments) for arguments in calls))

    def _forced_plan(self, user_text: str, request: ChatRequest) -> Plan:
        """``tool_choice="required"``: the best-scoring tool, whatever its score, best effort."""
        best = max(request.tools, key=lambda tool: score_tool(user_text, tool).score)
        return self._calls_for(best["name"], user_text, request, forced=True)

    def _forced(
        self, user_text: str, request: ChatRequest, exchanges: list[Exchange]
    ) -> tuple[ToolCall, ...]:
        """A forced tool_choice after results: the model must call again.

        With ``"required"`` and a tool not yet called (an agent framework's output tool, such as
        pydantic-ai's ``final_result``), it calls that tool, filled from the request and the
        results, as real models do. Otherwise it repeats itself, as real models also do, which
        is why a loop resets ``tool_choice`` to ``"auto"`` after the first turn, or stops on a
        repeated call.
        """
        if isinstance(request.tool_choice, dict):
            name = request.tool_choice["name"]
            return self._calls_for(name, user_text, request, forced=True).calls
        called = {e.call.name for e in exchanges}
        fresh = [tool for tool in request.tools if tool["name"] not in called]
        if exchanges and fresh:
            best = max(fresh, key=lambda tool: score_tool(user_text, tool).score)
            results = [e.result for e in exchanges]
            return (_filled_from_results(best, user_text, results),)
        return self._forced_plan(user_text, request).calls

    # -- after results ----------------------------------------------------------------------------

    def _pending(
        self, plan: Plan, exchanges: list[Exchange], request: ChatRequest, user_text: str
    ) -> tuple[ToolCall, ...]:
        """Calls still to make: one retry per fixable error, then planned calls not yet made."""
        answered = {e.call.key() for e in exchanges}
        corrections = _corrections(exchanges, request, user_text)
        retries = [c for c in corrections.values() if c.key() not in answered]
        if retries:
            return tuple(_unique(retries))
        known = {c.key() for c in plan.calls} | {c.key() for c in corrections.values()}
        if not answered <= known:
            return ()  # the conversation went its own way: answer from what is there
        return tuple(c for c in plan.calls if c.key() not in answered)


def _corrections(
    exchanges: list[Exchange], request: ChatRequest, user_text: str
) -> dict[int, ToolCall]:
    """Position of each failed call -> its corrected call. A failed retry is not retried again."""
    fixes: dict[int, ToolCall] = {}
    retry_keys: set[tuple[str, str]] = set()
    for position, exchange in enumerate(exchanges):
        if exchange.error is None or exchange.call.key() in retry_keys:
            continue
        fixed = correct(exchange, request, user_text)
        if fixed is not None and fixed.key() != exchange.call.key():
            fixes[position] = fixed
            retry_keys.add(fixed.key())
    return fixes


def _final(user_text: str, exchanges: list[Exchange], request: ChatRequest) -> str:
    """Quote every result; a failed call whose retry was answered is replaced by the retry."""
    corrections = _corrections(exchanges, request, user_text) if request.tools else {}
    answered = {e.call.key() for e in exchanges}
    superseded = {p for p, fix in corrections.items() if fix.key() in answered}
    lines = [(e.call, e.result, e.error) for p, e in enumerate(exchanges) if p not in superseded]
    return replies.final_answer(user_text, lines)


def _filled_from_results(tool: dict, user_text: str, results: list[str]) -> ToolCall:
    """A call whose arguments are read from the request and the results, like structured output."""
    schema = tool.get("parameters") or {"type": "object", "properties": {}}
    wanted = OutputFormat("json_schema", tool["name"], schema, bool(tool.get("strict")))
    return ToolCall(tool["name"], structured_reply(wanted, user_text, results, ""))


def _latest_user(messages: list[dict]) -> tuple[int, str]:
    for index in range(len(messages) - 1, -1, -1):
        if messages[index].get("role") == "user":
            return index, message_text(messages[index].get("content")).strip()[:MAX_READ]
    return -1, ""


def _names(request: ChatRequest) -> list[str]:
    return [tool["name"] for tool in request.tools]


def _unique(calls: list[ToolCall]) -> list[ToolCall]:
    seen: set[tuple[str, str]] = set()
    return [c for c in calls if not (c.key() in seen or seen.add(c.key()))]
