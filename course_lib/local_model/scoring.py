"""How the toy model decides which tool a request needs, and a way to see why.

Each tool gets a score between 0 and 1 against the request:

* The request is cut into meaningful *units* (``text.units``): words, known phrases, leftover
  Chinese runs. Each unit is looked up in the tool's **description** (weight 1.0), its **name**
  (weight 0.6) and its **parameters** (names, descriptions, enum values; weight 0.5). A place or
  person only ever counts as a parameter match (0.5): "Beijing" says what to pass, not which tool
  to use. Quoted text is ignored (it is an argument too).
* ``score = matched / (matched + 0.5 * unmatched + 1)``, where *matched* sums the weights of the
  units the tool explains and *unmatched* counts the others. A tool that explains nothing scores 0;
  one that explains the key words of a short request scores 0.5 to 0.8.

Each matched unit is labelled with where it matched, so that the label can be checked against
the tool's text: ``rain→description`` (the word itself), ``快递→description (shipping)`` (a
synonym: the tool's word in brackets), ``北京→argument (city)`` (a place or person: a value to
pass to a tool that mentions places or people, here through the word "city"; such a unit, like
the words "city" or "where" themselves, never weighs more than a parameter match).

A tool is called when it is the best one for some clause of the request and its score is at least
:data:`THRESHOLD`. Two tools that both reach it within :data:`TIE_MARGIN` of each other tie for a
clause and make the request ambiguous (the model asks).
So a vague description ("Does stuff.") really does make the model miss a tool, and a clear one
makes it hit: the description is a prompt.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass, field
from typing import Any

from course_lib.i18n import translate
from course_lib.local_model import text as txt
from course_lib.local_model.memo import Memo, exact_key

THRESHOLD = 0.4
TIE_MARGIN = 0.05
WEIGHTS = {"description": 1.0, "name": 0.6, "parameters": 0.5}
ARGUMENT_CONCEPTS = {"place", "contact"}


def as_function(tool: dict[str, Any]) -> dict[str, Any]:
    """Accept a Chat Completions tool ({"type": "function", "function": {...}}) or its function."""
    return tool["function"] if isinstance(tool.get("function"), dict) else tool


@dataclass(frozen=True)
class ToolScore:
    """One tool's score for a request, and which request words it explained (and where)."""

    name: str
    score: float
    matched: tuple[str, ...]


Profile = dict[str, dict[str, list[str]]]  # field -> concept -> the tool's words meaning it
# A tool's profile, kept: every clause of every request scores the same tools again. Profiles
# are only read (by score_tool and _label), never changed, so one is shared by all its readers.
PROFILES: Memo[Profile] = Memo(256)


def _profile(function: dict[str, Any]) -> Profile:
    return PROFILES.get_or_make(exact_key(function), lambda: _make_profile(function))


def _make_profile(function: dict[str, Any]) -> Profile:
    parameters = (function.get("parameters") or {}).get("properties") or {}
    parameter_text = " ".join(
        f"{name} {schema.get('description', '')} {' '.join(map(str, schema.get('enum', [])))}"
        for name, schema in parameters.items()
        if isinstance(schema, dict)
    )
    texts = {
        "description": function.get("description") or "",
        "name": function.get("name", ""),
        "parameters": parameter_text,
    }
    return {field_name: _words_by_concept(text) for field_name, text in texts.items()}


def _words_by_concept(text: str) -> dict[str, list[str]]:
    """Each concept of ``text`` with the words that carry it (a bigram stands for itself)."""
    found: dict[str, list[str]] = {}
    for unit in txt.units(text):
        for concept in unit.alternatives:
            word = unit.text if len(unit.alternatives) == 1 else concept
            found.setdefault(concept, []).append(word)
    return found


def _same_word(a: str, b: str) -> bool:
    return a.lower() == b.lower() or txt.stem(a) == txt.stem(b)


def _is_a_name(unit: txt.Unit) -> bool:
    """A place or person (北京, Alice): a value to pass, unlike the words "city" or "where"."""
    words = [w for concept in ARGUMENT_CONCEPTS for w in txt.SYNONYMS[concept]]
    return bool(unit.alternatives & ARGUMENT_CONCEPTS) and not any(
        _same_word(unit.text, word) for word in words
    )


def _label(unit: txt.Unit, field_name: str, words: dict[str, list[str]]) -> str:
    """``word→field``, naming the tool's word in brackets when it is not the request's word."""
    tool_words = [w for concept in sorted(unit.alternatives & set(words)) for w in words[concept]]
    if _is_a_name(unit):
        return f"{unit.text}→argument ({tool_words[0]})"
    if any(_same_word(unit.text, word) for word in tool_words):
        return f"{unit.text}→{field_name}"
    return f"{unit.text}→{field_name} ({tool_words[0]})"


def score_tool(request: str, tool: dict[str, Any]) -> ToolScore:
    """Score one tool against one request (see the module docstring for the formula)."""
    function = as_function(tool)
    profile = _profile(function)
    matched_weight = 0.0
    unmatched = 0
    matched: list[str] = []
    seen: set[frozenset[str]] = set()
    for unit in txt.units(request):
        if unit.alternatives in seen:
            continue
        seen.add(unit.alternatives)
        best, where = 0.0, ""
        for field_name, weight in WEIGHTS.items():
            if unit.alternatives & profile[field_name].keys() and weight > best:
                best, where = weight, field_name
        if best and unit.alternatives & ARGUMENT_CONCEPTS:
            best = min(best, WEIGHTS["parameters"])
        if best:
            matched_weight += best
            matched.append(_label(unit, where, profile[where]))
        else:
            unmatched += 1
    score = matched_weight / (matched_weight + 0.5 * unmatched + 1.0)
    return ToolScore(function.get("name", "?"), round(score, 3), tuple(matched))


