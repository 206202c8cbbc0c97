"""``report.html``: what the class as a whole got right and wrong, and everything to look at.

One self-contained page (inline CSS and SVG, no script, no fetch: it opens offline from a file)
made from the ``grades.json`` payload alone, so one run and a merge of shards write the same
bytes. Its sections are data: ``SECTIONS`` is a list of ``Section(key, title, render)`` where
``render(payload)`` returns the section's HTML or ``""`` to leave it out, so a lesson that needs
its own section (the capstone's scenarios) adds one entry. Failures are grouped by the fields a
check's failure carries (``hint_key``, or any other field such as ``scenario``), never by reading
the English text. Every value from a submission is escaped.

One module because the page is one document: its sections share the page's escaping, its
tables and its SVG charts, and ``SECTIONS``, which orders them, reads top to bottom as the page
does; a lesson that needs a section adds one entry and one function here.
"""

from __future__ import annotations

import html
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from course_lib.grading.isolation import gaps
from course_lib.i18n import translate

# The report's sentences and headings (one place, for the translation).
TEXT = {
    "page_title": "Class report",
    "summary": "Summary",
    "summary_line": (
        "{students} students, {submissions} notebooks graded, {exercises} exercise results, "
        "{flags} things to look at (listed below)."
    ),
    "versions": "Graded with",
    "scores": "Score distribution per notebook",
    "scores_caption": "{notebook}: how many students scored each share of the {max} points.",
    "pass_rates": "Pass rate per exercise",
    "hints": "Most frequent failure hints per exercise",
    "hints_intro": (
        "Failed checks grouped by the hint they gave (its key in the check's hint table): what "
        "the class most often gets wrong."
    ),
    "scenarios": "Pass rate per scenario",
    "scenarios_intro": (
        "Exercises graded by scenarios earn the points of the scenarios that passed: how often "
        "each scenario passed, and the hint its failures gave most often."
    ),
    "similarity": "Similarity flags",
    "similarity_intro": (
        "Answers whose token fingerprints largely match the course's own answer or a "
        "classmate's, and answers that suggest they were taken without proving it (an "
        "unchanged stub whose check passed, a route the source cannot show, code written "
        "outside the notebook's cells). Nothing was deducted: read the sources and decide."
    ),
    "borrowing": "Borrowing (zero for the exercise)",
    "faults": "Faults (timeouts, kernels that died, errors)",
    "invalid": "Invalid files",
    "isolation": "Isolation gaps",
    "isolation_intro": (
        "Protections a grading kernel lacked on this machine (see docs/grading.md, section How "
        "kernels are kept apart); what a notebook could do there was not prevented."
    ),
    "every_notebook": "every graded notebook ({count})",
    "and_more": "{shown}, and {more} more",
    "notes": "Grader notes (repairs, restarts)",
    "none": "Nothing to show.",
    "no_hint_key": "(the check gave no hint key)",
    "show_sources": "show both sources",
}
HEADERS = {
    "pass_rates": ("notebook", "exercise", "passed", "pass rate", "other results"),
    "groups": ("hint key", "failed", "share", "hint", "most frequent case"),
    "scenario_rates": ("scenario", "points", "passed", "pass rate", "most frequent hint"),
    "similarity": ("notebook", "exercise", "student", "matches", "share", "sources"),
    "isolation": ("gap", "notebooks", "which"),
    "rows": ("student", "notebook", "exercise", "status", "message"),
    "notes": ("student", "notebook", "note"),
    "versions": ("package", "version"),
}
# The tables' column headings (``HEADERS`` names them by their English).
COLUMNS = {
    "notebook": "notebook",
    "exercise": "exercise",
    "passed": "passed",
    "pass rate": "pass rate",
    "other results": "other results",
    "hint key": "hint key",
    "failed": "failed",
    "share": "share",
    "hint": "hint",
    "most frequent case": "most frequent case",
    "scenario": "scenario",
    "points": "points",
    "most frequent hint": "most frequent hint",
    "student": "student",
    "matches": "matches",
    "sources": "sources",
    "gap": "gap",
    "notebooks": "notebooks",
    "which": "which",
    "status": "status",
    "message": "message",
    "note": "note",
    "package": "package",
    "version": "version",
}
FAULTS = ("timeout", "kernel_died", "error")
STYLE = """
body{font:15px/1.45 system-ui,sans-serif;margin:2em auto;max-width:72em;padding:0 1em;color:#222}
table{border-collapse:collapse;margin:.5em 0 1.5em}td,th{border:1px solid #ccc;padding:.25em .5em;
vertical-align:top;text-align:left}th{background:#f3f3f3}pre{white-space:pre-wrap;margin:0;
font-size:13px}.pair{display:grid;grid-template-columns:1fr 1fr;gap:1em}svg text{font-size:11px}
nav a{margin-right:1em}figure{display:inline-block;margin:0 2em 1em 0}
"""


@dataclass(frozen=True)
class Section:
    key: str
    title: str
    render: Callable[[dict[str, Any]], str]


def render_report(payload: dict[str, Any]) -> str:
    """The whole page, from the payload only."""
    parts = [(section, section.render(payload)) for section in SECTIONS]
    parts = [(section, body) for section, body in parts if body]
    nav = "".join(f'<a href="#{s.key}">{esc(translate(TEXT, s.title))}</a>' for s, _ in parts)
    sections = "".join(
        f'<section id="{s.key}"><h2>{esc(translate(TEXT, s.title))}</h2>{body}</section>'
        for s, body in parts
    )
    title = esc(translate(TEXT, "page_title"))
    return (
        f'<!DOCTYPE html><html><head><meta charset="utf-8"><title>{title}</title>'
        f"<style>{STYLE}</style></head><body><h1>{title}</h1><nav>{nav}</nav>{sections}"
        "</body></html>\n"
    )


def esc(value: Any) -> str:
    """Any value as HTML text: escaped, and invisible characters shown as escapes."""
    text = str(value)
    text = "".join(
        ch
        if ch in "\n\t" or unicodedata.category(ch) not in ("Cc", "Cf", "Cs", "Co", "Cn")
        else f"\\u{ord(ch):04x}"
        for ch in text
    )
    return html.escape(text, quote=True)


def table(
    headers: Iterable[str], rows: Iterable[Iterable[Any]], *, raw: frozenset[int] = frozenset()
) -> str:
    """An HTML table; every cell escaped except the columns in ``raw`` (HTML built here)."""
    head = "".join(f"<th>{esc(translate(COLUMNS, h))}</th>" for h in headers)
    body = "".join(
        "<tr>"
        + "".join(f"<td>{cell if i in raw else esc(cell)}</td>" for i, cell in enumerate(row))
        + "</tr>"
        for row in rows
    )
    return (
        f"<table><tr>{head}</tr>{body}</table>"
        if body
        else f"<p>{esc(translate(TEXT, 'none'))}</p>"
    )


def exercise_order(exercise: str) -> tuple:
    """``"02.10"`` after ``"02.9"``."""
    return tuple((0, int(p), "") if p.isdigit() else (1, 0, p) for p in exercise.split("."))


def _rows(payload: dict[str, Any]) -> list[dict[str, Any]]:
    return payload["grades"]


def _by_exercise(payload: dict[str, Any]) -> dict[tuple[str, str], list[dict[str, Any]]]:
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for row in _rows(payload):
        if row["exercise"]:
            groups.setdefault((row["notebook"], row["exercise"]), []).append(row)
    return dict(sorted(groups.items(), key=lambda kv: (kv[0][0], exercise_order(kv[0][1]))))


# --- sections -----------------------------------------------------------------------------------


def summary_section(payload: dict[str, Any]) -> str:
    submissions = {(row["student"], row["notebook"]) for row in _rows(payload)}
    line = translate(
        TEXT,
        "summary_line",
        students=len(payload["totals"]),
        submissions=len(submissions),
        exercises=len(_rows(payload)),
        flags=flag_count(payload),
    )
    versions = table(HEADERS["versions"], sorted(payload.get("versions", {}).items()))
    return f"<p>{esc(line)}</p><h3>{esc(translate(TEXT, 'versions'))}</h3>{versions}"


def flag_count(payload: dict[str, Any]) -> int:
    """Things for the instructor to look at: similarity flags, rows that were borrowed, faulty
    or invalid, and each kind of isolation gap (the terminal summary says this number too)."""
    flagged = [row for row in _rows(payload) if row["status"] in ("tampered", "invalid", *FAULTS)]
    return len(payload.get("flags", [])) + len(flagged) + len(isolation_gaps(payload))