@dataclass(frozen=True)
class ClauseChoice:
    """The decision for one clause: the chosen tool (or None), and rivals when it is a tie."""

    clause: str
    scores: tuple[ToolScore, ...]
    chosen: str | None
    tied_with: tuple[str, ...] = ()


def choose_for_clause(clause: str, tools: list[dict], threshold: float) -> ClauseChoice:
    scores = tuple(sorted((score_tool(clause, t) for t in tools), key=lambda s: -s.score))
    if not scores or scores[0].score < threshold:
        return ClauseChoice(clause, scores, None)
    best = scores[0]
    rivals = tuple(
        s.name for s in scores[1:] if s.score >= threshold and best.score - s.score < TIE_MARGIN
    )
    return ClauseChoice(clause, scores, best.name, rivals)


# The explanation's words (the ``widgets`` catalog domain translates them: ToolChoiceTrace shows
# this table). The header's columns line up with the rows: ``score`` is 5 wide, ``chosen`` 6.
TEXTS = {
    "request": "request: {request}",
    "column_tool": "tool",
    "header": "{tool}  score  chosen  matched words",
    "mark_chosen": "yes",
    "mark_tie": "tie",
    "calls": "calls: {names}",
    "ambiguous": (
        "ambiguous between {names} (both reach the threshold, within {margin:.2f}): asks which one"
    ),
    "no_tool": "no tool reaches the threshold: answers without a tool",
    "verdict": "threshold: {threshold:.2f}; {verdict}",
}


def _columns(text: str) -> int:
    """How many columns ``text`` takes in a terminal (a Chinese character takes two)."""
    return len(text) + sum(unicodedata.east_asian_width(ch) in "WF" for ch in text)


def _padded(text: str, width: int) -> str:
    """``text`` padded with spaces to ``width`` columns."""
    return text + " " * max(0, width - _columns(text))


@dataclass(frozen=True)
class ChoiceExplanation:
    """Why the toy model picks what it picks: per-tool scores, the threshold, the choice.

    ``scores`` maps each tool name to its best score over the request's clauses (highest first);
    ``chosen`` lists the tools the model would call (empty when none reaches the threshold, or
    when the request is ambiguous: then ``ambiguous`` names the tied tools). ``str()`` and
    ``repr()`` give a plain-text table.
    """

    request: str
    threshold: float
    scores: dict[str, float]
    matched: dict[str, tuple[str, ...]]
    chosen: list[str]
    ambiguous: list[str] = field(default_factory=list)

    def table(self) -> str:
        tool = translate(TEXTS, "column_tool")
        width = max([_columns(tool), *(len(name) for name in self.scores)])
        lines = [
            translate(TEXTS, "request", request=self.request),
            translate(TEXTS, "header", tool=_padded(tool, width)),
        ]
        for name, score in self.scores.items():
            key = "mark_chosen" if name in self.chosen else "mark_tie"
            chosen_or_tie = name in self.chosen or name in self.ambiguous
            mark = _padded(translate(TEXTS, key) if chosen_or_tie else "", 6)
            words = ", ".join(self.matched[name]) or "-"
            lines.append(f"{name:<{width}}  {score:5.2f}  {mark}  {words}")
        if self.chosen:
            verdict = translate(TEXTS, "calls", names=", ".join(self.chosen))
        elif self.ambiguous:
            names = ", ".join(self.ambiguous)
            verdict = translate(TEXTS, "ambiguous", names=names, margin=TIE_MARGIN)
        else:
            verdict = translate(TEXTS, "no_tool")
        lines.append(translate(TEXTS, "verdict", threshold=self.threshold, verdict=verdict))
        return "\n".join(lines)

    __str__ = table

    def __repr__(self) -> str:
        return self.table()


def explain_choice(
    request: str, tools: list[dict[str, Any]], *, threshold: float = THRESHOLD
) -> ChoiceExplanation:
    """Score every tool against ``request`` and say which ones the model would call, and why.

    ``tools`` are Chat Completions tools (or their ``function`` dicts). Example::

        >>> print(explain_choice("What's the weather in Beijing?", [WEATHER_TOOL, NOTES_TOOL]))
    """
    choices = [choose_for_clause(c, tools, threshold) for c in txt.split_clauses(request) or [""]]
    best: dict[str, ToolScore] = {}
    for choice in choices:
        for score in choice.scores:
            if score.name not in best or score.score > best[score.name].score:
                best[score.name] = score
    ordered = sorted(best.values(), key=lambda s: -s.score)
    chosen: list[str] = []
    ambiguous: list[str] = []
    for choice in choices:
        if choice.chosen and choice.tied_with:
            ambiguous.extend(n for n in (choice.chosen, *choice.tied_with) if n not in ambiguous)
        elif choice.chosen and choice.chosen not in chosen:
            chosen.append(choice.chosen)
    if ambiguous:
        chosen = []
    return ChoiceExplanation(
        request=request,
        threshold=threshold,
        scores={s.name: s.score for s in ordered},
        matched={s.name: s.matched for s in ordered},
        chosen=chosen,
        ambiguous=ambiguous,
    )