def scores_section(payload: dict[str, Any]) -> str:
    per_notebook: dict[str, list[tuple[int, int]]] = {}
    for total in payload["totals"].values():
        for notebook, got in total["notebooks"].items():
            per_notebook.setdefault(notebook, []).append((got["points"], got["max_points"]))
    figures = []
    for notebook, scores in sorted(per_notebook.items()):
        top = max(m for _, m in scores)
        if top <= 20:
            labels = [str(p) for p in range(top + 1)]
            counts = Counter(p for p, _ in scores)
            bars = [(label, counts.get(int(label), 0)) for label in labels]
        else:
            counts = Counter(min(9, p * 10 // max(m, 1)) for p, m in scores)
            bars = [(f"{10 * b}%", counts.get(b, 0)) for b in range(10)]
        caption = translate(TEXT, "scores_caption", notebook=notebook, max=top)
        figures.append(f"<figure>{histogram(bars)}<figcaption>{esc(caption)}</figcaption></figure>")
    return "".join(figures)


def histogram(bars: list[tuple[str, int]]) -> str:
    """An inline SVG bar chart: one labelled bar per ``(label, count)``."""
    width, height, top = 28, 120, max((n for _, n in bars), default=0) or 1
    shapes = []
    for i, (label, count) in enumerate(bars):
        h = round(count * (height - 30) / top)
        x = 5 + i * width
        shapes.append(
            f'<rect x="{x}" y="{height - 15 - h}" width="{width - 6}" height="{h}" fill="#4a7fb5"/>'
            f'<text x="{x}" y="{height - 18 - h}">{count}</text>'
            f'<text x="{x}" y="{height - 2}">{esc(label)}</text>'
        )
    total_width = 10 + width * len(bars)
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{total_width}" height="{height}" '
        f'role="img">{"".join(shapes)}</svg>'
    )


def rate_bar(rate: float) -> str:
    filled = round(rate * 100)
    return (
        '<svg xmlns="http://www.w3.org/2000/svg" width="104" height="12" role="img">'
        '<rect x="2" y="1" width="100" height="10" fill="#eee"/>'
        f'<rect x="2" y="1" width="{filled}" height="10" fill="#3c9a5f"/></svg> {filled}%'
    )


def pass_rate_section(payload: dict[str, Any]) -> str:
    lines = []
    for (notebook, exercise), rows in _by_exercise(payload).items():
        passed = sum(row["status"] == "passed" for row in rows)
        others = Counter(row["status"] for row in rows if row["status"] != "passed")
        other_text = ", ".join(f"{status} {n}" for status, n in sorted(others.items()))
        lines.append(
            (notebook, exercise, f"{passed}/{len(rows)}", rate_bar(passed / len(rows)), other_text)
        )
    return table(HEADERS["pass_rates"], lines, raw=frozenset({3}))


def failure_groups(rows: list[dict[str, Any]], field: str) -> list[tuple[str, int, str, str]]:
    """Failed rows grouped by one field of their failure: ``(key, count, hint, case)``, the
    largest group first; the hint and case shown are each group's most frequent."""
    groups: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        failure = row.get("failure") or {}
        key = failure.get(field)
        if row["status"] != "failed" or (key is None and field != "hint_key"):
            continue
        groups.setdefault(
            str(key) if key is not None else translate(TEXT, "no_hint_key"), []
        ).append(failure)
    out = []
    for key, failures in groups.items():
        hint = _most_frequent(f.get("hint", "") for f in failures)
        case = _most_frequent(f.get("case", "") for f in failures)
        out.append((key, len(failures), hint, case))
    return sorted(out, key=lambda group: (-group[1], group[0]))


def _most_frequent(values: Iterable[str]) -> str:
    counts = Counter(str(value) for value in values if value)
    return min(counts, key=lambda value: (-counts[value], value)) if counts else ""


def grouped_failures_section(field: str, intro: str, headers: str, limit: int = 5):
    """A section listing, per exercise, the ``limit`` largest groups of failures by ``field``."""

    def render(payload: dict[str, Any]) -> str:
        parts = []
        for (notebook, exercise), rows in _by_exercise(payload).items():
            groups = failure_groups(rows, field)[:limit]
            if not groups:
                continue
            failed = sum(row["status"] == "failed" for row in rows)
            body = [
                (key, count, f"{round(100 * count / failed)}%", hint, case)
                for key, count, hint, case in groups
            ]
            parts.append(f"<h3>{esc(notebook)} {esc(exercise)}</h3>")
            parts.append(table(HEADERS[headers], body))
        return f"<p>{esc(translate(TEXT, intro))}</p>" + "".join(parts) if parts else ""

    return render


def scenario_rates(rows: list[dict[str, Any]]) -> list[tuple[str, int, int, int, str]]:
    """Per scenario of one exercise, in the check's order: ``(scenario, points, passed,
    graded, hint)``, over the rows that carry scenarios (the check ran to its verdict)."""
    seen: dict[str, dict[str, Any]] = {}
    for row in rows:
        for scenario in row.get("scenarios") or ():
            entry = seen.setdefault(
                str(scenario.get("id", "")),
                {"title": scenario.get("title", ""), "points": 0, "passed": 0, "graded": 0},
            )
            entry["points"] = max(entry["points"], int(scenario.get("points", 0) or 0))
            entry["graded"] += 1
            entry["passed"] += bool(scenario.get("passed"))
            entry.setdefault("hints", []).append((scenario.get("failure") or {}).get("hint", ""))
    return [
        (
            f"{key}: {entry['title']}" if entry["title"] else key,
            entry["points"],
            entry["passed"],
            entry["graded"],
            _most_frequent(entry.get("hints", ())),
        )
        for key, entry in seen.items()
    ]


def scenarios_section(payload: dict[str, Any]) -> str:
    """For each scenario-graded exercise, each scenario's pass rate."""
    parts = []
    for (notebook, exercise), rows in _by_exercise(payload).items():
        rates = scenario_rates(rows)
        if not rates:
            continue
        body = [
            (name, points, f"{passed}/{graded}", rate_bar(passed / graded), hint)
            for name, points, passed, graded, hint in rates
        ]
        parts.append(f"<h3>{esc(notebook)} {esc(exercise)}</h3>")
        parts.append(table(HEADERS["scenario_rates"], body, raw=frozenset({3})))
    return f"<p>{esc(translate(TEXT, 'scenarios_intro'))}</p>" + "".join(parts) if parts else ""


def isolation_gaps(payload: dict[str, Any]) -> dict[str, list[str]]:
    """Each gap sentence (``isolation.gaps``) and the notebooks whose kernel had it."""
    found: dict[str, list[str]] = {}
    for student, total in sorted(payload["totals"].items()):
        for notebook, got in sorted(total["notebooks"].items()):
            for gap in gaps(got.get("isolation") or {}):
                found.setdefault(gap, []).append(f"{student}/{notebook}")
    return found


def isolation_section(payload: dict[str, Any], shown: int = 12) -> str:
    found = isolation_gaps(payload)
    if not found:
        return ""
    graded = sum(
        bool(got.get("isolation"))
        for total in payload["totals"].values()
        for got in total["notebooks"].values()
    )
    lines = []
    for gap, where in found.items():
        if len(where) == graded:
            which = translate(TEXT, "every_notebook", count=graded)
        elif len(where) > shown:
            which = translate(
                TEXT, "and_more", shown=", ".join(where[:shown]), more=len(where) - shown
            )
        else:
            which = ", ".join(where)
        lines.append((gap, len(where), which))
    return f"<p>{esc(translate(TEXT, 'isolation_intro'))}</p>" + table(HEADERS["isolation"], lines)


def similarity_section(payload: dict[str, Any]) -> str:
    flags = [f for f in payload.get("flags", []) if f.get("kind") in ("similarity", "borrowing")]
    if not flags:
        return ""
    lines = [
        (
            flag["notebook"],
            flag["exercise"],
            flag["student"],
            flag["match"],
            f"{round(100 * flag['score'])}%" if "score" in flag else "",
            f'<details><summary>{esc(translate(TEXT, "show_sources"))}</summary><div class="pair">'
            f"<pre>{esc(flag['source'])}</pre><pre>{esc(flag['matched_source'])}</pre>"
            "</div></details>",
        )
        for flag in flags
    ]
    intro = f"<p>{esc(translate(TEXT, 'similarity_intro'))}</p>"
    return intro + table(HEADERS["similarity"], lines, raw=frozenset({5}))


def status_section(statuses: tuple[str, ...], *, one_per_file: bool = False):
    """A section listing the rows with one of ``statuses`` (one per file for invalid files)."""

    def render(payload: dict[str, Any]) -> str:
        seen: set[tuple[str, str]] = set()
        lines = []
        for row in _rows(payload):
            if row["status"] not in statuses:
                continue
            if one_per_file:
                if (row["student"], row["notebook"]) in seen:
                    continue
                seen.add((row["student"], row["notebook"]))
            lines.append(
                (row["student"], row["notebook"], row["exercise"], row["status"], row["message"])
            )
        return table(HEADERS["rows"], lines) if lines else ""

    return render


def notes_section(payload: dict[str, Any]) -> str:
    lines = [
        (student, notebook, note)
        for student, total in sorted(payload["totals"].items())
        for notebook, got in sorted(total["notebooks"].items())
        for note in got["notes"]
    ]
    return table(HEADERS["notes"], lines) if lines else ""


SECTIONS: list[Section] = [
    Section("summary", "summary", summary_section),
    Section("scores", "scores", scores_section),
    Section("pass-rates", "pass_rates", pass_rate_section),
    Section("hints", "hints", grouped_failures_section("hint_key", "hints_intro", "groups")),
    Section("scenarios", "scenarios", scenarios_section),
    Section("similarity", "similarity", similarity_section),
    Section("borrowing", "borrowing", status_section(("tampered",))),
    Section("faults", "faults", status_section(FAULTS)),
    Section("invalid", "invalid", status_section(("invalid",), one_per_file=True)),
    Section("isolation", "isolation", isolation_section),
    Section("notes", "notes", notes_section),
]
